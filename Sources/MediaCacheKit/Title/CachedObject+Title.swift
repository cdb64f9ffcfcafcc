/// A cached title is one object whose `path` is its local master playlist or MPD,
/// `objects/ab/<key>.title/index.m3u8`, in a directory that holds the rest of it: a
/// folder per rendition (its media playlist, init sections, segments, keys) and
/// `title.json`. Its `size` is all of those together; its `sha256` is the manifest's.
extension CachedObject {
    /// The extension of a title's directory: never a file's, whose extensions are
    /// short alphanumerics taken from a URL but never chosen for a directory.
    public static let titleDirectoryExtension = "title"

    /// Whether this object is a streaming title rather than a file.
    public var isTitle: Bool { titleDirectory != nil }

    /// The title's directory, relative to the cache root; nil for a file.
    public var titleDirectory: String? {
        guard let slash = path.lastIndex(of: "/") else { return nil }
        let directory = path[..<slash]
        guard directory.hasSuffix("." + Self.titleDirectoryExtension) else { return nil }
        let entry = path[path.index(after: slash)...]
        guard entry == TitleLayout.hlsEntry || entry == TitleLayout.dashEntry else { return nil }
        return String(directory)
    }

    /// What removing the object from disk takes away: the title's directory, or the file.
    public var storedPath: String { titleDirectory ?? path }
}

/// Where a title's files go, relative to the cache root and to the title's directory.
public enum TitleLayout {
    public static let hlsEntry = "index.m3u8"
    public static let dashEntry = "index.mpd"

    /// `objects/ab/<key>.title`.
    public static func directory(key: CacheKey) -> String {
        "objects/\(key.hex.prefix(2))/\(key.hex).\(CachedObject.titleDirectoryExtension)"
    }

    public static func entry(for format: PresentationFormat) -> String {
        format == .hls ? hlsEntry : dashEntry
    }

    /// Where a title is assembled while it downloads: `partial/<key>.title`, beside (not
    /// inside) the partial file a first request of its URL may leave.
    public static func staging(key: CacheKey, in cache: CacheDirectory) -> String {
        cache.jobDirectory(key: key) + "." + CachedObject.titleDirectoryExtension
    }

    /// The key whose staging folder the entry `name` of `partial/` is, if it is one.
    static func stagingKey(ofPartialEntry name: String) -> CacheKey? {
        let suffix = "." + CachedObject.titleDirectoryExtension
        return name.hasSuffix(suffix) ? CacheKey(hex: String(name.dropLast(suffix.count))) : nil
    }

    /// The download's progress: which resources are held, with their sizes and digests.
    public static let progressFile = "progress.json"
    /// The title's entry and headers as a `JobState`, for `status` and `resume`.
    public static let stateFile = "state"
    /// The files being assembled, relative paths as in the committed title.
    public static let filesFolder = "files"
    /// A title being pulled from the tier: `title.json` and the files, as in the
    /// committed title, kept for the next pull to go on from.
    public static let pullFolder = "pull"
}
