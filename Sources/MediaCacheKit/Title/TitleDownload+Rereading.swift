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
                return takeURLs(of: title.plan, retrying: resource, failure: failure)
            case .success:
                // Its parts would not fit those held: it is another cut of the title.
                problem = "it is cut differently"
            case .failure(let readFailure):
                problem = readFailure.message
            }
            job.emit(.notice(url: job.url, message: "the title's copy \(number + 1) cannot be used: \(problem)"))
            guard number + 1 < plan.copies else {
                refreshing = false
                return fail(failure)
            }
            readCopy(number + 1, of: plan, retrying: resource, failure: failure)
        }
    }

    /// What is still to fetch takes the URLs of `fresh`, and `resource`, which failed, is
    /// asked for again first; requests on their way answer with the URLs they were sent
    /// with, and one that fails is asked again with its fresh URL (`askAgain`).
    private func takeURLs(of fresh: any TitlePlan, retrying resource: TitleResource, failure: JobFailure) {
        let urls = Dictionary(fresh.resources.map { ($0.path, $0.url) }, uniquingKeysWith: { first, _ in first })
        guard let url = urls[resource.path] else { return fail(failure) }
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

    /// Asks for `resource` again: with the URL the playlists read since it was sent name
    /// for it, or once the reading under way gives one.
    func askAgain(_ resource: TitleResource) {
        var resource = resource
        if let fresh = sentBeforeRefresh.removeValue(forKey: resource.path) { resource.url = fresh }
        if refreshing { return pending.insert(resource, at: 0) }
        fetch(resource, url: nil, hops: 0)
    }
}
