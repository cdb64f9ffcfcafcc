import Foundation
import Synchronization

/// `prefetch` and `resume` as a client of the service: takes requests from a list as
/// download slots free up, so a long list is never in memory whole, and sums up the run.
/// The list is read a little ahead on a queue of its own (`RequestFeed`), never on the
/// transfer thread.
///
/// A slot frees when a download's bytes are written, before its commit is done: the next
/// request is submitted then, while the run ends only when every commit has ended.
// @unchecked: the loop thread's (each entry checked), but for `nextRequest`: set before
// the feed starts, then called only on the feed's queue.
public final class PrefetchBatch: @unchecked Sendable {
    private let service: DownloadService
    private let priority: DownloadPriority
    private let placer: ObjectPlacer?

    /// The list's reader: the feed's queue's.
    private var nextRequest: () -> JobRequest? = { nil }

    // Confined to the service's transfer thread.
    private var feed: RequestFeed?
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
    /// A cancelled run's unread requests, on their way to `leftOver`.
    private let draining = DispatchGroup()
    private let drained = Atomic<Int>(0)

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

    /// Like `run(_:)`, taking requests from `next` only as slots free up (a few ahead, on
    /// a queue of its own: never on the transfer thread, never two calls at once). On
    /// cancellation, every request not started yet (the rest of `next`, and submitted
    /// ones that never saved any state) goes to `leftOver`.
    public func run(next: @escaping () -> JobRequest?, leftOver: RunQueue.Writer? = nil) -> PrefetchSummary {
        let started = TransferLoop.now()
        // Set before the post and the feed's first read, which order them before either uses them.
        nextRequest = next
        self.leftOver = leftOver
        service.loop.post { [self] in
            feed = RequestFeed(
                ahead: 2 * service.options.jobs + 16, loop: service.loop, produce: { [self] in nextRequest() },
                available: { [self] in submitMore() })
            submitMore()
        }
        done.wait()
        draining.wait()
        summary.unfinished += drained.load(ordering: .relaxed)
        placer?.wait()
        summary.notPlaced = placer?.failureCount ?? 0
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
            if let feed, requestsLeft {
                // The rest of the list is read off the loop, which may stop before it is.
                draining.enter()
                feed.drain(
                    each: { [leftOver] in leftOver?.append($0) },
                    done: { [self] count in
                        drained.store(count, ordering: .relaxed)
                        draining.leave()
                    })
            }
            requestsLeft = false
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

    /// The next request if one is read; nil for now (the feed calls `submitMore` again
    /// once one is) or for good (`requestsLeft` turns false).
    private func takeRequest() -> JobRequest? {
        guard requestsLeft, !interrupted, let feed else { return nil }
        switch feed.take() {
        case .request(let request): return request
        case .wait: return nil
        case .exhausted:
            requestsLeft = false
            return nil
        }
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
