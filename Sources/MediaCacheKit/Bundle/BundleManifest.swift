import Foundation

/// `manifest.json`, the first entry of every bundle: what the bundle holds and what each
/// object must hash to. Import trusts nothing in the archive that this does not vouch for,
/// and trusts this only after `BundleManifestCodec.decode` has checked it.
public struct BundleManifest: Sendable, Codable, Equatable {
    /// Bumped whenever the meaning of a field changes; newer versions are refused.
    public static let currentVersion = 1
    public static let formatName = "mediacache-bundle"

    public var format: String = BundleManifest.formatName
    public var version: Int = BundleManifest.currentVersion
    public var created: Date
    /// `mediacache <version>`, for bug reports.
    public var generator: String
    public var entries: [Entry]

    public init(created: Date, generator: String, entries: [Entry]) {
        self.created = created
        self.generator = generator
        self.entries = entries
    }

    /// One object. Never carries request headers; URLs are as `TokenRedaction` left them.
    public struct Entry: Sendable, Codable, Equatable {
        /// Hex SHA-256 of `cacheKey`: the object's identity in every cache.
        public var key: String
        /// `objects/<key>.<ext>`, the entry name inside the bundle.
        public var path: String
        public var url: String
        public var mirrors: [String]
        public var cacheKey: String
        /// `out=`: a display name only.
        public var name: String?
        public var size: Int64
        public var sha256: String
        public var contentType: String?
        /// As the index records it, in the same text.
        public var faststart: FaststartState
        public var validators: Validators
        public var added: Date
        /// True when `url` and `mirrors` lost their query (expiring tokens): they are
        /// shown, but only the cache key names the object after import.
        public var urlsRedacted: Bool
        /// Set for a streaming title: `path` is then `objects/<key>.title`, a folder whose
        /// `title.json` comes first (its SHA-256 is `sha256`) and lists every other file;
        /// `size` is all of them together. Absent for a file, so bundles without titles
        /// read as before.
        public var title: TitleInfo? = nil
        /// The file's name as its origin gave it (`Content-Disposition`); absent when none.
        public var originName: String? = nil

        public struct TitleInfo: Sendable, Codable, Equatable {
            public var format: PresentationFormat
            /// Files besides `title.json`.
            public var files: Int
            public var segments: Int
        }

        public var isTitle: Bool { title != nil }

        public struct Validators: Sendable, Codable, Equatable {
            public var etag: String?
            public var lastModified: String?

            enum CodingKeys: String, CodingKey {
                case etag
                case lastModified = "last_modified"
            }
        }

        enum CodingKeys: String, CodingKey {
            case key, path, url, mirrors, name, size, sha256, faststart, validators, added, title
            case cacheKey = "cache_key"
            case contentType = "content_type"
            case urlsRedacted = "urls_redacted"
            case originName = "origin_name"
        }

        /// The names `path` accepts for the object after import.
        var aliases: [String] {
            urlsRedacted ? [cacheKey] : [url] + mirrors + [cacheKey]
        }
    }
}

/// Reads and writes `manifest.json`, refusing anything malformed before it is used.
enum BundleManifestCodec {
    /// A larger manifest is refused unread: about 200k objects fit in 64 MiB.
    static let maximumSize = 64 << 20
    static let maximumStringBytes = 64 << 10
    static let maximumMirrors = 64
    /// Sizes add up to at most this (1 EiB), so totals and read limits never overflow.
    static let maximumTotalSize: Int64 = 1 << 60

    private struct Header: Decodable {
        var format: String
        var version: Int
    }

    static func encode(_ manifest: BundleManifest) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return Array(try encoder.encode(manifest))
    }

    static func decode(_ bytes: [UInt8], bundle: String) throws(BundleError) -> BundleManifest {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let data = Data(bytes)
        guard let header = try? decoder.decode(Header.self, from: data), header.format == BundleManifest.formatName else {
            throw .malformedManifest(bundle: bundle, reason: "not a mediacache bundle manifest")
        }
        guard header.version == BundleManifest.currentVersion else {
            throw .unsupportedVersion(bundle: bundle, version: header.version)
        }
        let manifest: BundleManifest
        do {
            manifest = try decoder.decode(BundleManifest.self, from: data)
        } catch {
            throw .malformedManifest(bundle: bundle, reason: describe(error))
        }
        if let problem = problem(in: manifest) {
            throw .malformedManifest(bundle: bundle, reason: problem)
        }
        return manifest
    }

    /// The first inconsistency found, or nil when every entry can be trusted as a claim.
    static func problem(in manifest: BundleManifest) -> String? {
        var keys: Set<String> = []
        var total: Int64 = 0
        for (index, entry) in manifest.entries.enumerated() {
            let at = "entry \(index + 1)"
            guard let key = CacheKey(hex: entry.key) else { return "\(at): key is not 64 lowercase hex digits" }
            guard keys.insert(entry.key).inserted else { return "\(at): key \(entry.key) is listed twice" }
            let strings = [entry.url, entry.cacheKey, entry.faststart.rawValue] + entry.mirrors
                + [entry.name, entry.contentType, entry.validators.etag, entry.validators.lastModified, entry.originName]
                .compactMap { $0 }
            if strings.contains(where: { $0.utf8.count > maximumStringBytes }) { return "\(at): a field is too long" }
            // These become headers when the object is served.
            let headerValues = [entry.contentType, entry.validators.etag, entry.validators.lastModified].compactMap { $0 }
            if headerValues.contains(where: HeaderValueCheck.hasControlCharacters) {
                return "\(at): its content type or validators hold control characters"
            }
            if entry.url.isEmpty || entry.cacheKey.isEmpty { return "\(at): empty URL or cache key" }
            if entry.mirrors.count > maximumMirrors { return "\(at): more than \(maximumMirrors) mirrors" }
            // The key is derived, never taken on trust: it decides where the file lands
            // and which names answer for it.
            guard CacheKey(identity: entry.cacheKey) == key else {
                return "\(at): key is not the SHA-256 of its cache key"
            }
            if entry.isTitle {
                guard entry.path == EntryPathPolicy.titlePath(key: key) else {
                    return "\(at): path \(Printable.name(entry.path)) is not objects/<key>.title"
                }
            } else {
                guard let (pathKey, _) = EntryPathPolicy.parseObjectPath(entry.path), pathKey == key else {
                    return "\(at): path \(Printable.name(entry.path)) is not objects/<key>.<ext>"
                }
            }
            guard entry.size >= 0 else { return "\(at): negative size" }
            guard entry.size <= maximumTotalSize - total else { return "\(at): sizes add up to more than 1 EiB" }
            total += entry.size
            guard isHexDigest(entry.sha256) else { return "\(at): sha256 is not 64 lowercase hex digits" }
        }
        return nil
    }

    private static func isHexDigest(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    private static func describe(_ error: Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context), DecodingError.typeMismatch(_, let context),
            DecodingError.valueNotFound(_, let context):
            return context.codingPath.isEmpty
                ? context.debugDescription
                : "\(path(context.codingPath)): \(context.debugDescription)"
        case DecodingError.keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])) is missing"
        default:
            return "\(error)"
        }
    }

    private static func path(_ keys: [CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            .replacingOccurrences(of: ".[", with: "[")
    }
}
