import HummingbirdCore
import NIOCore
import Synchronization

/// The connections of `serve` and which of them wait for a request, so that at the
/// connection cap those idle longest are closed to make room (as nginx drains up to 32
/// of its keep-alive connections when it runs out) instead of a new client waiting in
/// the backlog until an idle timeout frees a place.
final class IdleConnections: Sendable {
    private struct Entry {
        let channel: any Channel
        /// Nil while a request is being answered.
        var idleSince: ContinuousClock.Instant?
    }

    private struct State {
        var entries: [ObjectIdentifier: Entry] = [:]
        /// The cap was reached while no connection could be closed: the next one to
        /// become idle is. A connection is counted when it is accepted but known here
        /// only once its pipeline is set up, so a burst of new ones can fill the cap
        /// before any of them is; without this, the server would stop accepting until
        /// an idle timeout.
        var evictionOwed = false

        mutating func takeOwedEviction() -> Bool {
            defer { evictionOwed = false }
            return evictionOwed
        }
    }

    private let state = Mutex(State())

    func opened(_ channel: any Channel) {
        changeMakingOwedRoom { $0.entries[ObjectIdentifier(channel)] = Entry(channel: channel, idleSince: .now) }
    }

    func busy(_ channel: any Channel) { state.withLock { $0.entries[ObjectIdentifier(channel)]?.idleSince = nil } }

    func idle(_ channel: any Channel) {
        changeMakingOwedRoom { $0.entries[ObjectIdentifier(channel)]?.idleSince = .now }
    }

    /// A connection became known or idle: one is closed now if an eviction is owed.
    private func changeMakingOwedRoom(_ change: (inout State) -> Void) {
        let owed = state.withLock { state in
            change(&state)
            return state.takeOwedEviction()
        }
        if owed { closeOldestIdle(upTo: 1) }
    }

    /// The server's count of connections fell below its cap: it accepts again, so no
    /// eviction is owed. Only the count says so: a connection known here to have ended
    /// may have had its place taken already (the count and this list learn of an end in
    /// either order), and dropping the eviction then left the server full and not
    /// accepting until an idle timeout.
    func belowCap() {
        state.withLock { $0.evictionOwed = false }
    }

    func closed(_ channel: any Channel) {
        _ = state.withLock { $0.entries.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// Closes up to `limit` of the connections idle longest (silent ones, ones part-way
    /// through a request head, keep-alive ones between requests); how many. None when
    /// every connection is being answered or not yet known: the next to become idle is
    /// closed then.
    @discardableResult
    func closeOldestIdle(upTo limit: Int) -> Int {
        let oldest = state.withLock { state -> [any Channel] in
            let idle = state.entries.compactMap { key, entry in entry.idleSince.map { (key, $0) } }
            guard !idle.isEmpty else {
                state.evictionOwed = true
                return []
            }
            let chosen = idle.count <= limit ? idle : Array(idle.sorted { $0.1 < $1.1 }.prefix(limit))
            return chosen.compactMap { key, _ in
                state.entries[key]?.idleSince = nil  // closing: never picked twice
                return state.entries[key]?.channel
            }
        }
        for channel in oldest { channel.close(promise: nil) }
        return oldest.count
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
        // A batch, not one: behind a flood of silent connections, closing one per accept
        // let a player through only after every one queued ahead of it.
        if count >= maximum { connections.closeOldestIdle(upTo: Self.drainBatch) }
    }

    /// As nginx's `ngx_drain_connections`.
    static let drainBatch = 32

    mutating func connectionClosed() {
        count -= 1
        if count < maximum { connections.belowCap() }
    }

    func isAcceptingNewConnections() -> Bool { count < maximum }
}
