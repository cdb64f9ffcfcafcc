import Foundation

/// One file's life: probe → plan → fetch → verify → commit (docs/internals.md, "How it stays correct").
///
/// Confined to the transfer loop's thread, except for the work it hands to its partial
/// file's disk queue (checkpoints and the commit), which reports back through `loop.post`.
// @unchecked: the loop thread's, each entry checked; disk work reports back through `loop.post`.
final class DownloadJob: @unchecked Sendable {
    let request: JobRequest
    let key: CacheKey
    /// Its entry in the service's registry: the readers' wants and what they may read.
    let download: Download
    unowned let service: DownloadService
    var loop: TransferLoop { service.loop }
    var options: PrefetchOptions { service.options }
    var cache: CacheDirectory { service.cache }
    let scheduler: FragmentScheduler
    let retryPolicy: RetryPolicy
    /// The data file, journal and saved state while the download runs.
    let partial: PartialFile
    /// Where the bytes come from now: the origin (or a mirror), or the tier's copy.
    var source: any Source

    var lock: KeyLock?
    var state: JobState
    var phase: Phase = .starting
    var failuresInARow = 0
    /// The furthest byte a single stream (no ranges) reached for this version of the file.
    var furthestStreamed: Int64 = 0
    var originChanges = 0
    /// Every length the origin gave for this file in this run: one it gives again after
    /// a restart shows an origin that flips between two answers.
    var lengthsAnnounced: Set<Int64> = []
    /// Every version the origin named for this file in this run (validators and length):
    /// one named again after another (A, B, A) shows servers behind one name that each
    /// name the same file their own way, not a file that changed back.
    var versionsSeen: [Validators] = []
    /// Where redirects led that answered as the file in this run: a link that refuses
    /// later has expired (a fresh one is asked for), one that refused at once never worked.
    var linksThatWorked: Set<String> = []
    /// Seconds from a request to its first body byte (a moving average): what the endgame
    /// weighs against a running range's time left. Nil until one has been seen.
    var requestLatency: Double?
    /// The source the `started` event named; nil until it was sent. Another source that
    /// takes over is announced again (its bytes are another copy's); a mirror, which
    /// continues the origin's bytes, is not.
    private var announcedSource: DownloadSource?
    /// URLs this job parsed, each parsed once: URLComponents costs more than the rest of
    /// a small file's header handling.
    private var parsedURLs: [String: URLParts?] = [:]
    /// What this job's readers were shown of another process's download of the key
    /// while waiting for its lock (`ForeignDownload`); nil when nothing.
    var foreignShown: ForeignShown?
    /// That download made no progress for `--timeout`: shown again only once it does.
    var foreignStalled: (epoch: UInt64, bytes: Int64)?
    /// What this job's readers were shown of another process's download of the key when
    /// it is a title (`ForeignTitle`); nil when nothing.
    var foreignTitle: TitleInProgress?
    /// The lengths its outline gives the files it fetches in pieces.
    var foreignLengths: [String: Int64] = [:]
    /// `out=`, else the URL's last path component.
    private(set) lazy var name = request.entry.displayName
    var lastProgress = 0.0
    var bytesAtLastProgress: Int64 = 0
    var bytesFetched: Int64 = 0
    /// This file's own limit (`max-download-limit=`, else `--max-download-limit`), which
    /// its connections share; nil: only the run's limit, if any, applies.
    private(set) lazy var fileRateLimit: TokenBucket? = {
        let limit = request.entry.maxDownloadLimit ?? options.maxDownloadLimit
        return limit > 0 ? TokenBucket(bytesPerSecond: limit, now: TransferLoop.now()) : nil
    }()

    init(download: Download, service: DownloadService) {
        self.download = download
        request = download.request
        key = download.key
        self.service = service
        let options = service.options
        scheduler = FragmentScheduler(
            planner: FragmentPlanner(minFragment: options.minFragment), connections: options.connectionsPerFile)
        retryPolicy = RetryPolicy(
            baseDelay: options.retryBaseDelay, maxDelay: options.maxRetryDelay, maxRetryAfter: options.maxRetryAfter)
        partial = PartialFile(cache: service.cache, key: download.key)
        state = JobState(entry: request.entry, commandHeaders: request.commandHeaders)
        source = OriginSource(entry: request.entry, commandHeaders: request.commandHeaders)
    }

    var url: String { request.entry.url }

    /// `url` parsed (once per job).
    func parts(of url: String) -> URLParts? {
        if let known = parsedURLs[url] { return known }
        let parts = URLParts(url)
        parsedURLs[url] = parts
        return parts
    }

    /// Whether `url` names a text format (a text body for it is then no error page).
    func expectsText(_ url: String) -> Bool {
        MediaTypeCheck.expectsText(pathExtension: parts(of: url)?.pathExtension)
    }

    func emit(_ event: PrefetchEvent) { service.emit(event) }

