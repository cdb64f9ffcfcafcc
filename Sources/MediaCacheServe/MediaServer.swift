import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import MediaCacheKit
import NIOCore
import NIOHTTP1
import ServiceLifecycle

/// `mediacache serve`: a local HTTP endpoint that players open while the cache fills.
///
/// `/m/TOKEN/NAME` serves the source that `mediacache url` registered under TOKEN (any
/// other token: 403, and no origin hears of it); when that source is a cached streaming
/// title, `/m/TOKEN/<path>` serves each file of it (`TitleResponder`). `/` is a status
/// page. Requests whose Host is not this server get 421.
///
/// A `Service`: run in a `ServiceGroup`, its graceful shutdown stops taking connections
/// and closes each one once its answer in progress is written; cancelling it closes them
/// at once.
public final class MediaServer: Service {
    private let service: DownloadService
    private let sources: KnownSources
    private let listen: ListenAddress
    private let port: Int
    private let idleTimeout: Int
    private let firstAnswerTimeout: Int
    private let log: @Sendable (ServeEvent) -> Void
    private let onListening: @Sendable (String) -> Void

    /// `onListening` gets the base URL once the address is bound; a player waits about
    /// `timeout` (`--timeout`) for a download to start answering (504 after it).
    public init(
        service: DownloadService, listen spec: ListenSpec, idleTimeout: Int, timeout: Int,
        log: @escaping @Sendable (ServeEvent) -> Void, onListening: @escaping @Sendable (String) -> Void
    ) throws {
        self.idleTimeout = idleTimeout
        self.firstAnswerTimeout = timeout
        self.service = service
        sources = KnownSources(try LocalSources(cache: service.cache))
        listen = ListenAddress(spec)
        port = spec.port
        self.log = log
        self.onListening = onListening
    }

    /// Serves until its group shuts down; throws when the address cannot be bound.
    public func run() async throws {
        let router = Router()
        router.add(middleware: HostCheck(listen: listen))
        router.add(middleware: LocalURLSharing())
        let media = MediaResponder(
            service: service, failures: RecentFailures(), firstAnswer: FirstAnswerWait(timeout: firstAnswerTimeout))
        let status = StatusPage(service: service, sources: sources)
        let actions = StatusActions(service: service, sources: sources, listen: self.listen)
        router.post("/actions/add") { request, _ in try await actions.add(request) }
        router.post("/actions/remove") { request, _ in try await actions.remove(request) }
        router.post("/actions/stop") { request, _ in try await actions.stop(request) }
        for method in [HTTPRequest.Method.get, .head] {
            router.on("/", method: method) { _, _ in try await status.page() }
            router.on("/status.json", method: method) { _, _ in try await status.json() }
            router.on("/status.js", method: method) { _, _ in status.script() }
            router.on("/m/:token/**", method: method) { [sources, log] request, context in
                let token = context.parameters.get("token") ?? ""
                guard let source = try await sources.source(token: token) else {
                    log(.refused(path: request.uri.path, reason: "unknown local URL"))
                    return PlainText.response(.forbidden, "unknown local URL; make one with `mediacache url URL`")
                }
                // The path after the token, as sent: the source's name, or a title's file.
                let prefix = "/m/\(token)/"
                let path = request.uri.path.hasPrefix(prefix) ? String(request.uri.path.dropFirst(prefix.count)) : ""
                let started = ContinuousClock.now
                let answer: (Response, ServedFrom)
                var member: String?
                if !path.contains("/"), source.isNamed(path) {
                    answer = try await media.respond(to: request, source: source, name: path)
                } else if let found = try await media.respond(to: request, source: source, memberPath: path) {
                    (answer, member) = (found, path)
                } else {
                    log(.refused(path: request.uri.path, reason: "not the name of this local URL nor a file of its title"))
                    return PlainText.response(
                        .notFound, "not found: this local URL serves \(source.pathName) only (and, for a title, its files)")
                }
                let (response, from) = answer
                let record = RequestRecord(
                    url: source.url, member: member, method: request.method.rawValue, range: request.headers[.range],
                    status: response.status.code, from: from, headSeconds: started.secondsSince)
                log(.served(record))
                return RequestLog.logging(response, record, method: request.method, started: started, log: log)
            }
        }
        // A local URL only reads (RFC 9110: a 405 names the methods it takes).
        for method in [HTTPRequest.Method.post, .put, .delete, .patch, .options, .trace] {
            router.on("/m/:token/**", method: method) { _, _ in
                var response = PlainText.response(.methodNotAllowed, "a local URL answers GET and HEAD only")
                response.headers[.allow] = "GET, HEAD"
                return response
            }
        }
        let listen = self.listen
        let onListening = self.onListening
        // Its own lines would mix with the command's; failures reach the caller as errors.
        var logger = Logger(label: "mediacache-serve")
        logger.logLevel = .critical
        // A client that says nothing (or never finishes its request head) is closed,
        // as nginx's client_header_timeout and keepalive_timeout do. At the cap, which keeps
        // the engine's descriptors, the connection idle longest is closed to make room;
        // only when every connection is busy do new ones wait in the listen backlog.
        let maxClients = service.descriptorBudget.clientConnections(limit: FileDescriptorLimit.current)
        let connections = IdleConnections()
        let app = Application(
            router: router,
            server: .http1WithConformance(idleTimeout: idleTimeout, connections: connections),
            configuration: .init(
                address: .hostname(listen.host, port: port), serverName: nil,
                availableConnectionsDelegate: EvictingConnectionLimit(maximum: maxClients, connections: connections)),
            onServerRunning: { channel in
                listen.bound(port: channel.localAddress?.port ?? 0)
                onListening(listen.baseURL)
            }, logger: logger)
        try await app.run()
    }
}



