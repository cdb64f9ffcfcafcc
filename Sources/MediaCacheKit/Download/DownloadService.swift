import Foundation
import Synchronization

/// The engine as a long-lived service: one libcurl multi loop on its own thread, the
/// index, the commit batcher and the spare data files, shared by every download until
/// `shutdown()`.
///
/// `submit` is safe from any thread. Downloads are registered by cache key: a second
/// submit of a key while it downloads joins that download (one set of ranges from the
/// origin) instead of waiting on the key's lock. Up to `-j` downloads run at once,
/// started in priority order; interactive ones (someone waits to read) start at once,
/// up to `interactiveBeyondJobs` more.
///
/// A download gives its slot back once every byte is written: its commit (hashing,
/// relocation, sync, rename, index) runs behind while the next download fetches, as long
/// as the bytes committing behind stay within `options.uncommittedBytesLimit` and their
/// files within the descriptor budget; past either, it keeps its slot until committed.
// @unchecked: the registry is under its mutex; the rest is the loop thread's, each entry checked.
public final class DownloadService: @unchecked Sendable {
    public let cache: CacheDirectory
    /// The options asked for, with `-j` and `-x` made to fit the open-file limit.
    public let options: PrefetchOptions
    /// How the service was sized to the open-file limit (`warning` says if it was cut).
    public let descriptorBudget: DescriptorBudget
    let index: CacheIndex
    /// Committed objects, through the service's own index.
    public let objects: ObjectStore
    let commits: CommitBatcher
    let loop: TransferLoop
    /// Finished jobs' disk work (last checkpoints, lock release) and index writes still
    /// in flight.
    let diskWork = DispatchGroup()
    /// Index writes that need not hold up the transfer thread (uses, restored names).
    let indexWork = DispatchQueue(label: "mediacache.index-writes")
    /// Where events leave, in order, never holding up the transfers.
    private let events: EventOutbox
    let committed: (@Sendable (CachedObject) -> Void)?
    /// The fleet's tier, when downloads may read from it (`--tier`, `pull`).
    let tier: TierSource?
    private let stopped = DispatchSemaphore(value: 0)

    /// The downloads by key, which `submit` reads from any thread.
    private let registry = Mutex(Registry())

    private struct Registry {
        var downloads: [CacheKey: Download] = [:]
        var acceptsSubmissions = true
        var isShutDown = false
    }

    // Confined to the loop thread.
    /// Registered downloads not started yet, in submission order.
    private var queued: [Download] = []
    /// Downloads holding a slot: fetching, or committing while the bound on commits behind
    /// is reached.
    private var runningCount = 0
    /// Downloads committing behind, which gave their slot back, and the bytes of each.
    private var behind: [ObjectIdentifier: Int64] = [:]
    private var bytesBehind: Int64 = 0
    /// The most bytes ever committing behind at once (tests check the bound).
    private(set) var peakBytesBehind: Int64 = 0
    /// Downloads committing that keep their slot for now, oldest first, with their bytes.
    private var keepingSlot: [(job: DownloadJob, bytes: Int64)] = []
    /// How many may commit behind at once: each holds its job, its data file and, while
    /// it hashes, a read buffer. A small file's commit waits through two flushes (the one
    /// before it is named, and the next, before its row): eight per slot (16 at least)
    /// keep the slots busy meanwhile (four held a list of small files back by a quarter)
    /// without memory growing with a list of tiny ones; the open-file limit may allow fewer.
    private var maxCommitsBehind: Int { min(descriptorBudget.commitsBehind, max(16, 8 * options.jobs)) }
    private var startedCount = 0
    private var shuttingDown = false
    /// An admission is posted: a job's end never starts another inside its own call.
    private var admissionPosted = false
    /// Data files made ahead, once more downloads start than run at once.
    private(set) var spareFiles: SpareDataFiles?
    /// Objects found already cached, marked as used in one transaction per group.
    var usedKeys: [CacheKey] = []

