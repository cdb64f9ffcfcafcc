import HummingbirdCore
import NIOCore
import Synchronization

/// The connections of `serve` and which of them wait for a request, so that at the
/// connection cap the one idle longest is closed to make room (as nginx reuses its
/// keep-alive connections when it runs out) instead of a new client waiting in the
/// backlog until an idle timeout frees a place.
final class IdleConnections: Sendable {
    private struct Entry {
        let channel: any Channel
        /// Nil while a request is being answered.
        var idleSince: ContinuousClock.Instant?
    }

    private struct State {
        var entries: [ObjectIdentifier: Entry] = [:]
        /// Connections accepted at the cap while none could be closed: as many of the next
        /// to become idle are. A connection is counted when it is accepted but known here
        /// only once its pipeline is set up, and NIO accepts several per wakeup of the
        /// listening socket whatever the cap says; so a burst of new ones can go past the
        /// cap before any of them is known. Owing one eviction for all of them left the
        /// server over its cap, accepting nobody until an idle timeout.
        var evictionsOwed = 0
    }

    private let state = Mutex(State())

    func opened(_ channel: any Channel) {
        changeMakingOwedRoom { $0.entries[ObjectIdentifier(channel)] = Entry(channel: channel, idleSince: .now) }
    }

    func busy(_ channel: any Channel) { state.withLock { $0.entries[ObjectIdentifier(channel)]?.idleSince = nil } }

    func idle(_ channel: any Channel) {
        changeMakingOwedRoom { $0.entries[ObjectIdentifier(channel)]?.idleSince = .now }
    }

    /// A connection became known or idle: evictions owed are made now.
    private func changeMakingOwedRoom(_ change: (inout State) -> Void) {
        let owed = state.withLock { state in
            change(&state)
            defer { state.evictionsOwed = 0 }
            return state.evictionsOwed
        }
        if owed > 0 { closeOldestIdle(owed) }
    }

    /// The server's count of connections fell below its cap: it accepts again, so no
    /// eviction is owed. Only the count says so: a connection known here to have ended
    /// may have had its place taken already (the count and this list learn of an end in
    /// either order), and dropping the evictions then left the server full and not
    /// accepting until an idle timeout.
    func belowCap() {
        state.withLock { $0.evictionsOwed = 0 }
    }

    func closed(_ channel: any Channel) {
        _ = state.withLock { $0.entries.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// Closes the `count` connections idle longest (silent ones, ones part-way through a
    /// request head, keep-alive ones between requests); false when not one could be
    /// closed. Those it could not close, every connection being answered or not yet
    /// known, are closed as connections become idle.
    @discardableResult
    func closeOldestIdle(_ count: Int = 1) -> Bool {
        let oldest = state.withLock { state -> [any Channel] in
            // A connection that has ended but whose end has not reached this list yet
            // would free no place when closed.
            let idle = state.entries.compactMap { key, entry in
                entry.channel.isActive ? entry.idleSince.map { (key: key, since: $0) } : nil
            }
            let chosen = idle.sorted { $0.since < $1.since }.prefix(count).map(\.key)
            state.evictionsOwed += count - chosen.count
            return chosen.compactMap { key in
                state.entries[key]?.idleSince = nil  // closing: never picked twice
                return state.entries[key]?.channel
            }
        }
        for channel in oldest { channel.close(promise: nil) }
        return !oldest.isEmpty
    }
}

/// Hummingbird's connection cap, which makes room at the cap by closing the connection
/// idle longest; only when every connection is busy do new ones wait.
struct EvictingConnectionLimit: AvailableConnectionsDelegate {
    let maximum: Int
    let connections: IdleConnections
    private var count = 0

    init(maximum: Int, connections: IdleConnections) {
        self.maximum = maximum
        self.connections = connections
    }

    mutating func connectionOpened() {
        count += 1
        if count >= maximum { connections.closeOldestIdle() }
    }

    mutating func connectionClosed() {
        count -= 1
        if count < maximum { connections.belowCap() }
    }

    func isAcceptingNewConnections() -> Bool { count < maximum }
}
