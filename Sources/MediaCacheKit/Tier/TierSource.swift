import Foundation

/// The tier as a place downloads read from (`--tier`, `pull`): looks up each key's
/// record, and says how to ask the store for a record's object, so a download fetches
/// a file's copy in ranges like any origin's file (a title's pack comes back whole).
///
/// The first time the tier as a whole fails (unreachable, credentials, bucket), it is
/// reported once and not asked again in this run: every later download goes to the
/// origin at once instead of waiting for the same failure.
public final class TierSource: Sendable {
    /// What to do when the tier has no usable copy of a file.
    public enum Fallback: Sendable, Equatable {
        /// Fetch it from the origin (`--tier`); with `required`, a tier that cannot be
        /// used at all fails the files instead.
        case origin(required: Bool)
        /// Fetch nothing from the origin: `pull`.
        case none
    }

    public let store: TierStore
    public let fallback: Fallback
    private let trouble: @Sendable (TierError) -> Void
    private let unusable = LockedValue<TierError?>(nil)

    /// `trouble` hears once, from any thread, that the tier as a whole cannot be used.
    /// Record lookups use `store`'s client as configured: give it short timeouts, since
    /// a download waits for them.
    public init(store: TierStore, fallback: Fallback, trouble: @escaping @Sendable (TierError) -> Void) {
        self.store = store
        self.fallback = fallback
        self.trouble = trouble
    }

    /// The answer for one key.
    enum Lookup: Sendable, Equatable {
        /// A file's copy, read in ranges like any origin's file.
        case found(TierRecord)
        /// A streaming title's pack, which comes back whole (`TierTitlePuller`).
        case title(TierRecord)
        /// The tier holds no record for the key.
        case notFound
        /// This record cannot be used (unreadable, newer format): the reason.
        case unusableRecord(String)
        /// The tier as a whole cannot be used in this run.
        case tierUnusable(TierError)
    }

    /// Why the tier is not used any more in this run, if it is not.
    public var unusableBecause: TierError? { unusable.withLock { $0 } }

    /// Looks up `key`'s record on the transfer loop, with the downloads' connections (call
    /// on its thread); `completion` runs there.
    func lookUp(_ key: CacheKey, on loop: TransferLoop, completion: @escaping (Lookup) -> Void) {
        if let error = unusableBecause { return completion(.tierUnusable(error)) }
        store.record(for: key, on: loop) { [self] answer in completion(lookup(answer)) }
    }

    private func lookup(_ answer: Result<TierRecord?, TierError>) -> Lookup {
        switch answer {
        case .success(let record?) where record.isTitle: return .title(record)
        case .success(let record?): return .found(record)
        case .success(nil): return .notFound
        case .failure(let error) where error.stopsTheTier || error.isTransient:
            markUnusable(error)
            return .tierUnusable(unusableBecause ?? error)
        case .failure(let error): return .unusableRecord("\(error)")
        }
    }

    /// The tier failed as a whole (found by a lookup or a download): not used again in
    /// this run, and said once.
    public func markUnusable(_ error: TierError) {
        let first = unusable.withLock { current -> Bool in
            guard current == nil else { return false }
            current = error
            return true
        }
        if first { trouble(error) }
    }

    /// The URL of `record`'s object and how to sign requests for it. The signing value
    /// holds the credentials: it goes into requests, never into saved state or events.
    func objectRequest(for record: TierRecord) -> (url: String, signing: S3Signing) {
        (store.client.url(forKey: store.layout.objectKey(for: record)), store.client.bodylessSigning)
    }

    /// `s3://BUCKET/KEY` of `record`'s object, for messages.
    public func objectName(for record: TierRecord) -> String {
        "s3://\(store.layout.location.bucket)/\(store.layout.objectKey(for: record))"
    }
}
