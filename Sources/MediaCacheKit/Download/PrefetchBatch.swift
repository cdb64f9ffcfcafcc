import Foundation

/// `prefetch` and `resume` as a client of the service: takes requests from a list as
/// download slots free up, so a long list is never in memory whole, and sums up the run.
///
/// A slot frees when a download's bytes are written, before its commit is done: the next
/// request is submitted then, while the run ends only when every commit has ended.
// @unchecked: the loop thread's (each entry checked), but for the source set before the first post.
public final class PrefetchBatch: @unchecked Sendable {
    private let service: DownloadService
    private let priority: DownloadPriority
    private let placer: ObjectPlacer?

    // Confined to the service's transfer thread.
    private var nextRequest: () -> JobRequest? = { nil }
    /// Where the requests a cancelled run never started go, so `resume` finishes the run.
    private var leftOver: RunQueue.Writer?
    private var requestsLeft = true
    /// Submitted requests that take a slot or wait for one: kept at `-j`.
    private var outstanding = 0
    /// Submitted requests not ended yet, commits behind included.
    private var unfinished = 0
    private var summary = PrefetchSummary()
    private var interrupted = false
    private var finished = false
    private let done = DispatchSemaphore(value: 0)

    /// `priority`: `.background` for a list fetched while `serve` answers readers.
    /// `placer`: puts each object where its entry asks (`-d`, `dir=`) once it is cached.
    public init(service: DownloadService, priority: DownloadPriority = .normal, placer: ObjectPlacer? = nil) {
        self.service = service
        self.priority = priority
        self.placer = placer
    }

    /// Downloads every request not yet cached and returns when all are done, failed, or
    /// the run was cancelled. Blocks the calling thread; call it outside Swift concurrency.
    public func run(_ requests: [JobRequest]) -> PrefetchSummary {
        var remaining = requests[...]
        return run(next: { remaining.popFirst() })
    }

    /// Like `run(_:)`, taking requests from `next` (on the transfer thread) only as slots
    /// free up. On cancellation, every request not started yet (the rest of `next`, and
    /// submitted ones that never saved any state) goes to `leftOver`.
    public func run(next: @escaping () -> JobRequest?, leftOver: RunQueue.Writer? = nil) -> PrefetchSummary {
        let started = TransferLoop.now()
        // Set before the post, which orders them before the transfer thread reads them.
        nextRequest = next
        self.leftOver = leftOver
        service.loop.post { [self] in submitMore() }
        done.wait()
        placer?.wait()
        summary.elapsed = TransferLoop.now() - started
        return summary
    }

    /// Stops promptly: takes no more requests and stops the service, which saves every
    /// download's progress. Safe from any thread (signal handlers).
    public func cancel() {
        service.loop.post { [self] in
            service.loop.preconditionOnLoop()
            guard !interrupted else { return }
            interrupted = true
            summary.interrupted = true
            while let request = takeRequest() {
                leftOver?.append(request)
                summary.unfinished += 1
            }
            finishIfDone()
        }
        service.beginShutdown()
    }

    /// Keeps `-j` requests submitted; the service starts them as slots free up.
    private func submitMore() {
        service.loop.preconditionOnLoop()
        while outstanding < service.options.jobs, let request = takeRequest() {
            outstanding += 1
            unfinished += 1
            service.submit(
                request, priority: priority,
                onFinish: { [self] result, bytesFetched in didFinish(request, result, bytesFetched: bytesFetched) },
                onSlotFreed: { [self] in slotFreed() })
        }
        finishIfDone()
    }

    private func slotFreed() {
        service.loop.preconditionOnLoop()
        outstanding -= 1
        submitMore()
    }

    private func takeRequest() -> JobRequest? {
        guard requestsLeft, let request = nextRequest() else {
            requestsLeft = false
            return nil
        }
        return request
    }

    private func didFinish(_ request: JobRequest, _ result: DownloadResult, bytesFetched: Int64) {
        service.loop.preconditionOnLoop()
        unfinished -= 1
        summary.bytesFetched += bytesFetched
        switch result {
        case .committed(let object):
            summary.committed += 1
            placer?.place(object, for: request.entry)
        case .alreadyCached(let object):
            summary.alreadyCached += 1
            placer?.place(object, for: request.entry)
        case .failed(let failure): summary.failed.append((request.entry.url, failure))
        case .interrupted:
            summary.unfinished += 1
            // Stopped before its first checkpoint (or before it had a slot): nothing
            // under `partial/` names it.
            if let leftOver, !FileSystem.exists(service.cache.statePath(key: request.key)) {
                leftOver.append(request)
            }
        }
        submitMore()
    }

    private func finishIfDone() {
        guard unfinished == 0 && !requestsLeft && !finished else { return }
        finished = true
        done.signal()
    }
}
