import Foundation

/// Runs a set of jobs: `jobs` files at once, each over up to `connectionsPerFile`
/// connections, all on one libcurl multi loop on a dedicated thread.
public final class PrefetchEngine: @unchecked Sendable {
    public let cache: CacheDirectory
    /// The options asked for, with `-j` and `-x` made to fit the open-file limit.
    public let options: PrefetchOptions
    /// How the run was sized to the open-file limit (`warning` says if it was cut).
    public let descriptorBudget: DescriptorBudget
    let index: CacheIndex
    let commits: CommitBatcher
    let loop: TransferLoop
    /// Finished jobs' disk work (last checkpoints, lock release) still in flight.
    let diskWork = DispatchGroup()
    /// Data files made ahead, when more jobs will start than run at once.
    private(set) var spareFiles: SpareDataFiles?
    private let sink: @Sendable (PrefetchEvent) -> Void

    // Confined to the loop thread.
    /// The requests not started yet, asked for one at a time.
    private var nextRequest: () -> JobRequest? = { nil }
    /// How many requests are left without producing them (nil: take them one by one).
    private var countRest: (() -> Int)?
    private var requestsLeft = true
    private var requestsTaken = 0
    private var running: [ObjectIdentifier: DownloadJob] = [:]
    private var summary = PrefetchSummary()
    private var scheduling = false
    /// Objects found already cached, marked as used in one transaction per group.
    private var usedKeys: [CacheKey] = []
    private var interrupted = false

    public init(cache: CacheDirectory, options: PrefetchOptions, events: @escaping @Sendable (PrefetchEvent) -> Void)
        throws
    {
        self.cache = cache
        self.sink = events
        try cache.prepare()
        index = try CacheIndex(directory: cache)
        commits = CommitBatcher(index: index)
        let budget = DescriptorBudget(
            limit: FileDescriptorLimit.current, inUse: DescriptorBudget.descriptorsInUse(), jobs: options.jobs,
            connectionsPerFile: options.connectionsPerFile, maxConnections: max(16, options.maxConnectionsPerHost * 4))
        var fitted = options
        fitted.jobs = budget.jobs
        fitted.connectionsPerFile = budget.connectionsPerFile
        self.options = fitted
        descriptorBudget = budget
        loop = TransferLoop(maxConnectionsPerHost: options.maxConnectionsPerHost, maxConnections: budget.maxConnections)
    }

    /// Downloads every request not yet cached and returns when all are done, failed, or
    /// the run was cancelled. Blocks the calling thread; call it outside Swift concurrency.
    public func run(_ requests: [JobRequest]) -> PrefetchSummary {
        var remaining = requests[...]
        return run(next: { remaining.popFirst() })
    }

    /// Like `run(_:)`, taking requests from `next` (on the transfer thread) only as job
    /// slots free up, so a long list is never in memory whole. On cancellation,
    /// `countRest` (if given) says how many are left, instead of taking them all.
    public func run(next: @escaping () -> JobRequest?, countRest: (() -> Int)? = nil) -> PrefetchSummary {
        let finished = DispatchSemaphore(value: 0)
        let started = TransferLoop.now()
        // Set before the thread starts, which orders it before the thread's first read.
        nextRequest = next
        self.countRest = countRest
        let thread = Thread { [self] in
            scheduleMore()
            loop.run()
            recordUses()
            diskWork.wait()
            finished.signal()
        }
        thread.name = "mediacache-transfers"
        thread.start()
        finished.wait()
        summary.elapsed = TransferLoop.now() - started
        return summary
    }

    /// Stops promptly, saving every job's progress. Safe from any thread (signal handlers).
    public func cancel() {
        loop.post { [self] in
            guard !interrupted else { return }
            interrupted = true
            summary.interrupted = true
            if let countRest, requestsLeft {
                summary.unfinished += countRest()
                requestsLeft = false
            }
            while takeRequest() != nil { summary.unfinished += 1 }
            for job in Array(running.values) { job.interrupt() }
            stopIfIdle()
        }
    }

    func emit(_ event: PrefetchEvent) { sink(event) }

    /// Jobs running now (on the loop thread): one waiting for descriptors can count on
    /// the others to free some.
    var runningJobs: Int { running.count }

    private func recordUses() {
        try? index.touch(keys: usedKeys)
        usedKeys = []
    }

    private func scheduleMore() {
        guard !scheduling else { return }
        scheduling = true
        while running.count < options.jobs, let request = takeRequest() {
            let job = DownloadJob(request: request, engine: self)
            running[ObjectIdentifier(job)] = job
            job.start()
        }
        scheduling = false
        stopIfIdle()
    }

    private func takeRequest() -> JobRequest? {
        guard requestsLeft, let request = nextRequest() else {
            requestsLeft = false
            return nil
        }
        requestsTaken += 1
        // More jobs than run at once: make their data files ahead from now on.
        if requestsTaken == options.jobs + 1 && descriptorBudget.spareFiles > 0 {
            spareFiles = SpareDataFiles(directory: cache.partialDirectory, target: descriptorBudget.spareFiles)
        }
        return request
    }

    private func stopIfIdle() {
        if running.isEmpty && !requestsLeft { loop.stop() }
    }

    func jobDidFinish(_ job: DownloadJob, result: JobResult) {
        running.removeValue(forKey: ObjectIdentifier(job))
        summary.bytesFetched += job.bytesFetched
        let entry = job.request.entry
        switch result {
        case .committed(let object):
            summary.committed += 1
            emit(
                .committed(
                    url: entry.url, name: job.name, path: cache.absolute(object.path), size: object.size,
                    faststart: object.faststart))
        case .alreadyCached(let object):
            summary.alreadyCached += 1
            usedKeys.append(job.key)
            if usedKeys.count >= 512 { recordUses() }
            try? index.restoreNames(of: object, from: entry)
            emit(.skipped(url: entry.url, name: job.name, path: cache.absolute(object.path)))
        case .failed(let failure):
            summary.failed.append((entry.url, failure))
            emit(.failed(url: entry.url, name: job.name, failure: failure))
        case .interrupted:
            summary.unfinished += 1
        }
        if !scheduling { scheduleMore() }
    }
}
