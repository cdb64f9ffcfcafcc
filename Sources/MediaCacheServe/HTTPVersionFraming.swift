import NIOCore
import NIOHTTP1

/// Answers each request in its own HTTP version's terms, below Hummingbird (whose
/// requests carry no version): an HTTP/1.0 client gets a 1.0 response and never chunked
/// encoding, which 1.0 does not have (a body of unknown length ends where the connection
/// does); a request that is not keep-alive (1.0 without `Connection: keep-alive`, 1.1
/// with `Connection: close`) has its connection closed once it is answered.
final class HTTPVersionFraming: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private struct Asked {
        var version: HTTPVersion
        var keepAlive: Bool
    }

    /// Requests not answered yet, oldest first: pipelined requests are answered in order.
    private var unanswered: [Asked] = []
    private var closeAfterResponse = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
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
            closeAfterResponse = false
            // Closed once every byte before it is written, not before.
            let written = promise ?? context.eventLoop.makePromise()
            let channel = context.channel
            written.futureResult.whenComplete { _ in channel.close(promise: nil) }
            context.writeAndFlush(data, promise: written)
        default:
            context.write(data, promise: promise)
        }
    }
}
