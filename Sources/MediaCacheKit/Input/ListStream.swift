import Foundation
import Synchronization

/// A list that arrives while it is read: standard input or a pipe (`cmd | mediacache
/// prefetch -`, `<(cmd)`), like aria2c's `-i -`. Its lines are taken as they come, so
/// downloads start while the command that writes them still runs, and the run ends at
/// its end of file.
///
/// `stop()` (Ctrl-C) ends the reading within a fraction of a second even while the
/// writer is silent: what was not read by then is not read.
public final class ListStream: Sendable {
    public let descriptor: Int32
    private let ownsDescriptor: Bool
    private let stopped = Atomic<Bool>(false)

    /// How long one wait for bytes lasts before `stop()` is looked at again.
    private static let pollMilliseconds: Int32 = 100

    /// `descriptor` is closed with the stream when `owned`; standard input is not.
    public init(descriptor: Int32, owned: Bool) {
        self.descriptor = descriptor
        ownsDescriptor = owned
    }

    deinit {
        if ownsDescriptor { close(descriptor) }
    }

    /// Whether `descriptor` is one to read as it arrives: a pipe, a socket or a terminal.
    /// A regular file is read in chunks by path instead; any other device is read whole
    /// (up to a limit), so an endless one (`/dev/zero`) is refused, not read forever.
    public static func arrivesOverTime(_ descriptor: Int32) -> Bool {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return false }
        let type = status.st_mode & S_IFMT
        return type == S_IFIFO || type == S_IFSOCK || isatty(descriptor) == 1
    }

    /// Ends the reading: a read under way returns `.stopped` at its next look (100 ms).
    public func stop() { stopped.store(true, ordering: .relaxed) }

    var isStopped: Bool { stopped.load(ordering: .relaxed) }

    /// Whether nothing arrives (no bytes, no end of file) within `milliseconds`.
    func isSilent(forMilliseconds milliseconds: Int32) -> Bool {
        var watched = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&watched, 1, milliseconds) == 0
    }

    enum Read {
        case bytes([UInt8])
        case end
        case stopped
        case failed(String)
    }

    /// Up to `count` bytes, as soon as any have arrived: waits while the writer is
    /// silent, until bytes, its end of file, or `stop()`.
    func read(upTo count: Int) -> Read {
        var buffer = [UInt8](repeating: 0, count: count)
        while !isStopped {
            var watched = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&watched, 1, Self.pollMilliseconds)
            if ready == 0 || (ready < 0 && errno == EINTR) { continue }
            if ready < 0 { return .failed(String(cString: strerror(errno))) }
            let got = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, count) }
            if got > 0 {
                buffer.removeSubrange(got...)
                return .bytes(buffer)
            }
            if got == 0 { return .end }
            if errno == EINTR || errno == EAGAIN { continue }
            return .failed(String(cString: strerror(errno)))
        }
        return .stopped
    }
}
