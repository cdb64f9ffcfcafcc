import Foundation

/// A forward HTTP proxy for end-to-end tests, logging every request head it receives.
///
/// Absolute-form requests (`GET http://127.0.0.1:PORT/path`) are passed on to their
/// origin with `Connection: close` (one request per client connection, so each is
/// logged); `CONNECT host:port` opens a tunnel whose bytes it relays unread, as a real
/// proxy must for https. It speaks SOCKS5 too, to clients that start with it. Only
/// loopback targets are served: tests never reach out.
public final class TestProxy: @unchecked Sendable {
    public let port: Int

    private let registry = ConnectionRegistry()
    private let log = ProxyLog()

    /// `requiredLogin` (`user:password`): requests without it as Basic
    /// `Proxy-Authorization` get 407.
    public init(requiredLogin: String? = nil) throws {
        let listener = try Listener.open(host: "127.0.0.1", port: 0)
        port = listener.port
        let (registry, log) = (self.registry, self.log)
        let expected = requiredLogin.map { "Basic " + Data($0.utf8).base64EncodedString() }
        registry.spawn {
            Listener.acceptLoop(fd: listener.fd, registry: registry) { client, id in
                ProxyConnection(client: client, id: id, registry: registry, log: log, expectedLogin: expected).run()
            }
        }
    }

    deinit {
        stop()
    }

    /// "http://127.0.0.1:PORT", for `--proxy` or `http_proxy`.
    public var url: String { "http://127.0.0.1:\(port)" }

    /// Request heads in arrival order.
    public var requests: [ProxyRecord] { log.snapshot }

    /// Waits until `predicate` holds for the log, up to `timeout` seconds.
    @discardableResult
    public func waitForLog(timeout: TimeInterval = 5, until predicate: ([ProxyRecord]) -> Bool) -> Bool {
        log.wait(timeout: timeout, until: predicate)
    }

    public func stop() {
        registry.stop(timeout: 2)
    }
}

/// One request head as the proxy received it.
public struct ProxyRecord: Sendable {
    public var method: String
    /// As sent: `http://host:port/path?query` or, for CONNECT, `host:port`.
    public var target: String
    /// `Name: value` lines, as sent.
    public var headerLines: [String]
    /// What the proxy answered itself (407, 400, 502), or 0 when it passed the request on.
    /// SOCKS5 connections are logged with method "SOCKS5" and no headers.
    public var refusedWith: Int

    /// The value of the first header called `name` (any case).
    public func header(_ name: String) -> String? {
        for line in headerLines {
            guard let colon = line.firstIndex(of: ":"), line[..<colon].lowercased() == name.lowercased() else { continue }
            return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return nil
    }
}

final class ProxyLog: @unchecked Sendable {
    private let condition = NSCondition()
    private var records: [ProxyRecord] = []

    func append(_ record: ProxyRecord) {
        condition.withLock {
            records.append(record)
            condition.broadcast()
        }
    }

    var snapshot: [ProxyRecord] { condition.withLock { records } }

    func wait(timeout: TimeInterval, until predicate: ([ProxyRecord]) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !predicate(records) {
            if !condition.wait(until: deadline) { return predicate(records) }
        }
        return true
    }
}
