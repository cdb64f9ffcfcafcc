import Foundation

/// Reading a title's playlists again while it downloads, and what is still to fetch
/// taking the URLs they name now, matched by stored path (the rendition and the place
/// in it), never by URL: for fresh URLs when one seems to have expired (a signed URL's
/// token), or from another copy of the title when the one in use fails (HLS redundant
/// variants, DASH `BaseURL`s on other servers).
extension TitleDownload {
    /// Failures in a row of one resource after which the title's next copy, if there is
    /// one, is tried instead of its server again.
    static let failuresBeforeAnotherCopy = 2

    /// A resource answered as if its URL had expired: the playlists are read once more.
    func refreshURLs(retrying resource: TitleResource, status: Int, failure: JobFailure) {
        urlsRefreshed = true
        refreshing = true
        job.emit(.notice(url: job.url, message: "\(resource.label) answered HTTP \(status): reading the playlists again for fresh URLs"))
        read(job.url) { [self] result in
            refreshing = false
            guard !ended else { return }
            guard case .success(let title) = result else { return fail(failure) }
            takeURLs(of: title.plan, retrying: resource, failure: failure)
        }
    }

    /// `resource` cannot be had from the copy of the title in use (its server is down,
    /// or lost it): when the playlists name another copy, they are read from it, and what
    /// is still to fetch comes from there. False when there is no other copy to try.
    func tryAnotherCopy(for resource: TitleResource, after failure: JobFailure) -> Bool {
        guard !refreshing, let plan, copy + 1 < plan.copies else { return false }
        refreshing = true
        readCopy(copy + 1, of: plan, retrying: resource, failure: failure)
        return true
    }

    /// Reads copy `number` of the title, and goes on from it if it is cut as `plan` is;
    /// else tries the one after it, and fails with `failure` after the last.
    private func readCopy(_ number: Int, of plan: any TitlePlan, retrying resource: TitleResource, failure: JobFailure) {
        copy = number
        job.emit(.notice(url: job.url, message: "\(failure.message); trying the title's copy \(number + 1) of \(plan.copies)"))
        read(job.url) { [self] result in
            guard !ended else { return }
            let problem: String
            switch result {
            case .success(let title) where title.plan.shapes == plan.shapes:
                refreshing = false
                for note in title.copyNotes { job.emit(.notice(url: job.url, message: note)) }
                copy = title.copy
                return takeURLs(of: title.plan, retrying: resource, failure: failure, fromAnotherCopy: true)
            case .success:
                // Its parts would not fit those held: it is another cut of the title.
                problem = "it is cut differently"
            case .failure(let readFailure):
                problem = readFailure.message
            }
            job.emit(.notice(url: job.url, message: "the title's copy \(number + 1) cannot be used: \(problem)"))
            // A read that failed tried every copy after this one too.
            guard case .success = result, number + 1 < plan.copies else {
                refreshing = false
                return fail(failure)
            }
            readCopy(number + 1, of: plan, retrying: resource, failure: failure)
        }
    }

    /// What is still to fetch takes the URLs of `fresh`, and `resource`, which failed, is
    /// asked for again first; requests on their way answer with the URLs they were sent
    /// with, and one that fails is asked again with its fresh URL (`askAgain`).
    private func takeURLs(
        of fresh: any TitlePlan, retrying resource: TitleResource, failure: JobFailure, fromAnotherCopy: Bool = false
    ) {
        let urls = Dictionary(fresh.resources.map { ($0.path, $0.url) }, uniquingKeysWith: { first, _ in first })
        guard let url = urls[resource.path] else { return fail(failure) }
        latestURLs = urls
        if fromAnotherCopy { confirmInitSectionsAndKeys() }
        for path in Set(running.keys).union(writing.keys) where path != resource.path {
            sentBeforeRefresh[path] = urls[path]
        }
        for index in pending.indices { pending[index].url = urls[pending[index].path] ?? pending[index].url }
        for (path, file) in pieced {
            file.url = urls[path] ?? file.url
            file.redirectHops = 0
        }
        if pieced[resource.path] == nil {
            var renewed = resource
            renewed.url = url
            failures[resource.path] = nil
            pending.insert(renewed, at: 0)
        }
        let jumps = jumpsAfterRefresh
        jumpsAfterRefresh = []
        for jump in jumps { jumpQueue(jump.path, at: jump.offset) }
        fill()
    }

