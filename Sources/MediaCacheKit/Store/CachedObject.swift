import Foundation
import GRDB

/// One complete, verified object: a row of the index.
public struct CachedObject: Sendable, Codable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "objects"
    public static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    public static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase

    /// Hex SHA-256 of `cacheKey`.
    public var key: String
    public var cacheKey: String
    public var url: String
    public var mirrors: [String]
    public var name: String?
    /// Relative to the cache root.
    public var path: String
    public var size: Int64
    /// Of the stored bytes.
    public var sha256: String
    public var contentType: String?
    public var etag: String?
    public var lastModified: String?
    public var faststart: FaststartState
    public var addedAt: Date
    public var lastUsedAt: Date
    /// The file's name as the origin gave it (`Content-Disposition`): the name `-d` gives
    /// it without `out=`. Nil when the origin gave none, or the row predates it.
    public var originName: String? = nil
}

extension CachedObject {
    /// A row for the object stored at `path` under `key`, as a commit, an import or an
    /// index rebuild makes it: what the source does not know (a rebuilt index knows no
    /// URL, names or validators) stays empty.
    init(
        key: CacheKey, cacheKey: String, path: String, size: Int64, sha256: String, faststart: FaststartState,
        url: String = "", mirrors: [String] = [], name: String? = nil, contentType: String? = nil,
        validators: (etag: String?, lastModified: String?) = (nil, nil), addedAt: Date, lastUsedAt: Date,
        originName: String? = nil
    ) {
        self.init(
            key: key.hex, cacheKey: cacheKey, url: url, mirrors: mirrors, name: name, path: path, size: size,
            sha256: sha256, contentType: contentType, etag: validators.etag, lastModified: validators.lastModified,
            faststart: faststart, addedAt: addedAt, lastUsedAt: lastUsedAt, originName: originName)
    }
}

extension CachedObject {
    /// The name `ls`, the status page and events show, and that `path`, `info` and `rm`
    /// accept: the `out=` name, else the URL without its password. An object whose URL is
    /// not known (a rebuilt index) is shown by its path.
    public var shownName: String {
        if let name, !name.isEmpty { return name }
        return url.isEmpty ? "(URL not known yet) \(path)" : URLCredentials.masked(url)
    }
}

/// Rows are written and read by hand: GRDB's Codable path converts every column name
/// and formats dates with ICU, which dominated the cost of committing a small file.
extension CachedObject {
    public init(row: Row) throws {
        key = row["key"]
        cacheKey = row["cache_key"]
        url = row["url"]
        mirrors = Self.decodeMirrors(row["mirrors"])
        name = row["name"]
        path = row["path"]
        size = row["size"]
        sha256 = row["sha256"]
        contentType = row["content_type"]
        etag = row["etag"]
        lastModified = row["last_modified"]
        faststart = FaststartState(rawValue: row["faststart"])
        addedAt = Self.date(row["added_at"])
        lastUsedAt = Self.date(row["last_used_at"])
        // Nil in an index no version since has migrated (a read-only one).
        originName = row["origin_name"]
    }

    public func encode(to container: inout PersistenceContainer) throws {
        for (column, value) in zip(Self.columns, rowValues) { container[column] = value }
    }

    static let columns = [
        "key", "cache_key", "url", "mirrors", "name", "path", "size", "sha256", "content_type", "etag",
        "last_modified", "faststart", "added_at", "last_used_at", "origin_name",
    ]

    /// Inserts or replaces a row with `rowArguments`, without the record machinery (a
    /// prepared statement: the commit of many small files records many rows).
    static let replaceSQL =
        "INSERT OR REPLACE INTO objects (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))"

    var rowArguments: StatementArguments { StatementArguments(rowValues) }

    /// The row's values, in the order of `columns`.
    private var rowValues: [(any DatabaseValueConvertible)?] {
        [
            key, cacheKey, url, Self.encodeMirrors(mirrors), name, path, size, sha256, contentType, etag,
            lastModified, faststart.rawValue, IndexDate.text(addedAt), IndexDate.text(lastUsedAt), originName,
        ]
    }

    /// A JSON array of strings, as GRDB's Codable encoding stored it.
    static func encodeMirrors(_ mirrors: [String]) -> String {
        guard !mirrors.isEmpty, let data = try? JSONEncoder().encode(mirrors) else { return "[]" }
        return String(decoding: data, as: UTF8.self)
    }

    static func decodeMirrors(_ text: String?) -> [String] {
        guard let text, text != "[]" else { return [] }
        return (try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? []
    }

    private static func date(_ value: DatabaseValue) -> Date {
        if let text = String.fromDatabaseValue(value), let date = IndexDate.date(text) { return date }
        return Date.fromDatabaseValue(value) ?? Date(timeIntervalSince1970: 0)
    }
}
