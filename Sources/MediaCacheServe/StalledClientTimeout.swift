import NIOCore

/// Closes a connection whose client stopped reading its answer: the socket's send buffer
/// has stayed full (the channel unwritable) for `timeout`. A player that reads slowly
/// makes the channel writable again now and then; one that stopped held its connection,
/// a slot under the client cap and about a megabyte of buffers for as long as it liked
/// (4,300 of them took 5 GB and locked every other client out). Waiting for a download's
/// bytes writes nothing and leaves the channel writable, so it never counts here.
final class StalledClientTimeout: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    /// The timeout in `--idle-timeout`s: a minute by default, as nginx's `send_timeout`.
    /// A paused player stops reading once its own cache is full, and should find its
    /// connection still there for a while when it plays on.
    static let idleTimeouts = 6

    private let timeout: TimeAmount
    private var closing: Scheduled<Void>?

    init(timeout: TimeAmount) { self.timeout = timeout }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            closing?.cancel()
            closing = nil
        } else if closing == nil {
            let channel = context.channel
            closing = context.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
        }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        closing?.cancel()
        closing = nil
        context.fireChannelInactive()
    }
}
