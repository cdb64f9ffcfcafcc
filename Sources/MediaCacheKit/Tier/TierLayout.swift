/// Where the tier keeps things in its bucket: objects by content
/// (`PREFIX/objects/<sha256>`), so two caches pushing the same bytes write the same key,
/// streaming titles as one pack each (`PREFIX/titles/<sha256 of title.json>`, see
/// `TitlePack`), and one small record per cache key (`PREFIX/keys/<cache key hex>.json`).
public struct TierLayout: Sendable, Equatable {
    public let location: TierLocation

    public init(location: TierLocation) {
        self.location = location
    }

    public func objectKey(sha256: String) -> String { location.key("objects/" + sha256) }

    /// A streaming title's pack (`TitlePack`), by its `title.json`'s SHA-256.
    public func titleKey(sha256: String) -> String { location.key("titles/" + sha256) }

    /// Where `record`'s bytes are: a file's object, or a title's pack.
    public func objectKey(for record: TierRecord) -> String {
        record.isTitle ? titleKey(sha256: record.sha256) : objectKey(sha256: record.sha256)
    }

    public func recordKey(for key: CacheKey) -> String { location.key("keys/" + key.hex + ".json") }

    /// What every object key starts with.
    public var objectsPrefix: String { location.key("objects/") }

    /// What every record key starts with.
    public var recordsPrefix: String { location.key("keys/") }

    /// The cache key a record key names; nil for anything else under the prefix.
    public func cacheKey(fromRecordKey objectKey: String) -> CacheKey? {
        guard objectKey.hasPrefix(recordsPrefix), objectKey.hasSuffix(".json") else { return nil }
        return CacheKey(hex: String(objectKey.dropFirst(recordsPrefix.count).dropLast(5)))
    }
}
