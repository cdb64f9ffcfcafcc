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

    // Confined to the service's transfer thread.
    private var nextRequest: () -> JobRequest? = { nil }
    /// How many requests are left without producing them (nil: take them one by one).
    private var countRest: (() -> Int)?
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
    public init(service: DownloadService, priority: DownloadPriority = .normal) {
        self.service = service
        self.priority = priority
    }

    /// Downloads every request not yet cached and returns when all are done, failed, or
    /// the run was cancelled. Blocks the calling thread; call it outside Swift concurrency.
    public func run(_ requests: [JobRequest]) -> PrefetchSummary {
        var remaining = requests[...]
        return run(next: { remaining.popFirst() })
    }

    /// Like `run(_:)`, taking requests from `next` (on the transfer thread) only as slots
    /// free up. On cancellation, `countRest` (if given) says how many are left, instead of
    /// taking them all.
    public func run(next: @escaping () -> JobRequest?, countRest: (() -> Int)? = nil) -> PrefetchSummary {
        let started = TransferLoop.now()
        // Set before the post, which orders them before the transfer thread reads them.
        nextRequest = next
        self.countRest = countRest
        service.loop.post { [self] in submitMore() }
        done.wait()
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
            if let countRest, requestsLeft {
                summary.unfinished += countRest()
                requestsLeft = false
            }
            while takeRequest() != nil { summary.unfinished += 1 }
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
            let url = request.entry.url
            service.submit(
                request, priority: priority,
                onFinish: { [self] result, bytesFetched in didFinish(url, result, bytesFetched: bytesFetched) },
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

    private func didFinish(_ url: String, _ result: DownloadResult, bytesFetched: Int64) {
        service.loop.preconditionOnLoop()
        unfinished -= 1
        summary.bytesFetched += bytesFetched
        switch result {
        case .committed: summary.committed += 1
        case .alreadyCached: summary.alreadyCached += 1
        case .failed(let failure): summary.failed.append((url, failure))
        case .interrupted: summary.unfinished += 1
        }
        submitMore()
    }

    private func finishIfDone() {
        guard unfinished == 0 && !requestsLeft && !finished else { return }
        finished = true
        done.signal()
    }
}
