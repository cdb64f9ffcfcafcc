import Foundation
import Synchronization

/// Where a service's events leave, in order, on a queue of their own: a terminal or pipe
/// slow to take them (an unread stderr) never holds up the transfers.
///
/// Events wait in a box and the queue takes all of them at once: a file's handful of
/// events cost one thread wake-up, not one each, and a busy run sends them in batches.
final class EventOutbox: Sendable {
    private enum Item {
        case event(PrefetchEvent)
        case work(@Sendable () -> Void)
    }

    private let queue = DispatchQueue(label: "mediacache.events")
    private let waiting = Mutex<[Item]>([])
    private let sink: @Sendable (PrefetchEvent) -> Void
    /// Whether the sink does anything with an event: one it drops (`--quiet` shows only
    /// failures) costs no thread wake-up.
    private let shows: @Sendable (PrefetchEvent) -> Bool

    init(sink: @escaping @Sendable (PrefetchEvent) -> Void, shows: @escaping @Sendable (PrefetchEvent) -> Bool) {
        self.sink = sink
        self.shows = shows
    }

    func send(_ event: PrefetchEvent) {
        if shows(event) { add(.event(event)) }
    }

    /// Runs `work` on the event queue after every event sent so far.
    func deliver(_ work: @escaping @Sendable () -> Void) { add(.work(work)) }

    /// Returns once everything sent before it was delivered.
    func flush() { queue.sync {} }

    private func add(_ item: Item) {
        let first = waiting.withLock { waiting in
            waiting.append(item)
            return waiting.count == 1
        }
        // One drain is queued for every time the box goes from empty to not: each takes
        // what is there, and the queue runs them in order.
        if first { queue.async { [self] in drain() } }
    }

    private func drain() {
        let items = waiting.withLock { waiting in
            defer { waiting = [] }
            return waiting
        }
        for item in items {
            switch item {
            case .event(let event): sink(event)
            case .work(let work): work()
            }
        }
    }
}
