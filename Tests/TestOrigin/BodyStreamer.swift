import Glibc

/// Writes a slice of content to a socket, applying pacing, chunked framing and the
/// drop/stall/reset faults.
struct BodyStreamer {
    /// Where the body deliberately stops short.
    enum Interruption {
        case drop(after: Int)
        case stall(after: Int)
        /// Like drop, but the close sends a TCP RST.
        case reset(after: Int)

        var after: Int {
            switch self {
            case .drop(let bytes), .stall(let bytes), .reset(let bytes): bytes
            }
        }
    }

    enum Ending {
        case complete
        case dropped
        case stalled
        case reset
        /// The peer went away, the origin stopped, or the file shrank.
        case failed
    }

    /// Reads of at most this size keep memory flat for huge files.
    static let readChunk = 256 * 1024
    /// Paced bodies go out in small pieces so the rate is smooth.
    static let pacedChunk = 8 * 1024

    let socket: Socket
    /// Frame every piece as an HTTP/1.1 chunk and end with the last-chunk marker.
    var chunked = false
    /// Leave out the last-chunk marker (the caller then closes the connection).
    var omitLastChunk = false

    /// Sends `slice` of `content`; returns the body bytes sent and how it ended.
    func stream(
        _ content: ContentSource, _ slice: Range<Int>, bytesPerSecond: Int?, inBursts: Bool = false,
        interruption: Interruption?
    ) -> (sent: Int, ending: Ending) {
        let limit = min(slice.count, interruption?.after ?? slice.count)
        let pieceSize = inBursts ? Self.readChunk : bytesPerSecond.map { max(1, min(Self.pacedChunk, $0 / 20)) } ?? Self.readChunk
        var buffer = [UInt8](repeating: 0, count: max(1, min(Self.readChunk, limit)))
        let clock = ContinuousClock()
        let start = clock.now
        var sent = 0

        while sent < limit {
            let wanted = min(buffer.count, limit - sent)
            let got = buffer.withUnsafeMutableBytes {
                content.read(at: slice.lowerBound + sent, into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<wanted]))
            }
            guard got > 0 else { return (sent, .failed) }
            var offset = 0
            while offset < got {
                if let bytesPerSecond {
                    // In bursts: the second a byte falls in starts when that second does.
                    let due = inBursts
                        ? start + .seconds(sent / bytesPerSecond)
                        : start + .nanoseconds(Int64(Double(sent) / Double(bytesPerSecond) * 1e9))
                    guard sleep(until: due, clock: clock) else { return (sent, .failed) }
                }
                let piece = min(pieceSize, got - offset)
                if chunked, !socket.send(Array(String(piece, radix: 16).utf8) + [0x0D, 0x0A]) { return (sent, .failed) }
                let written = buffer.withUnsafeBytes { socket.send(UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + piece)])) }
                sent += written
                guard written == piece else { return (sent, .failed) }
                if chunked, !socket.send([0x0D, 0x0A]) { return (sent, .failed) }
                offset += piece
            }
        }

        switch interruption {
        case .drop where limit < slice.count:
            return (sent, .dropped)
        case .reset where limit < slice.count:
            socket.resetOnClose()
            return (sent, .reset)
        case .stall where limit < slice.count:
            socket.idleUntilPeerCloses()
            return (sent, .stalled)
        default:
            if chunked, !omitLastChunk, !socket.send(Array("0\r\n\r\n".utf8)) { return (sent, .failed) }
            return (sent, .complete)
        }
    }

    /// Sleeps in short slices so `stop()` is noticed; false if the origin stopped.
    private func sleep(until due: ContinuousClock.Instant, clock: ContinuousClock) -> Bool {
        while clock.now < due {
            if socket.registry.isStopped { return false }
            let remaining = clock.now.duration(to: due) / .milliseconds(1)
            usleep(useconds_t(max(1, min(Double(Socket.pollSliceMilliseconds), remaining) * 1000)))
        }
        return !socket.registry.isStopped
    }
}
