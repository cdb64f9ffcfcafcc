import Foundation
import Glibc

/// One client of `TestProxy`: reads one request head, logs it, and passes the request
/// on (absolute form) or tunnels (CONNECT) until either side closes.
final class ProxyConnection {
    private let client: Socket
    private let id: Int
    private let log: ProxyLog
    private let expectedLogin: String?
    /// Bytes received after the head (a pipelined body or the first tunnel bytes).
    private var pending: [UInt8] = []

    init(client fd: Int32, id: Int, registry: ConnectionRegistry, log: ProxyLog, expectedLogin: String?) {
        client = Socket(fd: fd, registry: registry)
        self.id = id
        self.log = log
        self.expectedLogin = expectedLogin
    }

    func run() {
        defer { client.registry.unregisterAndClose(id) }
        guard fill(atLeast: 1) else { return }
        if pending[0] == 5 { return socks5() }
        guard let head = readHead() else { return }
        let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n").filter { !$0.isEmpty }
        let requestLine = lines.first?.split(separator: " ").map(String.init) ?? []
        guard requestLine.count == 3 else { return }
        var record = ProxyRecord(
            method: requestLine[0], target: requestLine[1], headerLines: Array(lines.dropFirst()), refusedWith: 0)
        let status = answer(&record, version: requestLine[2])
        record.refusedWith = status
        log.append(record)
        if status != 0 {
            let extra = status == 407 ? "Proxy-Authenticate: Basic realm=\"proxy\"\r\n" : ""
            _ = client.send(Array("HTTP/1.1 \(status) Refused\r\n\(extra)Content-Length: 0\r\nConnection: close\r\n\r\n".utf8))
        }
    }

    /// Passes the request on; returns the status the proxy refused it with, or 0.
    private func answer(_ record: inout ProxyRecord, version: String) -> Int {
        if let expectedLogin, record.header("Proxy-Authorization") != expectedLogin { return 407 }
        if record.method == "CONNECT" {
            guard let upstream = Self.connect(authority: record.target) else { return 502 }
            defer { close(upstream) }
            guard client.send(Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8)) else { return 0 }
            relay(upstream, first: pending)
            return 0
        }
        // Absolute form: http://host:port/path
        guard record.target.hasPrefix("http://") else { return 400 }
        let rest = record.target.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" }
        let path = rest.dropFirst(authority.count)
        guard let upstream = Self.connect(authority: String(authority)) else { return 502 }
        defer { close(upstream) }
        // Hop-by-hop and proxy headers stay here; the origin closes after its answer.
        let passed = record.headerLines.filter { line in
            let name = line.prefix { $0 != ":" }.lowercased()
            return !["proxy-authorization", "proxy-connection", "connection", "keep-alive"].contains(name)
        }
        let head = "\(record.method) \(path.isEmpty ? "/" : path) \(version)\r\n"
            + passed.map { $0 + "\r\n" }.joined() + "Connection: close\r\n\r\n"
        guard Socket(fd: upstream, registry: client.registry).send(Array(head.utf8) + pending) else { return 502 }
        relay(upstream, first: [])
        return 0
    }

    /// Copies bytes both ways until either side closes or the proxy stops.
    private func relay(_ upstreamFD: Int32, first: [UInt8]) {
        let upstream = Socket(fd: upstreamFD, registry: client.registry)
        if !first.isEmpty, !upstream.send(first) { return }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while !client.registry.isStopped {
            var entries = [
                pollfd(fd: client.fd, events: Int16(POLLIN), revents: 0),
                pollfd(fd: upstreamFD, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&entries, 2, Socket.pollSliceMilliseconds)
            if ready < 0 && errno != EINTR { return }
            if ready <= 0 { continue }
            for (index, entry) in entries.enumerated() where entry.revents != 0 {
                let (from, to) = index == 0 ? (client, upstream) : (upstream, client)
                let count = buffer.withUnsafeMutableBytes { recv(from.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                if count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) { return }
                if count > 0, !to.send(Array(buffer[0..<count])) { return }
            }
        }
    }

    /// SOCKS5 (RFC 1928) without authentication: CONNECT to an IPv4 address (socks5)
    /// or a name (socks5h), logged as method "SOCKS5" with the target `host:port`.
    private func socks5() {
        // Greeting: version, method count, methods. Answer: no authentication.
        guard fill(atLeast: 2), fill(atLeast: 2 + Int(pending[1])) else { return }
        pending.removeFirst(2 + Int(pending[1]))
        guard client.send([5, 0]) else { return }
        // Request: version, CONNECT, reserved, address type, address, port.
        guard fill(atLeast: 5), pending[1] == 1 else { return }
        let host: String
        let addressEnd: Int
        switch pending[3] {
        case 1:
            addressEnd = 8
            guard fill(atLeast: addressEnd + 2) else { return }
            host = pending[4..<8].map(String.init).joined(separator: ".")
        case 3:
            addressEnd = 5 + Int(pending[4])
            guard fill(atLeast: addressEnd + 2) else { return }
            host = String(decoding: pending[5..<addressEnd], as: UTF8.self)
        default:
            _ = client.send([5, 8, 0, 1, 0, 0, 0, 0, 0, 0])  // address type not supported
            return
        }
        let port = Int(pending[addressEnd]) << 8 | Int(pending[addressEnd + 1])
        pending.removeFirst(addressEnd + 2)
        let target = "\(host):\(port)"
        guard let upstream = Self.connect(authority: target) else {
            log.append(ProxyRecord(method: "SOCKS5", target: target, headerLines: [], refusedWith: 502))
            _ = client.send([5, 5, 0, 1, 0, 0, 0, 0, 0, 0])  // connection refused
            return
        }
        defer { close(upstream) }
        log.append(ProxyRecord(method: "SOCKS5", target: target, headerLines: [], refusedWith: 0))
        guard client.send([5, 0, 0, 1, 127, 0, 0, 1, 0, 0]) else { return }
        relay(upstream, first: pending)
    }

    /// Reads until `pending` holds at least `count` bytes; false if the client went away.
    private func fill(atLeast count: Int) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while pending.count < count {
            guard case .bytes(let got) = buffer.withUnsafeMutableBytes({ client.receive(into: $0) }) else { return false }
            pending += buffer[0..<got]
        }
        return true
    }

    /// The head's bytes without the blank line; what follows stays in `pending`.
    private func readHead() -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while pending.count <= Connection.maxHeadBytes {
            if let end = Self.find([0x0D, 0x0A, 0x0D, 0x0A], in: pending) {
                let head = Array(pending[..<end])
                pending.removeFirst(end + 4)
                return head
            }
            guard case .bytes(let count) = buffer.withUnsafeMutableBytes({ client.receive(into: $0) }) else { return nil }
            pending += buffer[0..<count]
        }
        return nil
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        return (0...(bytes.count - needle.count)).first { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    /// A blocking TCP connection to a loopback `host:port`, or nil.
    private static func connect(authority: String) -> Int32? {
        guard let colon = authority.lastIndex(of: ":"), let port = UInt16(authority[authority.index(after: colon)...])
        else { return nil }
        let host = authority[..<colon]
        guard host == "127.0.0.1" || host == "localhost" else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            return nil
        }
        return fd
    }
}
