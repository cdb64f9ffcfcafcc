import Foundation

/// A streaming title's download, which a job becomes when its URL answers with a
/// playlist: read the playlists, choose the renditions, fetch every resource they need
/// (up to `-x` at once, in presentation order, so what has arrived plays from the
/// start), then commit the title as one object (`TitleCommit`).
///
/// On the loop thread, inside its job (phase `.title`), whose key lock it shares; disk
/// work runs on the job's disk queue. Its state is internal for its own extensions
/// (`TitleDownload+Pieces`, `+Progress`); nothing else touches it. A resource that cannot be had fails the title,
/// naming it; everything held is kept for the next run, which fetches only the rest.
final class TitleDownload {
    unowned let job: DownloadJob
    let format: PresentationFormat
    let staging: String
    var loop: TransferLoop { job.loop }
    var options: PrefetchOptions { job.options }
    /// Also what the job hands the entry's answer to (`PlaylistFetcher.readEntry`).
    let playlists: PlaylistFetcher

    var plan: (any TitlePlan)?
    /// What `serve` reads of the title while it downloads.
    var view: TitleInProgress?
    var progress = TitleProgress()
    /// Resources not held yet, in the order they are wanted.
    var pending: [TitleResource] = []
    /// Asked for or arriving (or waiting to be asked again): at most `-x` of them.
    var running: [String: ResourceFetch] = [:]
    /// Arrived, their last bytes being written and hashed: they report soon.
    var writing: [String: ResourceFetch] = [:]
    /// Large ranged files, fetched in pieces (theirs count within `-x` too), by path.
    var pieced: [String: PiecedFile] = [:]
    let writeBlocks = WriteBlocks()
    /// Failures in a row, by stored path.
    var failures: [String: Int] = [:]
    /// Finished since the last checkpoint began.
    var unsaved = 0
    var lastCheckpoint = 0.0
    var bytesAtLastCheckpoint: Int64 = 0
    /// A checkpoint is being saved: the next waits for it.
    var checkpointing = false
    var lastProgressEvent = 0.0
    var bytesAtLastEvent: Int64 = 0
    var committing = false
    /// Why the title fails, once the resources on their way have landed.
    var failing: JobFailure?
    let createdAt = Date()
    /// The playlists were read again for fresh URLs (once a run); `refreshing`: they are
    /// being read again (for fresh URLs, or from another copy).
    var urlsRefreshed = false
    var refreshing = false
    /// Which of the copies the playlists name the files come from (`TitlePlan.copies`):
    /// the next once one fails, never back.
    var copy = 0
    /// The URLs the playlists named when last read again, by stored path.
    var latestURLs: [String: String] = [:]
    /// Init sections and keys held from a copy given up (or an earlier run), fetched
    /// again: their hash then, and the segments held that depend on them (`confirmed`).
    var toConfirm: [String: (sha256: String, dependents: [String], why: StructureCheck)] = [:]
    /// Init sections and keys found to differ from one copy to the next: a segment of a
    /// copy given up that arrives late is not played with them.
    var differsAcrossCopies: Set<String> = []
    /// The copy each request on its way was asked of, by stored path.
    var sentToCopy: [String: Int] = [:]
    /// Requests on their way when the playlists were read again, with the URL each has
    /// now, by stored path: one that fails after that was sent with an old URL (an expired
    /// token, a copy given up), and is asked again with the fresh one (once), not taken
    /// as the title's end.
    var sentBeforeRefresh: [String: String] = [:]
    /// What players asked for while `refreshing`.
    var jumpsAfterRefresh: [(path: String, offset: Int64?)] = []
    var ended = false

    init(job: DownloadJob, format: PresentationFormat) {
        self.job = job
        self.format = format
        staging = TitleLayout.staging(key: job.key, in: job.cache)
        playlists = PlaylistFetcher(job: job)
    }

    var filesDirectory: String { staging + "/" + TitleLayout.filesFolder }

    /// Reads the title's playlist from `url` (where the job found it) and goes on from
    /// there: from the copy an earlier run moved to, whose files it holds (read off the
    /// loop first).
    func start(url: String) {
        let (staging, loop, job) = (staging, loop, job)
        job.partial.diskQueue.async {
            let saved = TitleProgress.savedCopy(staging: staging)
            loop.post { job.onTitle { $0.start(url: url, copy: saved) } }
        }
    }

