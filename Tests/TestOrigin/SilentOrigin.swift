import Glibc

/// A port on 127.0.0.1 that takes connections (the kernel completes the handshake) and
/// never answers a request: an origin that hangs before its first byte.
public final class SilentOrigin: @unchecked Sendable {
    public let port: Int
    private let fd: Int32

    public init() throws {
        (fd, port) = try Listener.open(host: "127.0.0.1", port: 0)
    }

    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    deinit { close(fd) }
}
