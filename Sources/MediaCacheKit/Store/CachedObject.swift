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
    /// `original`, `relocated` or `skipped(reason)`.
    public var faststart: String
    public var addedAt: Date
    public var lastUsedAt: Date
}
