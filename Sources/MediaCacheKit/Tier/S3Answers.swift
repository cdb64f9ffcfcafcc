import Foundation

/// One object of a listing (ListObjectsV2).
public struct S3ObjectSummary: Sendable, Equatable {
    public var key: String
    public var size: Int64
    public var etag: String
    public var lastModified: Date?
}

/// What HeadObject says of an object.
public struct S3ObjectInfo: Sendable, Equatable {
    public var size: Int64
    public var etag: String?
    public var lastModified: String?
    public var contentType: String?
}

/// A multipart upload begun and neither completed nor aborted (ListMultipartUploads).
public struct S3MultipartUpload: Sendable, Equatable {
    public var key: String
    public var uploadID: String
    public var initiated: Date?
}

/// A part the store holds of a multipart upload: what CompleteMultipartUpload names.
public struct S3UploadedPart: Sendable, Codable, Equatable {
    /// 1-based, as S3 numbers parts.
    public var number: Int
    /// As the store sent it (usually in double quotes).
    public var etag: String

    public init(number: Int, etag: String) {
        self.number = number
        self.etag = etag
    }

    /// Whether both name the same bytes: some stores quote ETags in one answer and not
    /// in another.
    func sameETag(as other: String) -> Bool { Self.unquoted(etag) == Self.unquoted(other) }

    static func unquoted(_ etag: String) -> String {
        etag.trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
    }
}

/// The pieces of S3's XML answers the client reads. Each returns nil when the element
/// lacks what S3 always sends, which the client reports as an invalid answer.
enum S3Answers {
    /// `<Error><Code>…</Code><Message>…</Message></Error>`.
    static func error(_ root: S3XMLElement) -> (code: String, message: String)? {
        guard root.name == "Error", let code = root.text("Code") else { return nil }
        return (code, root.text("Message") ?? "")
    }

    struct ObjectsPage {
        var objects: [S3ObjectSummary]
        /// The token for the next page; nil on the last one.
        var continuationToken: String?
    }

    static func objectsPage(_ root: S3XMLElement) -> ObjectsPage? {
        guard root.name == "ListBucketResult" else { return nil }
        var objects: [S3ObjectSummary] = []
        for item in root.children("Contents") {
            guard let key = item.text("Key"), let size = item.text("Size").flatMap({ Int64($0) }) else { return nil }
            objects.append(
                S3ObjectSummary(
                    key: key, size: size, etag: item.text("ETag") ?? "", lastModified: item.text("LastModified").flatMap(date)))
        }
        let truncated = root.text("IsTruncated") == "true"
        let token = root.text("NextContinuationToken").flatMap { $0.isEmpty ? nil : $0 }
        if truncated && token == nil { return nil }
        return ObjectsPage(objects: objects, continuationToken: truncated ? token : nil)
    }

    static func uploadID(_ root: S3XMLElement) -> String? {
        guard root.name == "InitiateMultipartUploadResult", let id = root.text("UploadId"), !id.isEmpty else { return nil }
        return id
    }

    static func completedETag(_ root: S3XMLElement) -> String? {
        guard root.name == "CompleteMultipartUploadResult" else { return nil }
        return root.text("ETag") ?? ""
    }

    struct UploadsPage {
        var uploads: [S3MultipartUpload]
        /// Markers for the next page; nil on the last one.
        var next: (keyMarker: String, uploadIDMarker: String)?
    }

    static func uploadsPage(_ root: S3XMLElement) -> UploadsPage? {
        guard root.name == "ListMultipartUploadsResult" else { return nil }
        var uploads: [S3MultipartUpload] = []
        for item in root.children("Upload") {
            guard let key = item.text("Key"), let id = item.text("UploadId") else { return nil }
            uploads.append(S3MultipartUpload(key: key, uploadID: id, initiated: item.text("Initiated").flatMap(date)))
        }
        guard root.text("IsTruncated") == "true" else { return UploadsPage(uploads: uploads, next: nil) }
        guard let key = root.text("NextKeyMarker"), let id = root.text("NextUploadIdMarker"), !(key.isEmpty && id.isEmpty)
        else { return nil }
        return UploadsPage(uploads: uploads, next: (key, id))
    }

    struct PartsPage {
        var parts: [S3UploadedPart]
        var nextMarker: Int?
    }

    static func partsPage(_ root: S3XMLElement) -> PartsPage? {
        guard root.name == "ListPartsResult" else { return nil }
        var parts: [S3UploadedPart] = []
        for item in root.children("Part") {
            guard let number = item.text("PartNumber").flatMap({ Int($0) }), let etag = item.text("ETag") else {
                return nil
            }
            parts.append(S3UploadedPart(number: number, etag: etag))
        }
        guard root.text("IsTruncated") == "true" else { return PartsPage(parts: parts, nextMarker: nil) }
        guard let marker = root.text("NextPartNumberMarker").flatMap({ Int($0) }) else { return nil }
        return PartsPage(parts: parts, nextMarker: marker)
    }

    /// S3's timestamps: `2026-11-23T14:39:00Z`, with or without fractional seconds.
    static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}
