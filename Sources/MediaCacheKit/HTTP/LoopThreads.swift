import Foundation
import Synchronization

/// The threads that run a transfer loop now, so that code which knows no loop (the
/// index, the disk steps of a download) can check it never blocks one.
enum LoopThreads {
    private static let running = Mutex<Set<UInt>>([])

    /// The calling thread runs a loop until `leave()`.
    static func enter() { _ = running.withLock { $0.insert(UInt(pthread_self())) } }

    static func leave() { _ = running.withLock { $0.remove(UInt(pthread_self())) } }

    /// Traps when the caller runs a transfer loop: the work may block (SQLite waits up
    /// to its busy timeout, fsync for the disk), which would stall every transfer.
    static func preconditionOff(_ work: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
        let onLoop = running.withLock { $0.contains(UInt(pthread_self())) }
        precondition(!onLoop, "\(work()) on a transfer loop's thread", file: file, line: line)
    }
}
