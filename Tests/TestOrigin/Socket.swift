import Glibc

/// A connected TCP socket used with short polls: every wait notices `stop()` or a
/// vanished peer within `pollSliceMilliseconds`, and sends never raise SIGPIPE.
struct Socket {
    static let pollSliceMilliseconds: Int32 = 50

    let fd: Int32
    let registry: ConnectionRegistry

    enum Received {
        case bytes(Int)
        /// Peer closed, error, or the origin is stopping.
        case closed
    }

    /// Waits for data and reads what is available into `buffer`.
    func receive(into buffer: UnsafeMutableRawBufferPointer) -> Received {
        while waitFor(Int16(POLLIN)) {
            let count = recv(fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
            if count > 0 { return .bytes(count) }
            if count == 0 { return .closed }
            if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { continue }
            return .closed  // ECONNRESET and friends
        }
        return .closed
    }

    /// Sends all of `bytes` unless the peer goes away (EPIPE/ECONNRESET) or the origin
    /// stops; returns how many bytes were handed to the kernel.
    func send(_ bytes: UnsafeRawBufferPointer) -> Int {
        var sent = 0
        while sent < bytes.count, waitFor(Int16(POLLOUT)) {
            let count = Glibc.send(fd, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            if count > 0 {
                sent += count
            } else if count < 0, errno != EAGAIN, errno != EWOULDBLOCK, errno != EINTR {
                break
            }
        }
        return sent
    }

    func send(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { send($0) } == bytes.count
    }

    /// Sends nothing more and returns once the peer closes or the origin stops (the stall fault).
    /// Anything the client sends meanwhile is read and discarded.
    func idleUntilPeerCloses() {
        var scratch = [UInt8](repeating: 0, count: 4096)
        while case .bytes = scratch.withUnsafeMutableBytes({ receive(into: $0) }) {}
    }

    /// Keeps the kernel's send buffer at about `bytes` (SO_SNDBUF, which also stops its
    /// autotuning), so a byte handed to the socket is a byte on the wire, not one of
    /// megabytes queued behind a receiver that reads slowly.
    func setSendBuffer(_ bytes: Int) {
        var size = Int32(clamping: bytes)
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Makes the coming close(2) abort the connection with a RST instead of a FIN, and
    /// throw away whatever is still unsent (SO_LINGER on, timeout 0).
    func resetOnClose() {
        var option = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
    }

    /// Polls in short slices until `events` are ready; false once stopped or the socket errs.
    private func waitFor(_ events: Int16) -> Bool {
        while !registry.isStopped {
            var entry = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&entry, 1, Self.pollSliceMilliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                return false
            }
            if ready == 0 { continue }
            if entry.revents & Int16(POLLNVAL) != 0 { return false }
            // POLLERR/POLLHUP: let recv/send report the precise condition (EOF, EPIPE, ...).
            return true
        }
        return false
    }
}
