import Foundation

/// What `serve` may fetch: each source URL that `mediacache url` made a local URL for,
/// with its headers, kept in the cache directory (`serve/`, mode 0600) and named by an
/// HMAC of the source under a per-cache secret. A local URL carries only that name, so
/// a page that guesses or alters one finds nothing and reaches no origin, and headers
/// (tokens) never appear in a URL.
public struct LocalSources: Sendable {
    public let directory: String
    private let secret: [UInt8]

    /// The sources of the cache at `cache`, making the secret on first use.
    public init(cache: CacheDirectory) throws {
        directory = cache.root + "/serve"
        try FileSystem.makeDirectory(directory, durable: false)
        try FileSystem.makeDirectory(directory + "/sources", durable: false)
        secret = try Self.secret(at: directory + "/secret")
    }

    /// Records `source` (if new) and returns its token.
    public func register(_ source: LocalSource) throws -> String {
        let (token, bytes) = try record(of: source)
        let path = self.path(token)
        if (try? FileSystem.readAll(path)) != bytes { try Self.write(bytes, to: path) }
        return token
    }

    /// The token `source` has (or will have once registered), without touching the disk.
    public func token(for source: LocalSource) throws -> String { try record(of: source).token }

    private func record(of source: LocalSource) throws -> (token: String, bytes: [UInt8]) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let bytes = Array(try encoder.encode(source))
        return (String(HMAC.sha256Hex(key: secret, message: bytes).prefix(40)), bytes)
    }

    /// The source a token names; nil for a token nobody made.
    public func source(token: String) -> LocalSource? {
        guard token.count == 40, token.allSatisfy({ $0.isHexDigit && !$0.isUppercase }),
            let bytes = try? FileSystem.readAll(path(token))
        else { return nil }
        return try? JSONDecoder().decode(LocalSource.self, from: Data(bytes))
    }

    private func path(_ token: String) -> String { directory + "/sources/" + token }

    /// Written under a name of its own first: `serve` and `url` may register at once.
    private static func write(_ bytes: [UInt8], to path: String) throws {
        let mine = path + ".\(getpid()).\(writes.next())"
        try FileSystem.writeAtomically(bytes, to: mine)
        do {
            try FileSystem.rename(mine, to: path)
        } catch {
            FileSystem.remove(mine)
            throw error
        }
    }

    private static let writes = Counter()

    /// 32 random bytes, made once per cache; two processes making it at once agree on
    /// one (link(2) never replaces). A damaged secret (another length) is replaced: a
    /// short key would make tokens guessable.
    private static func secret(at path: String) throws -> [UInt8] {
        if let existing = try? FileSystem.readAll(path), existing.count == 32 { return existing }
        var bytes = [UInt8](repeating: 0, count: 32)
        var generator = SystemRandomNumberGenerator()
        for index in bytes.indices { bytes[index] = generator.next() }
        let mine = path + ".\(getpid())"
        try FileSystem.writeAtomically(bytes, to: mine)
        defer { FileSystem.remove(mine) }
        if link(mine, path) != 0 {
            guard errno == EEXIST else { throw SystemError("link", path: path) }
            if (try? FileSystem.readAll(path))?.count != 32 { try FileSystem.rename(mine, to: path) }
        }
        let secret = try FileSystem.readAll(path)
        guard secret.count == 32 else { throw SystemError("read", path: path, code: EINVAL) }
        return secret
    }
}

/// A source URL as `mediacache url` was given it.
public struct LocalSource: Codable, Sendable, Equatable {
    public var url: String
    /// Sent only to the URL's own host, like a list entry's `header=` lines.
    public var headers: [String]
    public var cacheKey: String?

    public init(url: String, headers: [String] = [], cacheKey: String? = nil) {
        self.url = url
        self.headers = headers
        self.cacheKey = cacheKey
    }

    /// The list entry a download of it runs for.
    public var entry: ListEntry { ListEntry(urls: [url], headers: headers, cacheKey: cacheKey) }

    /// The last part of its local URL (`/m/TOKEN/NAME`): the source URL's file name, or
    /// `media`. Only that name answers: a player that resolves a relative name (a
    /// playlist's segment) against the local URL gets a 404, never this object's bytes.
    public var fileName: String {
        let name = URLParts(url)?.lastPathComponent ?? ""
        return name.isEmpty ? "media" : name
    }

    /// `fileName` as it is written in a URL path.
    public var pathName: String {
        fileName.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/")))
            ?? "media"
    }

    /// Whether a request's last path part (as sent, or decoded) is this source's name.
    public func isNamed(_ requested: String) -> Bool {
        requested == pathName || requested == fileName || requested.removingPercentEncoding == fileName
    }
}
