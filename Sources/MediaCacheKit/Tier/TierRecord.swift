import Foundation

/// What the tier knows of one cache key: which object holds its bytes and what a cache
/// needs to file it (`PREFIX/keys/<key>.json`). Written only after its object is
/// complete; never holds request headers, and its URL has no query (tokens live there).
public struct TierRecord: Sendable, Codable, Equatable {
    /// Bumped when a field changes meaning; readers refuse records newer than they know.
    public static let currentFormat = 1

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

    public init(
        key: CacheKey, sha256: String, size: Int64, contentType: String?, faststart: FaststartState, etag: String?,
        lastModified: String?, url: String
    ) {
        format = Self.currentFormat
        self.key = key.hex
        self.sha256 = sha256
        self.size = size
        self.contentType = contentType
        self.faststart = faststart
        self.etag = etag
        self.lastModified = lastModified
        self.url = Self.urlWithoutSecrets(url)
    }

    private enum CodingKeys: String, CodingKey {
        case format, key, sha256, size, faststart, etag, url
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
        return record
    }

    /// `url` without query and fragment (tokens), and without a login in it.
    static func urlWithoutSecrets(_ url: String) -> String {
        var text = Substring(url)
        if let end = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = text[..<end] }
        if let scheme = text.range(of: "://") {
            let authorityEnd = text[scheme.upperBound...].firstIndex(of: "/") ?? text.endIndex
            if let at = text[scheme.upperBound..<authorityEnd].lastIndex(of: "@") {
                text = text[..<scheme.upperBound] + text[text.index(after: at)...]
            }
        }
        return String(text)
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
