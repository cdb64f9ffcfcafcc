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

    /// NIO accepts several connections per wakeup whatever the cap says: each accepted
    /// at the cap while none is known owes an eviction, and as many are made (one owed
    /// for all left the server over its cap, accepting nobody, in CI's flood test).
    @Test func everyConnectionAcceptedAtTheCapOwesAnEviction() throws {
        let connections = IdleConnections()
        #expect(!connections.closeOldestIdle())
        #expect(!connections.closeOldestIdle())
        let (first, second, third) = (try Self.connected(), try Self.connected(), try Self.connected())
        connections.opened(first)
        connections.opened(second)
        connections.opened(third)
        #expect(!first.isActive && !second.isActive, "two evictions were owed")
        #expect(third.isActive, "two evictions were owed, three were made")
    }

    /// A connection that has ended, its end not yet known here, frees no place when
    /// closed: the oldest one still open is closed instead.
    @Test func aConnectionThatHasEndedIsNotTheOneClosed() throws {
        let connections = IdleConnections()
        let (ended, open) = (try Self.connected(), try Self.connected())
        connections.opened(ended)
        Thread.sleep(forTimeInterval: 0.002)
        connections.opened(open)
        try ended.close().wait()
        #expect(connections.closeOldestIdle())
        #expect(!open.isActive, "the ended connection was chosen")
    }

    /// A place freed below the cap (the server's count fell) drops the eviction owed.
    @Test func aPlaceFreedBelowTheCapDropsTheEvictionOwed() throws {
        let connections = IdleConnections()
        let (answered, next) = (try Self.connected(), try Self.connected())
        connections.opened(answered)
        connections.busy(answered)
        #expect(!connections.closeOldestIdle())
        connections.belowCap()
        connections.closed(answered)
        connections.opened(next)
        #expect(next.isActive)
    }

    /// The race CI met: an evicted connection's end reaches the count first, its place is
    /// taken by a new connection that fills the cap again while none is known idle, and
    /// only then does its end reach this list. The eviction owed must stand, or the
    /// server stays full and accepts nobody until an idle timeout.
    @Test func aLateEndOfAnEvictedConnectionKeepsTheEvictionOwed() throws {
        let connections = IdleConnections()
        let (evicted, arriving) = (try Self.connected(), try Self.connected())
        connections.opened(evicted)
        #expect(connections.closeOldestIdle())
        #expect(!evicted.isActive)
        // The count: the evicted one ended (below the cap), the arriving one was accepted
        // at the cap, with none known idle.
        connections.belowCap()
        #expect(!connections.closeOldestIdle())
        connections.closed(evicted)
        connections.opened(arriving)
        #expect(!arriving.isActive, "the server is full and made no room")
    }
}
