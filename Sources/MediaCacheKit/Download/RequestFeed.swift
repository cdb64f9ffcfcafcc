import Dispatch
import Synchronization

/// A run's requests, read from its lists a little ahead of the transfer thread on a
/// queue of their own: parsing a line and hashing its cache key never hold up a
/// transfer, and a list of 100,000 lines is still never held whole (at most `ahead`
/// requests wait here).
///
/// `take` is for the transfer thread; `produce` runs only on the feed's queue, one call
/// at a time, in order (and never once it has said the lists end).
final class RequestFeed: Sendable {
    enum Take {
        case request(JobRequest)
        /// None read yet: `available` is posted to the loop once one is.
        case wait
        /// Every list is read.
        case exhausted
    }

    private let produce: @Sendable () -> JobRequest?
    private let ahead: Int
    private let loop: TransferLoop
    private let available: @Sendable () -> Void
    private let queue = DispatchQueue(label: "mediacache.list")
    private let state = Mutex(State())

    private struct State {
        var ready: [JobRequest] = []
        var exhausted = false
        /// A read on the queue is scheduled or running.
        var reading = false
        /// The loop found nothing and waits for `available`.
        var loopWaits = false
        /// Drained for a stop: nothing more is read ahead.
        var stopped = false
    }

    /// `produce` gives the next request (nil when there are none); `available` runs on
    /// `loop` after a `take` answered `.wait`, once there is something to take.
    init(ahead: Int, loop: TransferLoop, produce: @escaping @Sendable () -> JobRequest?, available: @escaping @Sendable () -> Void) {
        self.ahead = max(1, ahead)
        self.loop = loop
        self.produce = produce
        self.available = available
        readAheadIfNeeded()
    }

    /// The next request, in list order.
    func take() -> Take {
        loop.preconditionOnLoop()
        let taken: Take = state.withLock { state in
            if !state.ready.isEmpty { return .request(state.ready.removeFirst()) }
            if state.exhausted { return .exhausted }
            state.loopWaits = true
            return .wait
        }
        readAheadIfNeeded()
        return taken
    }

    /// Stops reading ahead and hands every request not taken yet to `each`, in order,
    /// then tells `done` how many there were; both on the feed's queue (the loop may
    /// have stopped by then: a stop lets it end once the downloads have).
    func drain(each: @escaping @Sendable (JobRequest) -> Void, done: @escaping @Sendable (Int) -> Void) {
        state.withLock { $0.stopped = true }
        // After any read under way: what it read comes first.
        queue.async { [self] in
            let ready = state.withLock { state in
                defer { state.ready = [] }
                return state.ready
            }
            ready.forEach(each)
            var count = ready.count
            while !state.withLock({ $0.exhausted }), let request = produce() {
                each(request)
                count += 1
            }
            state.withLock { $0.exhausted = true }
            done(count)
        }
    }

    private func readAheadIfNeeded() {
        let start = state.withLock { state in
            guard !state.reading, !state.exhausted, !state.stopped, state.ready.count < ahead / 2 + 1 else { return false }
            state.reading = true
            return true
        }
        if start { queue.async { [self] in readAhead() } }
    }

    /// Reads until `ahead` requests are ready, the lists end, or the feed is drained;
    /// the loop hears of the first one if it waits.
    private func readAhead() {
        LoopThreads.preconditionOff("reading a run's lists")
        while true {
            let go = state.withLock { state in
                if state.stopped || state.ready.count >= ahead {
                    state.reading = false
                    return false
                }
                return true
            }
            guard go else { return }
            let request = produce()
            let wake = state.withLock { state in
                if let request { state.ready.append(request) } else { state.exhausted = true }
                if request == nil { state.reading = false }
                defer { state.loopWaits = false }
                return state.loopWaits
            }
            if wake { loop.post(available) }
            if request == nil { return }
        }
    }
}
