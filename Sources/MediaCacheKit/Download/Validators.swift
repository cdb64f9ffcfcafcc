/// What identifies one version of an origin file.
public struct Validators: Sendable, Codable, Equatable {
    public var etag: String?
    public var lastModified: String?
    public var length: Int64?

    public init(etag: String? = nil, lastModified: String? = nil, length: Int64? = nil) {
        self.etag = etag
        self.lastModified = lastModified
        self.length = length
    }

    /// Whether the origin sent anything that identifies the version.
    public var canIdentifyVersion: Bool { strongETag != nil || lastModified != nil }

    /// Weak ETags may not be used with If-Range (RFC 9110 §13.1.5).
    public var strongETag: String? {
        guard let etag, !etag.hasPrefix("W/") else { return nil }
        return etag
    }

    /// The `If-Range` value that makes a changed origin answer 200 instead of a stale range.
    public var ifRangeValue: String? { strongETag ?? lastModified }

    /// What `other` (from a later response) says differently, for messages: "its length
    /// changed from 2097152 to 1048576 bytes"; nil when nothing conflicts.
    public func differences(from other: Validators) -> String? {
        var changes: [String] = []
        if let a = length, let b = other.length, a != b { changes.append("length changed from \(a) to \(b) bytes") }
        if let a = etag, let b = other.etag, a != b { changes.append("ETag changed from \(a) to \(b)") }
        if let a = lastModified, let b = other.lastModified, a != b {
            changes.append("Last-Modified changed from \(a) to \(b)")
        }
        return changes.isEmpty ? nil : "its " + changes.joined(separator: ", ")
    }

    /// True when both name the same version by a strong ETag or a Last-Modified date,
    /// whatever else they say: a length that differs then is the origin contradicting itself.
    public func nameSameVersion(as other: Validators) -> Bool {
        if let a = strongETag, let b = other.strongETag { return a == b }
        if etag == nil, other.etag == nil, let a = lastModified, let b = other.lastModified { return a == b }
        return false
    }

    /// True when `other` (from a later response) describes a different version.
    public func conflicts(with other: Validators) -> Bool {
        if let a = length, let b = other.length, a != b { return true }
        if let a = etag, let b = other.etag { return a != b }
        if let a = lastModified, let b = other.lastModified { return a != b }
        // Some servers omit validators on 206 responses: absence is not a change.
        return false
    }
}
