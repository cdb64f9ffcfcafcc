import Foundation

/// A request written byte for byte to 127.0.0.1:PORT, for what curl will not send
/// (two Host headers, HTTP/1.0) and to see a response exactly as it came, framing
/// included.
enum RawHTTP {
    struct Exchange {
        /// Everything received, as text (bodies in these tests are text or ignored).
        var text: String
        /// Whether the server closed the connection within the wait.
        var closedByServer: Bool

        var status: Int { Int(text.split(separator: " ").dropFirst().first ?? "") ?? 0 }
        var head: String { text.components(separatedBy: "\r\n\r\n").first ?? "" }
    }

    /// Opens up to `count` connections and writes `text` on each; stops at the first
    /// connect that takes over 0.2 s (a server whose backlog is full answers no more).
    static func openIdle(_ count: Int, port: Int, sending text: String) -> [Int32] {
        var sockets: [Int32] = []
        for _ in 0..<count {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var address = LoopbackPorts.address(port: port)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            guard connected else {
                close(fd)
                break
            }
            let bytes = Array(text.utf8)
            _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            sockets.append(fd)
        }
        return sockets
    }

    /// A connection with a small receive buffer that sends `request` and reads nothing:
    /// a client that stopped reading its answer.
    static func openStalled(port: Int, sending request: String) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var size: Int32 = 4096
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var address = LoopbackPorts.address(port: port)
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        let bytes = Array(request.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        return fd
    }

    /// Reads `fd` until the peer closes it or `wait` seconds pass: the bytes read, and
    /// whether it was closed.
    static func drain(_ fd: Int32, wait: Double) -> (bytes: Int, closed: Bool) {
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 65536)
        var total = 0
        let deadline = Date().addingTimeInterval(wait)
        while Date() < deadline {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK) { return (total, true) }
            if count > 0 { total += count }
        }
        return (total, false)
    }

    /// Whether the peer has closed `fd` (a read returns end of file or a reset) now.
    static func isClosedByPeer(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, Int32(MSG_DONTWAIT | MSG_PEEK))
        return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
    }

    /// Sends `request` and reads until the server closes or `wait` seconds pass.
    static func send(_ request: String, port: Int, wait: Double = 5) -> Exchange {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = LoopbackPorts.address(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else { return Exchange(text: "", closedByServer: true) }
        let bytes = Array(request.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = Date().addingTimeInterval(wait)
        while Date() < deadline {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { return Exchange(text: String(decoding: received, as: UTF8.self), closedByServer: true) }
            if count > 0 { received += buffer.prefix(count) }
        }
        return Exchange(text: String(decoding: received, as: UTF8.self), closedByServer: false)
    }
}
