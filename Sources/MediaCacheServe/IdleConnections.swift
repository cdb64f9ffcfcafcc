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
        if owed { closeOldestIdle() }
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

    /// Closes the connection idle longest (a silent one, one part-way through a request
    /// head, or a keep-alive one between requests); false when every connection is
    /// being answered or not yet known, and then the next to become idle is closed.
    @discardableResult
    func closeOldestIdle() -> Bool {
        let oldest = state.withLock { state -> (any Channel)? in
            var oldest: (key: ObjectIdentifier, since: ContinuousClock.Instant)?
            for (key, entry) in state.entries {
                guard let since = entry.idleSince else { continue }
                if oldest.map({ since < $0.since }) ?? true { oldest = (key, since) }
            }
            guard let oldest else {
                state.evictionOwed = true
                return nil
            }
            state.entries[oldest.key]?.idleSince = nil  // closing: never picked twice
            return state.entries[oldest.key]?.channel
        }
        oldest?.close(promise: nil)
        return oldest != nil
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
