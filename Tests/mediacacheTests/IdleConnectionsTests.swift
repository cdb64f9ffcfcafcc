import Foundation
import NIOCore
import NIOEmbedded
import Testing

@testable import MediaCacheServe

/// `serve`'s connection cap makes room by closing the connection idle longest, also
/// when the cap fills before any new connection's pipeline is set up.
@Suite("Idle connections")
struct IdleConnectionsTests {
    static func connected() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
        return channel
    }

    /// The oldest idle one goes; one being answered never does.
    @Test func theConnectionIdleLongestIsClosed() throws {
        let connections = IdleConnections()
        let (busy, older, newer) = (try Self.connected(), try Self.connected(), try Self.connected())
        connections.opened(busy)
        connections.opened(older)
        // Idle since a later instant, whatever the clock's resolution.
        Thread.sleep(forTimeInterval: 0.002)
        connections.opened(newer)
        connections.busy(busy)
        #expect(connections.closeOldestIdle())
        #expect(busy.isActive && !older.isActive && newer.isActive)
    }

    /// A burst of new connections fills the cap before any of them is known: nothing can
    /// be closed then, so the first to become known is, and the server accepts again
    /// (it waited for an idle timeout before).
    @Test func aCapFilledBeforeAnyConnectionIsKnownIsMadeRoomInOnce() throws {
        let connections = IdleConnections()
        #expect(!connections.closeOldestIdle())
        let (first, second) = (try Self.connected(), try Self.connected())
        connections.opened(first)
        #expect(!first.isActive, "the owed eviction was not made")
        connections.closed(first)
        connections.opened(second)
        #expect(second.isActive, "one eviction was owed, two were made")
    }

    /// A connection that ends by itself frees a place: the eviction owed is dropped.
    @Test func aConnectionThatEndsCancelsTheEvictionOwed() throws {
        let connections = IdleConnections()
        let (answered, next) = (try Self.connected(), try Self.connected())
        connections.opened(answered)
        connections.busy(answered)
        #expect(!connections.closeOldestIdle())
        connections.closed(answered)
        connections.opened(next)
        #expect(next.isActive)
    }
}