    private func start(url: String, copy saved: Int) {
        guard !ended else { return }
        copy = saved
        if saved > 0 {
            job.emit(.notice(url: job.url, message: "going on from the title's copy \(saved + 1), which the last run moved to"))
        }
        read(url) { [self] result in
            guard !ended else { return }
            switch result {
            case .failure(let failure):
                end(.failed(failure))
            case .success(let title):
                for note in title.notes + title.copyNotes { job.emit(.notice(url: job.url, message: note)) }
                copy = title.copy
                planned(title.plan)
            }
        }
    }

    /// Reads and plans the title at `url` with the entry's choice of renditions.
    func read(_ url: String, completion: @escaping TitleReader.Completion) {
        TitleReader.read(url, format: format, playlists: playlists, selection: selection, copy: copy, completion: completion)
    }

    /// The entry's choice of renditions: its own keys, the run's options for the rest.
    var selection: RenditionSelectionOptions { job.request.entry.renditions.applied(to: options.renditions) }

    /// Readers of the download (`serve`) read the title's files from now on; a file one
    /// waits for jumps the queue.
    func publishView(_ plan: any TitlePlan) {
        let (download, loop) = (job.download, loop)
        let held = progress.held.mapValues { TitleInProgress.Held(size: $0.size, sha256: $0.sha256) }
        let view = TitleInProgress(plan: plan, filesDirectory: filesDirectory, held: held) { path, offset in
            loop.post { download.job?.onTitle { $0.jumpQueue(path, at: offset) } }
        }
        self.view = view
        for (path, file) in pieced {
            if let length = file.length { view.note(path, .pieces(length: length, held: file.held)) }
        }
        download.held.publish(title: view)
        // For players of another process (`serve` beside this `prefetch`): `ForeignTitle`.
        var outline = view.outline
        outline.lengths = Dictionary(
            plan.resources.compactMap { resource in resource.range.map { (resource.path, $0.end) } },
            uniquingKeysWith: { first, _ in first })
        let (saved, staging) = (outline, staging)
        job.partial.diskQueue.async { ForeignTitle.save(saved, staging: staging) }
    }

    /// A player waits for `path` (from `offset`, in a file fetched in pieces): it is
    /// fetched next, at once (beyond `-x` by a few if need be), not after what was
    /// queued before it.
    func jumpQueue(_ path: String, at offset: Int64?) {
        guard !ended, failing == nil else { return }
        // Asked for once the playlists, read again, have given fresh URLs.
        if refreshing { return jumpsAfterRefresh.append((path, offset)) }
        if let file = pieced[path] {
            guard inFlight < options.resourcesPerTitle + Self.extraForPlayers,
                let piece = file.piece(for: offset)
            else { return }
            return fetchPiece(piece, of: file, forPlayer: true)
        }
        guard let index = pending.firstIndex(where: { $0.path == path }) else { return }
        let resource = pending.remove(at: index)
        if inFlight < options.resourcesPerTitle + Self.extraForPlayers {
            fetch(resource, url: nil, hops: 0, forPlayer: true)
        } else {
            pending.insert(resource, at: 0)
        }
    }

    /// How many resources players may have fetched beyond `-x`.
    static let extraForPlayers = 4

    // MARK: Fetching

    func fill() {
        guard !ended else { return }
        if let failing {
            fail(failing)
            return
        }
        let limit = options.resourcesPerTitle
        // While the playlists are read again for fresh URLs, nothing new goes out with an old one.
        if !refreshing {
            let now = TransferLoop.now()
            // The file least far along first: a title's video and audio files arrive together.
            let files = pieced.values.sorted { $0.fractionReceived < $1.fractionReceived }
            for file in files {
                // Whole already (a run stopped while it was being hashed): hashed now.
                if file.isComplete, file.fetches.isEmpty, !file.hashing, !file.startingOver { hash(file) }
                guard inFlight < limit else { continue }
                for piece in file.nextPieces(slots: limit - inFlight, now: now) { fetchPiece(piece, of: file) }
            }
            while inFlight < limit, !pending.isEmpty {
                fetch(pending.removeFirst(), url: nil, hops: 0)
            }
        }
        if running.isEmpty && writing.isEmpty && pending.isEmpty && pieced.isEmpty && !refreshing { commit() }
    }

    /// Fetches asked for or arriving: whole resources, and pieces.
    var inFlight: Int { running.count + pieced.values.reduce(0) { $0 + $1.fetches.count } }

