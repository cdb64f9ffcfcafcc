import Foundation

/// The request log. Records are appended at arrival and completed later by sequence
/// number, so the order is arrival order even when responses finish out of order.
final class RequestLog: @unchecked Sendable {
    private let condition = NSCondition()
    private var records: [RequestRecord] = []
    /// Sequence number of `records[0]`; `clear()` advances it so stale updates are dropped.
    private var firstSequence = 0

    /// Appends and returns the record's sequence number for later `update`s.
    func append(_ record: RequestRecord) -> Int {
        condition.withLock {
            records.append(record)
            condition.broadcast()
            return firstSequence + records.count - 1
        }
    }

    func update(_ sequence: Int, _ change: (inout RequestRecord) -> Void) {
        condition.withLock {
            let index = sequence - firstSequence
            guard records.indices.contains(index) else { return }  // cleared meanwhile
            change(&records[index])
            condition.broadcast()
        }
    }

    var snapshot: [RequestRecord] {
        condition.withLock { records }
    }

    func clear() {
        condition.withLock {
            firstSequence += records.count
            records.removeAll()
            condition.broadcast()
        }
    }

    /// Blocks until `predicate` holds for the log (re-checked on every change) or the timeout passes.
    func wait(timeout: TimeInterval, until predicate: ([RequestRecord]) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !predicate(records) {
            if !condition.wait(until: deadline) { return predicate(records) }
        }
        return true
    }
}