    /// `committed` hears of every object this service commits (on the transfer thread,
    /// so it must be quick): how `--tier-push` uploads behind the downloads. `tier`: look
    /// there first for each download, and fetch its copy when it has one.
    public convenience init(
        cache: CacheDirectory, options: PrefetchOptions, events: @escaping @Sendable (PrefetchEvent) -> Void,
        shows: @escaping @Sendable (PrefetchEvent) -> Bool = { _ in true },
        committed: (@Sendable (CachedObject) -> Void)? = nil, tier: TierSource? = nil
    ) throws {
        try self.init(
            cache: cache, options: options, events: events, shows: shows, committed: committed, tier: tier, executor: nil)
    }

    /// `events` gets each event `shows` says it does anything with; `executor` runs the
    /// transfers: libcurl's multi handle, unless a test scripts them.
    init(
        cache: CacheDirectory, options: PrefetchOptions, events: @escaping @Sendable (PrefetchEvent) -> Void,
        shows: @escaping @Sendable (PrefetchEvent) -> Bool = { _ in true },
        committed: (@Sendable (CachedObject) -> Void)?, tier: TierSource?, executor: (any TransferExecutor)?
    ) throws {
        self.cache = cache
        self.events = EventOutbox(sink: events, shows: shows)
        self.committed = committed
        self.tier = tier
        try cache.prepare()
        index = try CacheIndex(directory: cache)
        objects = ObjectStore(directory: cache, index: index)
        commits = CommitBatcher(index: index)
        let budget = DescriptorBudget(
            limit: FileDescriptorLimit.current, inUse: DescriptorBudget.descriptorsInUse(), jobs: options.jobs,
            connectionsPerFile: options.connectionsPerFile, resourcesPerTitle: options.resourcesPerTitle,
            maxConnections: max(16, options.maxConnectionsPerHost * 4))
        var fitted = options
        fitted.jobs = budget.jobs
        fitted.connectionsPerFile = budget.connectionsPerFile
        fitted.resourcesPerTitle = budget.resourcesPerTitle
        self.options = fitted
        descriptorBudget = budget
        loop = TransferLoop(
            maxConnectionsPerHost: options.maxConnectionsPerHost, maxConnections: budget.maxConnections, executor: executor)
        if options.limitRate > 0 {
            loop.rateLimiter.overall = TokenBucket(bytesPerSecond: options.limitRate, now: TransferLoop.now())
        }
        let thread = Thread { [self] in
            loop.run()
            // Work posted after the loop stopped never ran: what it registered ends here.
            for download in registry.withLock({ Array($0.downloads.values) }) where download.job == nil {
                finish(download, job: nil, result: .interrupted)
            }
            recordUses()
            diskWork.wait()
            // Shut down means every event was delivered (the summary follows them).
            self.events.flush()
            registry.withLock { $0.isShutDown = true }
            stopped.signal()
        }
        thread.name = "mediacache-transfers"
        thread.start()
    }

    /// Downloads `request` unless it is cached, or joins the download of its key already
    /// under way. `onFinish` runs once on the transfer thread when the download ends
    /// (it must be quick); the handle also waits for that result and reads the bytes.
    ///
    /// `onSlotFreed` runs once on the transfer thread when the download no longer takes a
    /// slot (its bytes are written and it commits behind, or it ended), before `onFinish`:
    /// a client that keeps `-j` downloads submitted submits the next one then.
    @discardableResult
    public func submit(
        _ request: JobRequest, priority: DownloadPriority = .normal,
        onFinish: (@Sendable (DownloadResult, _ bytesFetched: Int64) -> Void)? = nil,
        onSlotFreed: (@Sendable () -> Void)? = nil
    ) -> DownloadHandle {
        let key = request.key
        let slot = SlotRelease(onSlotFreed)
        let (handle, download, isNew, accepted) = registry.withLock {
            registry -> (DownloadHandle, Download, Bool, Bool) in
            let acceptsSubmissions = registry.acceptsSubmissions
            let joined = acceptsSubmissions ? registry.downloads[key] : nil
            let download = joined ?? Download(key: key, request: request, priority: priority, loop: loop)
            let handle = DownloadHandle(key: key, download: download, loop: loop)
            download.submissions.withLock {
                $0.append(Submission(request: request, priority: priority, handle: handle, slot: slot, onFinish: onFinish))
            }
            if joined == nil && acceptsSubmissions { registry.downloads[key] = download }
            return (handle, download, joined == nil, acceptsSubmissions)
        }
        guard accepted else {
            // Every submission hears of its end once, a refused one at once.
            handle.resolve(.interrupted)
            slot.release()
            onFinish?(.interrupted, 0)
            return handle
        }
        loop.post { [self] in
            loop.preconditionOnLoop()
            // A submit that raced a shutdown: the download never starts.
            if shuttingDown {
                if isNew { finish(download, job: nil, result: .interrupted) }
                return
            }
            if isNew { queued.append(download) }
            // Joined a download that commits behind: it takes no slot.
            if download.slotFreed { slot.release() }
            download.priority = max(download.priority, priority)
            admit()
        }
        return handle
    }