    /// `forPlayer`: a player waits for it, so it goes ahead of every background transfer
    /// waiting for a connection to its host (the title's own ones included).
    func fetch(_ resource: TitleResource, url: String?, hops: Int, forPlayer: Bool = false) {
        let url = url ?? resource.url
        // A redirect's target belongs to the copy the request was first sent to.
        if hops == 0 { sentToCopy[resource.path] = copy }
        // Resumed from the first bytes held without a gap (a file fetched in pieces before may have more).
        let held = progress.partial.removeValue(forKey: resource.path)
            .map { (bytes: $0.held.contiguousPrefix, validator: $0.validator) }
        let fetch = ResourceFetch(
            resource: resource, url: url, redirectHops: hops, path: filesDirectory + "/" + resource.path,
            resume: held.flatMap { $0.bytes > 0 ? $0 : nil }
        ) { [weak self] fetch, outcome in
            self?.fetched(fetch, outcome)
        }
        // Its connection is free: the next resource need not wait for the disk.
        fetch.onResponseEnd = { [weak self] fetch in
            guard let self, running[resource.path] === fetch else { return }
            running[resource.path] = nil
            writing[resource.path] = fetch
            fill()
        }
        running[resource.path] = fetch
        send(fetch, forPlayer: forPlayer)
    }

    /// Asks for `fetch`'s bytes: a player's go ahead of every background transfer
    /// waiting for a connection to their host.
    func send(_ fetch: ResourceFetch, forPlayer: Bool) {
        if let view {
            let path = fetch.resource.path
            fetch.arrivals = { view.note(path, $0) }
        }
        let request = job.source.request(url: fetch.url, urlOrigin: URLParts(fetch.url)?.origin, rangeHeaders: [], options: options)
        fetch.maxUnannouncedBytes = options.maxStreamSize
        fetch.start(
            request, userAgent: job.source.userAgent(options: options), on: loop,
            rateLimits: loop.rateLimiter.limits(file: job.fileRateLimit),
            priority: forPlayer ? DownloadJob.readerPriority : job.download.priority.rawValue,
            blocks: writeBlocks)
    }

    func fetched(_ finished: ResourceFetch, _ outcome: ResourceFetch.Outcome) {
        let resource = finished.resource
        writing[resource.path] = nil
        if running[resource.path] === finished { running[resource.path] = nil }
        guard !ended else { return }
        switch outcome {
        case .done(let size, let sha256):
            if resource.kind == .key, size != HLSKey.aes128KeyLength {
                let error = PresentationError.badKeyLength(keyURI: finished.url, bytes: Int(size))
                return fail(JobFailure(.badResponse, error.message))
            }
            failures[resource.path] = nil
            sentBeforeRefresh[resource.path] = nil
            job.bytesFetched += size
            hold(resource, size: size, sha256: sha256)
            // Held when the playlists are read from the next copy, it is dealt with then.
            if let sentTo = sentToCopy.removeValue(forKey: resource.path), sentTo != copy, !refreshing {
                arrivedFromACopyGivenUp(resource, sha256: sha256)
            } else {
                confirmed(resource, sha256: sha256)
            }
        case .pieceDone, .startOver:
            preconditionFailure("a piece's outcome for a whole resource")
        case .redirect(let target):
            guard finished.redirectHops < 10, URLParts.problem(with: target) == nil else {
                return fail(JobFailure(
                    .redirect, "\(resource.label): too many or bad redirects, last from \(Printable.url(finished.url))"))
            }
            fetch(resource, url: target, hops: finished.redirectHops + 1)
            return
        case .transient(let reason, let retryAfter):
            progress.keepPartial(of: finished)
            // Sent before the playlists were read again: asked again with the URL they give.
            if refreshing || sentBeforeRefresh[resource.path] != nil { return askAgain(resource) }
            let count = (failures[resource.path] ?? 0) + 1
            failures[resource.path] = count
            let failure = JobFailure(
                .retriesExhausted, "\(resource.label) (\(Printable.url(finished.url))) failed \(count) times, last: \(reason)")
            if count >= Self.failuresBeforeAnotherCopy, tryAnotherCopy(for: resource, after: failure) { return }
            guard count <= options.retries else { return fail(failure) }
            let delay = job.retryPolicy.delay(attempt: count, retryAfter: retryAfter)
            job.emit(.retry(url: job.url, attempt: count, delay: delay, reason: "\(resource.label): \(reason)"))
            // Held aside, not in `pending`: the other resources go on meanwhile.
            running[resource.path] = finished
            _ = loop.after(delay) { [weak self] in
                guard let self, !self.ended, self.running[resource.path] === finished else { return }
                self.running[resource.path] = nil
                self.askAgain(resource)
            }
            return
        case .definite(let failure):
            // Tokens expire together, and a copy given up fails for every request: one
            // sent before the playlists were read again is asked again with the URL they give.
            if refreshing || sentBeforeRefresh[resource.path] != nil { return askAgain(resource) }
            if case .status(let status) = failure.cause, [401, 403, 410].contains(status), !urlsRefreshed {
                return refreshURLs(retrying: resource, status: status, failure: failure)
            }
            if tryAnotherCopy(for: resource, after: failure) { return }
            return fail(failure)
        }
        fill()
    }

