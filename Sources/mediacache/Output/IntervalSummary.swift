import Dispatch
import Synchronization

/// When stderr is not a terminal (a log, a CI job), a line every `interval` seconds says
/// how the run is going, as aria2's --summary-interval does: minutes may pass between a
/// file's start and done lines.
final class IntervalSummary: Sendable {
    private let tally: Mutex<RunTally>
    private let interval: Double
    private let stopped = Atomic<Bool>(false)
    private let queue = DispatchQueue(label: "mediacache.summary", qos: .utility)

    init(interval: Double, expectedFiles: Int?) {
        tally = Mutex(RunTally(expected: expectedFiles))
        self.interval = interval
        scheduleNext()
    }

    private func scheduleNext() {
        queue.asyncAfter(deadline: .now() + interval) { [self] in
            guard !stopped.load(ordering: .relaxed) else { return }
            let line = tally.withLock { $0.active.isEmpty && $0.finished == 0 ? nil : "progress " + $0.summary }
            if let line { Terminal.err(line) }
            scheduleNext()
        }
    }

    func update(url: String, _ file: RunTally.File) {
        tally.withLock { $0.update(url: url, file) }
    }

    func finish(url: String, fetched: Int64? = nil) {
        tally.withLock { $0.finish(url: url, fetched: fetched) }
    }

    func expectFiles(_ count: Int) {
        tally.withLock { $0.expected = count }
    }

    func stop() { stopped.store(true, ordering: .relaxed) }
}
