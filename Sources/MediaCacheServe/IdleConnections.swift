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

    private let entries = Mutex<[ObjectIdentifier: Entry]>([:])

    func opened(_ channel: any Channel) {
        entries.withLock { $0[ObjectIdentifier(channel)] = Entry(channel: channel, idleSince: .now) }
    }

    func busy(_ channel: any Channel) { entries.withLock { $0[ObjectIdentifier(channel)]?.idleSince = nil } }

    func idle(_ channel: any Channel) { entries.withLock { $0[ObjectIdentifier(channel)]?.idleSince = .now } }

    func closed(_ channel: any Channel) { entries.withLock { $0[ObjectIdentifier(channel)] = nil } }

    /// Closes the connection idle longest (a silent one, one part-way through a request
    /// head, or a keep-alive one between requests); false when every connection is
    /// being answered.
    @discardableResult
    func closeOldestIdle() -> Bool {
        let oldest = entries.withLock { entries -> (any Channel)? in
            var oldest: (key: ObjectIdentifier, since: ContinuousClock.Instant)?
            for (key, entry) in entries {
                guard let since = entry.idleSince else { continue }
                if oldest.map({ since < $0.since }) ?? true { oldest = (key, since) }
            }
            guard let oldest else { return nil }
            entries[oldest.key]?.idleSince = nil  // closing: never picked twice
            return entries[oldest.key]?.channel
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

    mutating func connectionClosed() { count -= 1 }

    func isAcceptingNewConnections() -> Bool { count < maximum }
}