    /// Stops every download, saving its progress, and waits until the transfer thread
    /// and the disk work behind it are done. Later submits end at once as interrupted.
    /// Safe from any thread, once or more.
    public func shutdown() {
        beginShutdown()
        stopped.wait()
        stopped.signal()  // for another caller of shutdown
    }

    /// Whether `shutdown` is over: every download stopped and its progress saved.
    public var hasShutDown: Bool { registry.withLock { $0.isShutDown } }

    /// Starts stopping without waiting for it (signal handlers).
    public func beginShutdown() {
        registry.withLock { $0.acceptsSubmissions = false }
        loop.post { [self] in
            loop.preconditionOnLoop()
            guard !shuttingDown else { return }
            shuttingDown = true
            for download in queued { finish(download, job: nil, result: .interrupted) }
            queued = []
            for download in registry.withLock({ Array($0.downloads.values) }) { download.job?.interrupt() }
            stopIfIdle()
        }
    }

    /// Stops the download of `key`, queued or running, keeping what it holds for
    /// `resume` (a status page's "stop"); whoever waits for it gets `.interrupted`.
    /// False when nothing downloads it.
    @discardableResult
    public func stop(key: CacheKey) -> Bool {
        guard registry.withLock({ $0.downloads[key] }) != nil else { return false }
        loop.post { [self] in
            loop.preconditionOnLoop()
            if let index = queued.firstIndex(where: { $0.key == key }) {
                finish(queued.remove(at: index), job: nil, result: .interrupted)
            } else {
                registry.withLock { $0.downloads[key] }?.job?.interrupt()
            }
        }
        return true
    }

    func emit(_ event: PrefetchEvent) { events.send(event) }

    /// Runs `work` on the event queue after every event so far: a client's own lines (a
    /// bad list line met on the transfer thread) come in order and never block it.
    public func deliver(_ work: @escaping @Sendable () -> Void) { events.deliver(work) }

    /// The downloads registered now (queued or running), for a status page.
    public func downloadsInProgress() -> [DownloadProgress] {
        registry.withLock { Array($0.downloads.values) }.map(DownloadProgress.init)
    }

    /// Downloads running or committing now (on the loop thread): one waiting for
    /// descriptors can count on the others to free some.
    var runningJobs: Int { runningCount + behind.count }

    // MARK: Admission

    /// How many interactive downloads may run beyond `-j`: a player goes ahead of a
    /// list, but one that pulls many files at once (a playlist's segments) cannot start
    /// them without bound; the rest wait, ahead of everything else.
    static let interactiveBeyondJobs = 8

    /// Admits on the loop's next turn, once however often it is asked for: a slot freed
    /// by a job (its commit, its end) starts the next download after the job's own call.
    private func admitSoon() {
        guard !admissionPosted else { return }
        admissionPosted = true
        loop.post { [self] in
            admissionPosted = false
            admit()
        }
    }

