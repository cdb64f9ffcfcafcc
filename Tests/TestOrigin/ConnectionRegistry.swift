import Foundation
import Glibc

/// Owns the server's lifecycle: the stopped flag, the live client sockets and the
/// count of running threads, so `stop()` can wake everything and wait for it.
final class ConnectionRegistry: @unchecked Sendable {
    private let condition = NSCondition()
    private var stopped = false
    private var sockets: [Int: Int32] = [:]
    private var lastConnectionID = 0
    private var runningThreads = 0
    /// The most connections open at once (at the client's end too) since the start or
    /// the last `resetPeak()`.
    private var peak = 0

    var peakConnections: Int {
        condition.withLock { peak }
    }

    func resetPeak() {
        condition.withLock { peak = sockets.count }
    }

    var isStopped: Bool {
        condition.withLock { stopped }
    }

    /// Assigns the next connection ID, or returns nil (caller closes `fd`) once stopped.
    func register(_ fd: Int32) -> Int? {
        condition.withLock {
            guard !stopped else { return nil }
            lastConnectionID += 1
            sockets[lastConnectionID] = fd
            // Sockets whose client already closed do not count: the origin may not have
            // noticed yet (it finds out at its next send), but the client has moved on.
            peak = max(peak, sockets.values.filter { !Self.peerClosed($0) }.count)
            return lastConnectionID
        }
    }

    /// Whether the kernel already holds the peer's FIN or RST for `fd`.
    private static func peerClosed(_ fd: Int32) -> Bool {
        // POLLRDHUP (Linux, _GNU_SOURCE only): the peer closed or shut down its side.
        let readHangUp: Int16 = 0x2000
        var entry = pollfd(fd: fd, events: readHangUp, revents: 0)
        return poll(&entry, 1, 0) > 0 && entry.revents & (readHangUp | Int16(POLLHUP | POLLERR)) != 0
    }

    /// Forgets the socket and closes it. The fd is removed under the lock before closing,
    /// so `stop()` never calls shutdown on a recycled descriptor.
    func unregisterAndClose(_ id: Int) {
        let fd = condition.withLock { sockets.removeValue(forKey: id) }
        if let fd { close(fd) }
    }

    /// Runs `body` on a new thread that `stop()` will wait for.
    func spawn(_ body: @escaping @Sendable () -> Void) {
        condition.withLock { runningThreads += 1 }
        let thread = Thread { [self] in
            body()
            condition.withLock {
                runningThreads -= 1
                condition.broadcast()
            }
        }
        thread.stackSize = 512 * 1024
        thread.start()
    }

    /// Sets the stopped flag, shuts every client socket down (waking blocked polls),
    /// then waits up to `timeout` for all threads to leave. Idempotent.
    func stop(timeout: TimeInterval) {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        stopped = true
        for fd in sockets.values { shutdown(fd, Int32(SHUT_RDWR)) }
        while runningThreads > 0 {
            if !condition.wait(until: deadline) { break }
        }
    }
}