    /// The streaming format the answer was expected to be, by its Content-Type or by the
    /// name of the URL listed or answering; nil for a plain file.
    var expectedPresentation: PresentationFormat? {
        PresentationDetection.format(contentType: state.contentType, firstBytes: [])
            ?? [url, state.finalURL].compactMap { $0 }.lazy
                .compactMap { PresentationDetection.namedFormat(pathExtension: self.parts(of: $0)?.pathExtension) }.first
    }

    // MARK: Requests

    /// A request that brings bytes a reader waits for: first on its host and under a
    /// rate limit, before any download's.
    static let readerPriority = DownloadPriority.interactive.rawValue + 1

    @discardableResult
    func issue(
        url: String, start: Int64, end: Int64?, isProbe: Bool, sendRange: Bool, ifRange: String?,
        compareUntil: Int64, redirectHops: Int = 0, demand: FragmentScheduler.Demand.Priority? = nil
    ) -> Fragment {
        var rangeHeaders: [String] = []
        if sendRange {
            rangeHeaders.append("Range: " + (end.map { ByteRange(start, $0).httpRangeValue } ?? "bytes=\(start)-"))
            if let ifRange { rangeHeaders.append("If-Range: \(ifRange)") }
        }
        let request = source.request(
            url: url, urlOrigin: parts(of: url)?.origin, rangeHeaders: rangeHeaders, options: options)
        let transfer = HTTPTransfer(
            request: request, userAgent: source.userAgent(options: options), delegate: self,
            rateLimits: loop.rateLimiter.limits(file: fileRateLimit))
        let fragment = Fragment(
            transfer: transfer, isProbe: isProbe, start: start, end: end, sentRange: sendRange,
            ifRange: sendRange ? ifRange : nil, redirectHops: redirectHops)
        fragment.compareUntil = compareUntil
        fragment.demand = demand
        // A reader's bytes go first on the host, then downloads by priority; a range of
        // a known length can give way (its rest is planned again), a probe or a stream cannot.
        transfer.priority = demand == .reader ? Self.readerPriority : download.priority.rawValue
        transfer.isPreemptible = sendRange && !isProbe && end != nil && demand == nil
        attempt?.add(fragment)
        loop.start(transfer)
        return fragment
    }

    /// The first request: learns length, validators, type and Range support while
    /// fetching the first fragment. Its range is bounded (the first planned piece on a
    /// resume, two fragments on a fresh start, so files that are not worth splitting
    /// take one request), so no connection is cut mid-response and the origin never
    /// pushes bytes nobody asked for.
    func startProbe() {
        attempt?.hasher?.cancel()
        attempt?.cancelWake(on: loop)
        phase = .probing(FetchAttempt())
        let sendRange = state.rangesSupported
        // Without Range, one stream from byte 0 to wherever it ends.
        var piece: (start: Int64, end: Int64?) = (0, sendRange ? firstRequestSize : nil)
        var compareFrom: Int64?
        if sendRange, let length = state.length, !state.completed.isEmpty {
            let gaps = state.completed.gaps(within: ByteRange(0, length))
            if let first = scheduler.planner.plan(unassigned: gaps, slots: options.connectionsPerFile).first {
                piece = (first.start, first.end)
            }
            // Without validators, re-fetch a window of held bytes and compare it.
            if !state.validators.canIdentifyVersion && piece.start > 0 {
                compareFrom = max(0, piece.start - 64 * 1024)
            }
        } else if !state.completed.isEmpty {
            state.discardData()
        }
        issue(
            url: source.probeURL, start: compareFrom ?? piece.start, end: piece.end, isProbe: true, sendRange: sendRange,
            ifRange: state.completed.isEmpty ? nil : state.validators.ifRangeValue, compareUntil: piece.start)
    }

    /// Two fragments, so a file not worth splitting takes one request. An MP4 is asked
    /// for less: its box layout is known after a few hundred bytes, and a moov at the end
    /// is then requested before the first response has filled the socket with mdat.
    private var firstRequestSize: Int64 {
        let isMP4 = URLParts.shortExtension(of: name).map { Self.mp4Extensions.contains($0.lowercased()) } ?? false
        return isMP4 ? min(2 * options.minFragment, 256 * 1024) : 2 * options.minFragment
    }

    private static let mp4Extensions: Set<String> = ["mp4", "m4v", "m4a", "mov", "3gp", "3g2", "f4v"]

    /// Says once per source that the download started: a file when its first answer is
    /// accepted (a new one from the origin when its first bytes show it is no playlist),
    /// a title when it is planned.
    func announceStart(length: Int64?, resumedBytes: Int64, connections: Int, title: TitleCounts? = nil) {
        guard announcedSource != source.kind else { return }
        announcedSource = source.kind
        emit(
            .started(
                url: url, name: name, length: length, resumedBytes: resumedBytes, connections: connections,
                source: source.kind, title: title))
    }

    /// Called for every chunk a file writes: the counts are taken only the first time.
    func announceFileStart() {
        guard announcedSource != source.kind else { return }
        announceStart(length: state.length, resumedBytes: state.bytesDone, connections: plannedConnections)
    }

