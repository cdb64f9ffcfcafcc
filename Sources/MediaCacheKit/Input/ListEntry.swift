/// One file to fetch, as a list describes it.
public struct ListEntry: Sendable, Codable, Equatable {
    /// The URL and its mirrors, in order of preference; never empty.
    public var urls: [String]
    /// `out=`: a display and export name only, never a path.
    public var outName: String?
    /// `header=` lines (`Name: value`), sent only to the host of the URL they belong to.
    public var headers: [String]
    /// `checksum=`: the digest the origin bytes must have.
    public var checksum: ExpectedChecksum?
    /// `cache-key=`: the identity of the object when its URLs carry expiring tokens.
    public var cacheKey: String?
    /// Where the entry was written (`list.txt:12`), for messages.
    public var origin: String?

    public init(
        urls: [String], outName: String? = nil, headers: [String] = [],
        checksum: ExpectedChecksum? = nil, cacheKey: String? = nil, origin: String? = nil
    ) {
        self.urls = urls
        self.outName = outName
        self.headers = headers
        self.checksum = checksum
        self.cacheKey = cacheKey
        self.origin = origin
    }

    public var url: String { urls[0] }

    /// What the cache files this object under: the cache key, else the first URL.
    public var identity: String { cacheKey ?? urls[0] }

    /// A short name for progress lines: `out=`, else the last path component of the URL.
    public var displayName: String {
        if let outName, !outName.isEmpty { return outName }
        return URLParts(url)?.lastPathComponent ?? url
    }
}