    /// Starts queued downloads by priority while slots are free; interactive ones beyond `-j`.
    private func admit() {
        loop.preconditionOnLoop()
        guard !shuttingDown else { return }
        while let next = queued.indices.max(by: { queued[$0].priority < queued[$1].priority }),
            runningCount < options.jobs + (queued[next].priority == .interactive ? Self.interactiveBeyondJobs : 0)
        {
            let download = queued.remove(at: next)
            startedCount += 1
            // More downloads than run at once: make their data files ahead from now on.
            if startedCount == options.jobs + 1 && descriptorBudget.spareFiles > 0 && spareFiles == nil {
                spareFiles = SpareDataFiles(directory: cache.partialDirectory, target: descriptorBudget.spareFiles)
            }
            runningCount += 1
            let job = DownloadJob(download: download, service: self)
            download.job = job
            job.start()
        }
    }

    /// Stops once nothing runs and no commit is behind: each commit's result is reported.
    private func stopIfIdle() {
        if shuttingDown && runningCount == 0 && behind.isEmpty { loop.stop() }
    }

    // MARK: Commits behind

    /// Every byte of `job` (`bytes` long) is written and its commit begins: it gives its
    /// slot back if the commits behind have room for it, else keeps it until they do.
    func jobDidWriteAll(_ job: DownloadJob, bytes: Int64) {
        loop.preconditionOnLoop()
        keepingSlot.append((job, bytes))
        releaseSlots()
        admitSoon()
    }

    /// Moves committing downloads behind, oldest first, while the bounds allow.
    private func releaseSlots() {
        while let (job, bytes) = keepingSlot.first, behind.count < maxCommitsBehind,
            bytesBehind + bytes <= options.uncommittedBytesLimit
        {
            keepingSlot.removeFirst()
            runningCount -= 1
            behind[ObjectIdentifier(job)] = bytes
            bytesBehind += bytes
            peakBytesBehind = max(peakBytesBehind, bytesBehind)
            freeSlot(of: job.download)
        }
    }

    /// Tells the download's clients that it takes no slot any more (once per submission).
    private func freeSlot(of download: Download) {
        download.slotFreed = true
        let submissions = registry.withLock { _ in download.submissions.withLock { $0 } }
        for submission in submissions { submission.slot.release() }
    }

    /// A committing download fetches again (its copy from the tier failed its check, so
    /// the origin is asked): it takes a slot again, until its next commit.
    func jobFetchesAgain(_ job: DownloadJob) {
        loop.preconditionOnLoop()
        if let bytes = behind.removeValue(forKey: ObjectIdentifier(job)) {
            bytesBehind -= bytes
            runningCount += 1
        } else {
            keepingSlot.removeAll { $0.job === job }
        }
    }

    func jobDidFinish(_ job: DownloadJob, result: DownloadResult) {
        loop.preconditionOnLoop()
        if let bytes = behind.removeValue(forKey: ObjectIdentifier(job)) {
            bytesBehind -= bytes
        } else {
            runningCount -= 1
            keepingSlot.removeAll { $0.job === job }
        }
        finish(job.download, job: job, result: result)
        releaseSlots()
        admitSoon()
        stopIfIdle()
    }

    /// Tells every submission of `download` how it ended: the first gets the job's result,
    /// the ones that joined it see the object as cached.
    private func finish(_ download: Download, job: DownloadJob?, result: DownloadResult) {
        let submissions = registry.withLock { registry in
            if registry.downloads[download.key] === download { registry.downloads.removeValue(forKey: download.key) }
            return download.submissions.withLock { $0 }
        }
        download.held.finish(result)
        download.job = nil
        download.slotFreed = true
        for (index, submission) in submissions.enumerated() {
            submission.slot.release()
            var outcome = result
            if index > 0, case .committed(let object) = result { outcome = .alreadyCached(object) }
            // The download's own events tell its story once; those who joined it add none.
            if index == 0 {
                report(outcome, for: submission.request, name: job?.name)
            } else if case .alreadyCached(let object) = outcome {
                restoreNames(of: object, from: submission.request.entry)
            }
            submission.handle?.resolve(outcome)
            submission.onFinish?(outcome, index == 0 ? job?.bytesFetched ?? 0 : 0)
        }
    }
}
