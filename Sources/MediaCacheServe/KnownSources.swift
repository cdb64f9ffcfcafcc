import MediaCacheKit
import Synchronization

/// The local URLs `serve` answers, each read from disk once: a token is an HMAC of its
/// source, so what it names never changes and a remembered answer never goes stale.
/// Unknown tokens are not remembered (a flood of guesses costs no memory).
final class KnownSources: Sendable {
    let local: LocalSources
    private let known = Mutex<[String: LocalSource]>([:])
    /// Past this many, the memory starts again (a status page of a huge cache, a long run).
    private static let limit = 16_384

    init(_ local: LocalSources) { self.local = local }

    /// The source `token` names, or nil for a token nobody made.
    func source(token: String) async throws -> LocalSource? {
        if let source = known.withLock({ $0[token] }) { return source }
        let local = local
        guard let source = try await BlockingWork.run({ local.source(token: token) }) else { return nil }
        remember(source, as: token)
        return source
    }

    /// Registers `source` unless it is known already; its token. Blocks on the disk for
    /// a new one: call it off the cooperative pool.
    func register(_ source: LocalSource) throws -> String {
        let token = try local.token(for: source)
        if known.withLock({ $0[token] }) == source { return token }
        _ = try local.register(source)
        remember(source, as: token)
        return token
    }

    private func remember(_ source: LocalSource, as token: String) {
        known.withLock { known in
            if known.count >= Self.limit { known.removeAll(keepingCapacity: true) }
            known[token] = source
        }
    }
}