    /// The init sections and keys held from the copy given up (or from an earlier run)
    /// are fetched again: segments of another encode, or under another key, must not be
    /// played with them (`confirmed`).
    func confirmInitSectionsAndKeys(_ why: StructureCheck = .anotherCopy) {
        guard let plan else { return }
        for resource in plan.resources where resource.isStructure {
            guard let held = progress.held[resource.path] else { continue }
            confirmAgain(resource, heldAs: held.sha256, why: why)
        }
    }

    /// Why init sections and keys held are fetched again to be compared.
    enum StructureCheck {
        /// The title moved to another copy (another server, maybe another encode).
        case anotherCopy
        /// An earlier run fetched them: the origin may have encoded or keyed the title
        /// anew since, under the same names and durations.
        case sinceLastRun
    }

    /// `resource`, an init section or key held as `sha256` from a copy given up (or an
    /// earlier run), is fetched again from the copy in use, the segments held that are
    /// played with it waiting on the answer. A key written into the playlist (`data:`) was never
    /// fetched from a server.
    private func confirmAgain(_ resource: TitleResource, heldAs sha256: String, why: StructureCheck = .anotherCopy) {
        guard let plan, !DataURI.isDataURI(resource.url), let url = latestURLs[resource.path], !DataURI.isDataURI(url)
        else { return }
        let dependents = plan.resources.filter { $0.isPlayed(with: resource) && progress.held[$0.path] != nil }
        progress.held[resource.path] = nil
        toConfirm[resource.path] = (sha256, dependents.map(\.path), why)
        view?.note(resource.path, .from(0))
        var again = resource
        again.url = url
        pending.insert(again, at: 0)
    }

    /// `resource` came whole from a copy given up after the move (it was on its way): an
    /// init section or key is fetched again from the copy in use to compare; a segment
    /// is kept unless one it is played with is known to differ there, and waits with
    /// the others held while that is not known yet.
    func arrivedFromACopyGivenUp(_ resource: TitleResource, sha256: String) {
        guard let plan else { return }
        if resource.isStructure { return confirmAgain(resource, heldAs: sha256) }
        let structures = plan.resources.filter { $0.isStructure && resource.isPlayed(with: $0) }
        if structures.contains(where: { differsAcrossCopies.contains($0.path) }) {
            return fetchAgainFromThisCopy([resource])
        }
        for structure in structures where toConfirm[structure.path] != nil {
            toConfirm[structure.path]?.dependents.append(resource.path)
        }
    }

    /// `resource`, an init section or key fetched again, came as `sha256`: if what was
    /// held had other bytes, the segments held with it are of another encode (or key)
    /// and are fetched again.
    func confirmed(_ resource: TitleResource, sha256: String) {
        guard let (before, dependents, why) = toConfirm.removeValue(forKey: resource.path), before != sha256, let plan
        else { return }
        if why == .anotherCopy { differsAcrossCopies.insert(resource.path) }
        let again = plan.resources.filter { dependents.contains($0.path) && progress.held[$0.path] != nil }
        guard !again.isEmpty else { return }
        let parts = again.count == 1 ? "the 1 part" : "the \(again.count) parts"
        let what = switch why {
        case .anotherCopy: "is not the same on the title's copy \(copy + 1): \(parts) held from the copy before"
        case .sinceLastRun: "changed on the origin since the last run: \(parts) held from then"
        }
        job.emit(.notice(url: job.url, message: "\(resource.label) \(what) \(again.count == 1 ? "is" : "are") fetched again"))
        fetchAgainFromThisCopy(again)
    }

    /// Held `resources` of a copy given up are fetched again from the copy in use.
    private func fetchAgainFromThisCopy(_ resources: [TitleResource]) {
        for var resource in resources {
            progress.held[resource.path] = nil
            view?.note(resource.path, .from(0))
            resource.url = latestURLs[resource.path] ?? resource.url
            pending.append(resource)
        }
        unsaved += 1
    }

    /// Asks for `resource` again: with the URL the playlists read since it was sent name
    /// for it, or once the reading under way gives one.
    func askAgain(_ resource: TitleResource) {
        var resource = resource
        if let fresh = sentBeforeRefresh.removeValue(forKey: resource.path) { resource.url = fresh }
        if refreshing { return pending.insert(resource, at: 0) }
        fetch(resource, url: nil, hops: 0)
    }
}
