import Foundation

/// What the tier knows of one cache key: which object holds its bytes and what a cache
/// needs to file it (`PREFIX/keys/<key>.json`). Written only after its object is
/// complete; never holds request headers, and its URL has no query (tokens live there).
public struct TierRecord: Sendable, Codable, Equatable {
    /// Bumped when a field changes meaning; readers refuse records newer than they know.
    /// A file's record is still written as format 1, which every version reads; a
    /// title's is format 2, so a version that cannot pull titles says to upgrade.
    public static let currentFormat = 2
    static let fileFormat = 1

    public var format: Int
    /// Hex SHA-256 of the cache key (the record's name).
    public var key: String
    /// Of the stored bytes: names the object, and the reader checks what it fetched.
    public var sha256: String
    public var size: Int64
    public var contentType: String?
    public var faststart: FaststartState
    /// The origin's validators for the version these bytes came from.
    public var etag: String?
    public var lastModified: String?
    /// The origin URL without query, fragment or login.
    public var url: String
    /// The `cache-key=` the object was cached under, when it has one (a key chosen
    /// because its URLs carry expiring tokens); nil when the URL is the identity.
    public var cacheKey: String?
    /// Set for a streaming title: the size of its `title.json`, which starts its pack
    /// (`TitlePack`); `sha256` is then `title.json`'s and `size` the whole pack's.
    public var titleManifestSize: Int64?

    public var isTitle: Bool { titleManifestSize != nil }

    public init(
        key: CacheKey, sha256: String, size: Int64, contentType: String?, faststart: FaststartState, etag: String?,
        lastModified: String?, url: String, cacheKey: String? = nil, titleManifestSize: Int64? = nil
    ) {
        format = titleManifestSize == nil ? Self.fileFormat : Self.currentFormat
        self.key = key.hex
        self.sha256 = sha256
        self.size = size
        self.contentType = contentType
        self.faststart = faststart
        self.etag = etag
        self.lastModified = lastModified
        self.url = TokenRedaction.stripped(url)
        self.cacheKey = cacheKey
        self.titleManifestSize = titleManifestSize
    }

    /// The record of a cached object, as a push writes it; for a title,
    /// `titleManifestSize` is its `title.json`'s size.
    public init(of object: CachedObject, titleManifestSize: Int64? = nil) {
        self.init(
            key: CacheKey(hex: object.key) ?? CacheKey(identity: object.cacheKey), sha256: object.sha256,
            size: object.size, contentType: object.contentType, faststart: object.faststart, etag: object.etag,
            lastModified: object.lastModified, url: object.url,
            cacheKey: object.cacheKey == object.url || object.cacheKey.isEmpty ? nil : object.cacheKey,
            titleManifestSize: titleManifestSize)
    }

    /// A list entry that names this record's key, for fetching it without a list
    /// (`pull` with no URLs); nil when the key was a URL with a query, which the record
    /// does not keep.
    public func listEntry() -> ListEntry? {
        let entry = ListEntry(urls: [url], cacheKey: cacheKey)
        return CacheKey(identity: entry.identity).hex == key ? entry : nil
    }

    private enum CodingKeys: String, CodingKey {
        case format, key, sha256, size, faststart, etag, url
        case cacheKey = "cache_key"
        case titleManifestSize = "title_manifest_size"
        case contentType = "content_type"
        case lastModified = "last_modified"
    }

    /// The record as stored: JSON with sorted keys.
    public func encoded() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Every field encodes; a failure here would be a broken invariant.
        return Array(try! encoder.encode(self))
    }

    /// Reads a record fetched from the tier, which anyone with write access may have
    /// written: the format is read first, and the fields that name objects are checked.
    public static func decode(_ bytes: [UInt8]) throws(TierRecordError) -> TierRecord {
        struct Header: Decodable { var format: Int }
        let data = Data(bytes)
        guard let header = try? JSONDecoder().decode(Header.self, from: data) else {
            throw .unreadable("not a JSON record with a format number")
        }
        guard header.format <= currentFormat else { throw .newerFormat(header.format) }
        let record: TierRecord
        do {
            record = try JSONDecoder().decode(TierRecord.self, from: data)
        } catch {
            throw .unreadable("\(error)")
        }
        guard CacheKey(hex: record.key) != nil else { throw .unreadable("its key is not a SHA-256") }
        guard CacheKey(hex: record.sha256) != nil else { throw .unreadable("its sha256 is not a SHA-256 in hex") }
        guard record.size >= 0 else { throw .unreadable("its size is negative") }
        if let manifestSize = record.titleManifestSize, !(1...record.size).contains(manifestSize) {
            throw .unreadable("its title manifest size is not within its size")
        }
        let texts = [record.url, record.contentType, record.etag, record.lastModified, record.cacheKey].compactMap { $0 }
        guard !texts.contains(where: HeaderValueCheck.hasControlCharacters) else {
            throw .unreadable("a field holds control characters (CR, LF or the like)")
        }
        return record
    }
}

/// Why a record from the tier cannot be used.
public enum TierRecordError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(String)
    case newerFormat(Int)

    public var description: String {
        switch self {
        case .unreadable(let reason): "the record cannot be read: \(reason)"
        case .newerFormat(let format):
            "the record has format \(format), newer than this mediacache reads (\(TierRecord.currentFormat)): upgrade it"
        }
    }
}
