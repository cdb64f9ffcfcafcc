import Foundation

/// A scripted, misbehaving HTTP/1.1 origin for end-to-end tests.
///
/// Thread-per-connection, blocking POSIX sockets on an IPv4 loopback port. Serves GET
/// and HEAD with single byte ranges, If-Range, keep-alive and pipelining, and can be
/// scripted per path to drop, stall, throttle, mis-answer ranges, redirect or fail.
/// All methods are thread-safe.
public final class TestOrigin: @unchecked Sendable {
    public let host: String
    public let port: Int

    private let registry = ConnectionRegistry()
    private let routes = RouteTable()
    private let log = RequestLog()

    /// Binds `host:port` (port 0: an ephemeral port) and starts accepting on a background thread.
    public init(host: String = "127.0.0.1", port: Int = 0) throws {
        let listener = try Listener.open(host: host, port: port)
        self.host = host
        self.port = listener.port
        // The threads capture only the shared state, never `self`, so deinit can run and stop them.
        let (registry, routes, log) = (self.registry, self.routes, self.log)
        registry.spawn {
            Listener.acceptLoop(fd: listener.fd, registry: registry) { client, id in
                Connection(fd: client, id: id, registry: registry, routes: routes, log: log).run()
            }
        }
    }

    deinit {
        stop()
    }

    /// "http://HOST:PORT".
    public var baseURL: String { "http://\(host):\(port)" }

    /// `baseURL` + `path` (a missing leading "/" is added).
    public func url(_ path: String) -> String {
        baseURL + (path.hasPrefix("/") ? path : "/" + path)
    }

    /// Serves `resource` at `path` (without query), replacing any previous one and
    /// resetting its fault counters. Responses already under way keep their resource.
    public func serve(_ path: String, _ resource: Resource) {
        routes.set(path, resource)
    }

    public func remove(_ path: String) {
        routes.remove(path)
    }

    /// The request log, in arrival order.
    public var requests: [RequestRecord] {
        log.snapshot
    }

    public func requests(for path: String) -> [RequestRecord] {
        log.snapshot.filter { $0.path == path }
    }

    public func clearLog() {
        log.clear()
    }

    /// The most connections open at once since the start or `resetPeakConnections()`.
    public var peakConnections: Int { registry.peakConnections }

    public func resetPeakConnections() { registry.resetPeak() }

    /// Waits until `predicate` holds for the log (re-evaluated on every change), up to `timeout` seconds.
    /// Useful because records complete asynchronously, e.g. after the client saw a drop.
    @discardableResult
    public func waitForLog(timeout: TimeInterval = 5, until predicate: ([RequestRecord]) -> Bool) -> Bool {
        log.wait(timeout: timeout, until: predicate)
    }

    /// Closes the listener and every connection (ending stalls and paced bodies) and
    /// waits briefly for the server's threads to exit. Idempotent.
    public func stop() {
        registry.stop(timeout: 2)
    }
}

/// Failure to set up the listening socket.
public struct TestOriginError: Error, CustomStringConvertible {
    public var description: String
}