extension HTTPServerBuilder {
    /// Hummingbird's HTTP/1 server with `HTTP1Conformance` between NIO's HTTP/1 codec
    /// and the conversion to HTTPTypes, where the request's version is still known.
    static func http1WithConformance(idleTimeout: Int, connections: IdleConnections) -> HTTPServerBuilder {
        .init { responder in
            ConformingHTTP1Channel(
                base: HTTP1Channel(responder: responder, configuration: .init(idleTimeout: .seconds(Int64(idleTimeout)))),
                connections: connections, stallTimeout: .seconds(Int64(StalledClientTimeout.idleTimeouts * idleTimeout)))
        }
    }
}

struct ConformingHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    let base: HTTP1Channel
    let connections: IdleConnections
    /// A client that stops reading its answer is closed after this (`StalledClientTimeout`).
    let stallTimeout: TimeAmount
    /// Doubled by the kernel: 1 MiB a connection at most.
    static let sendBufferBytes: SocketOptionValue = 512 << 10
    var responder: HTTPChannelHandler.Responder { base.responder }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<HTTP1Channel.Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            // Linux grows a socket's send buffer to 4 MiB for a client that does not read:
            // kernel memory per stalled player. Players read far less ahead than that.
            try channel.syncOptions?.setOption(ChannelOptions.socketOption(.so_sndbuf), value: Self.sendBufferBytes)
            let pipeline = channel.pipeline.syncOperations
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try pipeline.addHandler(HTTP1Conformance(connections: connections), position: .after(decoder))
            try pipeline.addHandler(StalledClientTimeout(timeout: stallTimeout), position: .first)
            return value
        }
    }

    /// A client that hangs up while its response waits for a download's bytes is gone
    /// at once, not at the next write: the response's task is cancelled, so its reader
    /// stops asking for bytes (a player that seeks leaves its old request this way).
    func handle(value: HTTP1Channel.Value, logger: Logger) async {
        let closed = value.channel.closeFuture
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await base.handle(value: value, logger: logger) }
            group.addTask { try? await closed.get() }
            await group.next()
            group.cancelAll()
        }
    }
}