    /// The probe's head was accepted: split the work across the file's connections.
    func beginFetching() {
        guard let attempt else { return }
        phase = .fetching(attempt)
        // A new download from the origin may be a playlist, by its type (known now) or by
        // its first bytes (known when they arrive). A title's readers wait for its plan,
        // and it says when it starts with no playlist's size for the title's; a file says
        // so once its first bytes show it is one.
        let mayBeTitle = source.kind == .origin && state.bytesDone == 0
        let titleByType = mayBeTitle && PresentationDetection.format(contentType: state.contentType, firstBytes: []) != nil
        if let dataFile = partial.dataFile, !titleByType {
            download.held.publish(file: dataFile, completed: state.completed, about: source.readersData(state: state))
        }
        let now = TransferLoop.now()
        partial.restartCheckpointClock(at: now)
        lastProgress = now
        if !mayBeTitle { announceFileStart() }
        if let length = state.length, length >= 32 << 20, let file = partial.dataFile {
            var algorithms: Set<DigestAlgorithm> = [.sha256]
            if let checksum = request.entry.checksum { algorithms.insert(checksum.algorithm) }
            attempt.hasher = PrefixHasher(file: file, algorithms: algorithms)
        }
        if rangesUsable, let length = state.length, length > 0 {
            attempt.moovSearch = FetchAttempt.MoovSearch(locator: MoovLocator(length: length))
            // Hold the other connections only if there will be other connections.
            let probeCoversTheRest = (attempt.probe.map { $0.end.map { $0 >= length } ?? true } ?? false)
                && state.completed.gaps(within: ByteRange(0, length)).count <= 1
            if !probeCoversTheRest {
                attempt.holdFillUntil = now + 1.0
                // The probe asked for two fragments so a small file takes one request; in a
                // file that is split anyway it takes one piece like every other connection,
                // or it would be the last to finish.
                if let probe = attempt.probe {
                    let piece = max(probe.next, probe.compareUntil) + scheduler.pieceSize(of: length)
                    probe.end = probe.end.map { min($0, piece) } ?? piece
                }
            }
            advanceMoovSearch(fill: false)
        }
        fillConnections()
    }

    /// Connections this file will use: fewer for files too small to split.
    var plannedConnections: Int {
        guard rangesUsable, let length = state.length else { return 1 }
        let remaining = length - state.bytesDone
        return Int(max(1, min(Int64(options.connectionsPerFile), remaining / options.minFragment)))
    }

    var rangesUsable: Bool { state.rangesSupported && state.length != nil }

    // MARK: Ending

    /// Stops for Ctrl-C or SIGTERM, saving progress.
    func interrupt() {
        loop.preconditionOnLoop()
        guard !isFinished else { return }
        switch phase {
        case .committing:
            // The commit finishes on its own; its result is reported as usual.
            return
        case .title(let title):
            title.interrupt()
            return
        case .pullingTitle(let pull):
            // The pull stops at its next read; the lock is released after it.
            pull.cancel()
            finish(.interrupted)
            return
        case .preparing, .waitingForLock, .waitingForDescriptors:
            // Nothing fetched yet: the disk queue is still opening the files, or the
            // job waits to start again.
            finish(.interrupted)
            return
        default:
            break
        }
        cancelAllTransfers()
        checkpoint()
        finish(.interrupted)
    }

    func fail(_ failure: JobFailure, keepPartial: Bool) {
        loop.preconditionOnLoop()
        guard !isFinished else { return }
        cancelAllTransfers()
        var failure = failure
        // A dead link leaves no folder behind: 200,000 of them made `status` slow.
        failure.keptForResume = keepPartial && !(failure.isDefinite && state.completed.isEmpty)
        if failure.keptForResume {
            if state.rangesSupported {
                partial.releaseUnheld(state.completed, length: state.length)
            } else {
                // A stream no range can continue starts again from byte 0: its bytes are
                // given back now (a full disk is the usual end of such a stream), and the
                // entry alone is kept for the next run.
                state.discardData()
                partial.releaseAll()
            }
            checkpoint()
        } else {
            partial.remove()
        }
        finish(.failed(failure))
    }

    /// Cancels the timer that would have the job look again, whichever phase set it.
    func cancelWake() {
        switch phase {
        case .waitingForLock(let timer), .waitingForDescriptors(let timer): loop.cancelTimer(timer)
        default: attempt?.cancelWake(on: loop)
        }
    }

    func finish(_ result: DownloadResult) {
        loop.preconditionOnLoop()
        guard !isFinished else { return }
        cancelWake()
        // The lock is held until every queued checkpoint is on disk. A file's commit was
        // the last disk work queued for it, and it has ended when it reports: the lock
        // goes now, with no trip through the disk queue.
        let committedFile = if case .committing = phase, case .committed = result { true } else { false }
        phase = .finished(result)
        if !committedFile {
            let lock = self.lock
            service.diskWork.enter()
            partial.diskQueue.async { [service] in
                withExtendedLifetime(lock) {}
                service.diskWork.leave()
            }
        }
        lock = nil
        service.jobDidFinish(self, result: result)
    }
}