    /// `resource` is whole on disk (and a player waiting for it gets it).
    func hold(_ resource: TitleResource, size: Int64, sha256: String) {
        progress.held[resource.path] = TitleProgress.Held(size: size, sha256: sha256, rendition: resource.rendition)
        view?.didHold(resource.path, TitleInProgress.Held(size: size, sha256: sha256))
        unsaved += 1
        noteProgress()
    }

    /// A resource cannot be had: nothing new starts, what is on its way lands (and is
    /// kept for the next run), then the title fails.
    func fail(_ failure: JobFailure) {
        if failing == nil { failing = failure }
        pending = []
        // Resources waiting to be asked again are not on their way.
        running = running.filter { $0.value.isOnItsWay }
        let piecesBusy = pieced.values.contains { !$0.fetches.isEmpty || $0.hashing || $0.startingOver }
        if running.isEmpty && writing.isEmpty && !piecesBusy && !refreshing { end(.failed(failing ?? failure)) }
    }

    // MARK: Ending

    func commit() {
        guard let plan, !committing else { return }
        committing = true
        let commit = TitleCommit(
            key: job.key, cache: job.cache, entry: job.request.entry, plan: plan, selection: selection,
            progress: progress, staging: staging, finishedAt: Date())
        let (job, loop) = (job, loop)
        commit.run(on: job.partial.diskQueue, index: job.service.index, commits: job.service.commits) { ending in
            loop.post { job.onTitle { $0.end(ending) } }
        }
    }

    /// Stops for Ctrl-C or SIGTERM: what is held is saved for the next run.
    func interrupt() {
        guard !ended else { return }
        checkpoint()
        stopFetches()
        end(.interrupted)
    }

    /// Fetches still to report: arriving, or being written.
    var onTheirWay: [ResourceFetch] {
        running.values.filter(\.isOnItsWay) + Array(writing.values)
    }

    func stopFetches() {
        for fetch in running.values { fetch.cancel(on: loop) }
        for fetch in writing.values { fetch.cancel(on: loop) }
        for file in pieced.values { file.cancelAll(on: loop) }
        running = [:]
        writing = [:]
        pending = []
    }

    func end(_ result: DownloadResult) {
        guard !ended else { return }
        ended = true
        var result = result
        if case .failed(var failure) = result {
            failure.title = counts(listingMissing: true)
            let holds = !progress.held.isEmpty || !progress.partial.isEmpty || pieced.values.contains { $0.partial != nil }
                || onTheirWay.contains { $0.bytesWritten > 0 && $0.heldValidator != nil }
            // As a file's: what may go better later (a 503, a timeout) stays for `resume`;
            // a definite failure with nothing held leaves nothing behind.
            failure.keptForResume = holds || !failure.isDefinite
            if failure.keptForResume {
                checkpoint()
            } else {
                let staging = staging
                job.partial.diskQueue.async { FileSystem.removeTree(staging) }
            }
            if holds {
                let parts = progress.held.count == 1 ? "the 1 part held is" : "the \(progress.held.count) parts held are"
                failure.message += "; \(parts) kept: run again to fetch the rest"
            }
            result = .failed(failure)
        }
        stopFetches()
        job.finish(result)
    }
}

extension DownloadJob {
    /// Runs `body` with the job's title download, if it still is one: how disk work
    /// reports back to a title through the loop (the job is what may cross threads).
    func onTitle(_ body: (TitleDownload) -> Void) {
        if case .title(let title) = phase { body(title) }
    }
}
