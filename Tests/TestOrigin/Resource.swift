/// A body served at a path, with its validators and scripted faults.
public struct Resource: Sendable {
    public enum Body: Sendable {
        case bytes([UInt8])
        /// Served with `pread` in chunks, so it may be arbitrarily large.
        case file(String)
    }

    public var body: Body
    public var contentType: String
    /// Sent as `ETag` and matched against `If-Range` when non-nil.
    public var etag: String?
    /// Sent as `Last-Modified` and matched against a date `If-Range` when non-nil.
    public var lastModified: String?
    public var faults: Faults
    /// A cookie or login the request must carry (none by default).
    public var access = AccessRule()
    /// Sent as `Content-Disposition` with every answer of the file when non-nil.
    public var contentDisposition: String?

    /// The default for `etag:`/`lastModified:` parameters: derive a value.
    /// (A sentinel, so that passing `nil` explicitly still means "send none".)
    public static let automatic: String? = "\u{0}automatic"
    /// The fixed date used for `lastModified` by default, so tests are reproducible.
    public static let defaultLastModified = "Wed, 21 Oct 2015 07:28:00 GMT"

    public init(
        _ bytes: [UInt8],
        contentType: String = "application/octet-stream",
        etag: String? = Resource.automatic,
        lastModified: String? = Resource.automatic,
        faults: Faults = Faults()
    ) {
        self.init(body: .bytes(bytes), contentType: contentType, etag: etag, lastModified: lastModified, faults: faults)
    }

    /// A file body. The default ETag reads only the file's first and last 64 KiB
    /// (computed now; nil if the file cannot be read now).
    public init(
        file path: String,
        contentType: String = "application/octet-stream",
        etag: String? = Resource.automatic,
        lastModified: String? = Resource.automatic,
        faults: Faults = Faults()
    ) {
        self.init(body: .file(path), contentType: contentType, etag: etag, lastModified: lastModified, faults: faults)
    }

    public init(body: Body, contentType: String, etag: String?, lastModified: String?, faults: Faults) {
        self.body = body
        self.contentType = contentType
        self.etag = etag == Resource.automatic ? Resource.derivedETag(for: body) : etag
        self.lastModified = lastModified == Resource.automatic ? Resource.defaultLastModified : lastModified
        self.faults = faults
    }

    /// A resource that sends neither `ETag` nor `Last-Modified`.
    public static func noValidators(
        _ bytes: [UInt8], contentType: String = "application/octet-stream", faults: Faults = Faults()
    ) -> Resource {
        Resource(body: .bytes(bytes), contentType: contentType, etag: nil, lastModified: nil, faults: faults)
    }

    public static func noValidators(
        file path: String, contentType: String = "application/octet-stream", faults: Faults = Faults()
    ) -> Resource {
        Resource(body: .file(path), contentType: contentType, etag: nil, lastModified: nil, faults: faults)
    }

    /// A strong ETag `"<length>-<fnv1a64 of first and last 64 KiB>"`: cheap even for
    /// 1 GiB files, identical for equal bytes whether served from memory or a file.
    static func derivedETag(for body: Body) -> String? {
        guard let content = ContentSource(body) else { return nil }
        let window = 64 * 1024
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ bytes: [UInt8]) {
            for byte in bytes {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01b3
            }
        }
        if content.length <= 2 * window {
            mix(content.bytes(at: 0, count: content.length))
        } else {
            mix(content.bytes(at: 0, count: window))
            mix(content.bytes(at: content.length - window, count: window))
        }
        let hex = String(hash, radix: 16)
        return "\"\(content.length)-\(String(repeating: "0", count: 16 - hex.count))\(hex)\""
    }
}
