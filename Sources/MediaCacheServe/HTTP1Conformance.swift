import Foundation
import NIOCore
import NIOHTTP1

/// What Hummingbird's HTTPTypes requests no longer carry, applied below it where NIO's
/// HTTP/1 codec still has it:
/// - the version: an HTTP/1.0 client gets a 1.0 response and never chunked encoding,
///   which 1.0 does not have (a body of unknown length ends where the connection does);
///   a request that is not keep-alive (1.0 without `Connection: keep-alive`, 1.1 with
///   `Connection: close`) has its connection closed once it is answered;
/// - the target's form: an absolute-form target (`GET http://host/…`) names the host the
///   request is for, and wins over `Host` (RFC 9112, 3.2.2), so `HostCheck` judges it;
/// - the transfer coding: a request body in a coding other than chunked cannot be
///   framed, so the request is refused (400) and the connection closed, as RFC 9112,
///   6.1 asks: a proxy in front may have framed it otherwise (request smuggling);
/// - the request line: an HTTP/1.1 request without Host is refused (400, RFC 9112, 3.2),
///   and a target over `longestTarget` bytes gets 414.
///
/// It also tells `IdleConnections` when its connection waits for a request and when it
/// is answering one, which Hummingbird does not say; and a client that closes its side
/// while a response is in progress has gone (nginx logs 499 for it): the connection is
/// closed, which cancels the response (it may be waiting for a download's bytes).
final class HTTP1Conformance: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private struct Asked {
        var version: HTTPVersion
        var keepAlive: Bool
    }

    private let connections: IdleConnections

    init(connections: IdleConnections) { self.connections = connections }

    /// Requests not answered yet, oldest first: pipelined requests are answered in order.
    private var unanswered: [Asked] = []
    private var closeAfterResponse = false
    /// A request was refused here: nothing more is read from this connection.
    private var refused = false
    /// Requests read whose response has not ended.
    private var responding = 0

    func handlerAdded(context: ChannelHandlerContext) { connections.opened(context.channel) }

    func handlerRemoved(context: ChannelHandlerContext) { connections.closed(context.channel) }

    func channelInactive(context: ChannelHandlerContext) {
        connections.closed(context.channel)
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .inputClosed = event as? ChannelEvent, responding > 0 {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        if let codings = head.headers["transfer-encoding"].last,
            codings.split(separator: ",").last?.trimmingCharacters(in: .whitespaces).lowercased() != "chunked"
        {
            refuse(head, "a request body in Transfer-Encoding \(codings) cannot be read; send it chunked", context: context)
            return
        }
        if head.uri.utf8.count > Self.longestTarget {
            refuse(head, "the request target is longer than \(Self.longestTarget) bytes", status: .uriTooLong, context: context)
            return
        }
        if let authority = Self.authority(ofAbsoluteForm: head.uri) {
            head.headers.replaceOrAdd(name: "host", value: authority)
        } else if head.version.minor >= 1, !head.headers.contains(name: "host") {
            refuse(head, "an HTTP/1.1 request names its server in a Host header", context: context)
            return
        }
        connections.busy(context.channel)
        responding += 1
        let keepAlive = head.isKeepAlive
        unanswered.append(Asked(version: head.version, keepAlive: keepAlive))
        // Hummingbird ends a connection after the response only when the request says "close".
        if !keepAlive { head.headers.replaceOrAdd(name: "connection", value: "close") }
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head) where head.status.code >= 200:
            let asked = unanswered.isEmpty ? Asked(version: .http1_1, keepAlive: true) : unanswered.removeFirst()
            var keepAlive = asked.keepAlive
            if asked.version == .http1_0 {
                head.version = .http1_0
                let framed = head.headers.contains(name: "content-length") || [204, 304].contains(head.status.code)
                if !framed {
                    keepAlive = false
                } else if keepAlive {
                    head.headers.replaceOrAdd(name: "connection", value: "keep-alive")
                }
            }
            if !keepAlive { head.headers.replaceOrAdd(name: "connection", value: "close") }
            closeAfterResponse = !keepAlive
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .end where closeAfterResponse:
            responding -= 1
            closeAfterResponse = false
            // Closed once every byte before it is written, not before.
            let written = promise ?? context.eventLoop.makePromise()
            let channel = context.channel
            written.futureResult.whenComplete { _ in channel.close(promise: nil) }
            context.writeAndFlush(data, promise: written)
        case .end:
            responding -= 1
            // Answered: idle until the next request (the oldest idle is closed at the cap).
            if unanswered.isEmpty { connections.idle(context.channel) }
            context.write(data, promise: promise)
        default:
            context.write(data, promise: promise)
        }
    }

    /// Answers `status` here, without Hummingbird, and closes the connection.
    private func refuse(
        _ request: HTTPRequestHead, _ reason: String, status: HTTPResponseStatus = .badRequest,
        context: ChannelHandlerContext
    ) {
        refused = true
        let body = ByteBuffer(string: reason + "\n")
        var head = HTTPResponseHead(version: request.version, status: status)
        head.headers.add(name: "content-type", value: "text/plain; charset=utf-8")
        head.headers.add(name: "x-content-type-options", value: "nosniff")
        head.headers.add(name: "content-length", value: "\(body.readableBytes)")
        head.headers.add(name: "connection", value: "close")
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    /// Longer targets get 414 (RFC 9112, 3 asks for at least 8,000 octets); no URL this
    /// server hands out comes near it. NIO's decoder refuses a head over 80 KiB with 400.
    static let longestTarget = 8_192

    /// `host:port` of a target in absolute form (`http://host:port/path`), else nil.
    static func authority(ofAbsoluteForm target: String) -> String? {
        guard !target.hasPrefix("/"), let scheme = target.range(of: "://") else { return nil }
        let rest = target[scheme.upperBound...]
        return String(rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" })
    }
}
