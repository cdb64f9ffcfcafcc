/// One file to fetch, as a list describes it.
public struct ListEntry: Sendable, Codable, Equatable {
    /// The URL and its mirrors, in order of preference; never empty.
    public var urls: [String]
    /// `out=`: a display and export name, and the file's name in `directory`; never a path.
    public var outName: String?
    /// `dir=` or `-d`: a folder (absolute once the command has resolved it) where the
    /// finished file also appears; the cache keeps the object either way.
    public var directory: String?
    /// `header=` lines (`Name: value`), sent only to the host of the URL they belong to.
    public var headers: [String]
    /// `checksum=`: the digest the origin bytes must have.
    public var checksum: ExpectedChecksum?
    /// `cache-key=`: the identity of the object when its URLs carry expiring tokens.
    public var cacheKey: String?
    /// `max-download-limit=`: this file's bytes per second (0: unlimited), instead of
    /// `--max-download-limit`; nil when the entry does not say.
    public var maxDownloadLimit: Int64?
    /// `max-height=`, `max-bandwidth=`, `all-variants=`, `audio-lang=`: which renditions
    /// of a streaming title to fetch, instead of the run's options.
    public var renditions = RenditionOverrides()
    /// Where the entry was written (`list.txt:12`), for messages.
    public var origin: String?
    /// `user-agent=` and `referer=`: win over `--user-agent` and `--referer`.
    public var userAgent: String?
    public var referer: String?
    /// `all-proxy=`: wins over `--proxy` and the environment. Never saved with a job's
    /// state (it may hold a password): a resumed job takes the proxy of its command line.
    public var proxy: ProxyURL?
    /// `-o FILE`: the file named replaces one already there, as curl's `-o` does (`-d`
    /// and `out=` never replace a file). Not saved: a resumed job takes its command line's.
    public var replacesFile = false

    /// What job state saves: every field but `proxy` (a new field is saved only once
    /// it is listed here).
    enum CodingKeys: String, CodingKey {
        case urls, outName, directory, headers, checksum, cacheKey, origin, userAgent, referer, renditions
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        urls = try container.decode([String].self, forKey: .urls)
        outName = try container.decodeIfPresent(String.self, forKey: .outName)
        directory = try container.decodeIfPresent(String.self, forKey: .directory)
        headers = try container.decode([String].self, forKey: .headers)
        checksum = try container.decodeIfPresent(ExpectedChecksum.self, forKey: .checksum)
        cacheKey = try container.decodeIfPresent(String.self, forKey: .cacheKey)
        origin = try container.decodeIfPresent(String.self, forKey: .origin)
        userAgent = try container.decodeIfPresent(String.self, forKey: .userAgent)
        referer = try container.decodeIfPresent(String.self, forKey: .referer)
        // States saved before titles existed have none.
        renditions = try container.decodeIfPresent(RenditionOverrides.self, forKey: .renditions) ?? RenditionOverrides()
    }

    public init(
        urls: [String], outName: String? = nil, headers: [String] = [],
        checksum: ExpectedChecksum? = nil, cacheKey: String? = nil, maxDownloadLimit: Int64? = nil,
        origin: String? = nil
    ) {
        self.urls = urls
        self.outName = outName
        self.headers = headers
        self.checksum = checksum
        self.cacheKey = cacheKey
        self.maxDownloadLimit = maxDownloadLimit
        self.origin = origin
    }

    public var url: String { urls[0] }

    /// What the cache files this object under: the cache key, else the first URL
    /// (without its password, which is never stored).
    public var identity: String { cacheKey ?? URLCredentials.withoutPassword(urls[0]) }

    /// The name events and progress lines show, the one `ls` shows once it is cached:
    /// `out=`, else the URL without its password.
    public var displayName: String {
        if let outName, !outName.isEmpty { return outName }
        return URLCredentials.masked(url)
    }
}
