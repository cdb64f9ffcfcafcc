import Foundation

/// What `serve` shows of a title while it waits for the title's lock, which another
/// process's download holds (`serve` beside a `prefetch` of the same title): the
/// playlists that download made (`TitleOutline`, saved beside its progress when its plan
/// is made) and the files its saved progress says it holds, read from its staging
/// folder as they land. The view of a plain file is `ForeignDownload`.
struct ForeignTitle: Sendable {
    /// Nil when the caller already shows the title (only what is held is read again).
    let outline: TitleOutline?
    let held: [String: TitleInProgress.Held]
    /// Files that arrive in pieces (the one file of a single-file title), by path: the
    /// ranges that process has on disk, and the file's length when its progress knows it.
    let pieces: [String: (held: RangeSet, length: Int64?)]

    /// The files folder readers read from.
    static func filesDirectory(key: CacheKey, cache: CacheDirectory) -> String {
        TitleLayout.staging(key: key, in: cache) + "/" + TitleLayout.filesFolder
    }

    /// What the download of `key` in another process has saved; nil when it has not
    /// made its plan yet (or is no title). `known`: files already shown held, whose
    /// files are not looked at again. Off the loop thread.
    static func look(key: CacheKey, cache: CacheDirectory, withOutline: Bool, known: Set<String>) -> ForeignTitle? {
        LoopThreads.preconditionOff("reading another process's title")
        let staging = TitleLayout.staging(key: key, in: cache)
        var outline: TitleOutline?
        if withOutline {
            guard let bytes = try? FileSystem.readAll(staging + "/" + outlineFile),
                let decoded = try? JSONDecoder().decode(TitleOutline.self, from: Data(bytes))
            else { return nil }
            outline = decoded
        }
        // Saved only after the files it names are flushed: each is there whole.
        let files = staging + "/" + TitleLayout.filesFolder + "/"
        var held: [String: TitleInProgress.Held] = [:]
        var pieces: [String: (held: RangeSet, length: Int64?)] = [:]
        if let bytes = try? FileSystem.readAll(staging + "/" + TitleLayout.progressFile),
            let progress = try? JSONDecoder().decode(TitleProgress.self, from: Data(bytes))
        {
            for (path, saved) in progress.held where known.contains(path) || FileSystem.fileSize(files + path) == saved.size {
                held[path] = TitleInProgress.Held(size: saved.size, sha256: saved.sha256)
            }
            // The pieces of a file on its way, as flushed: readers read them as they land.
            for (path, partial) in progress.partial where partial.ranges != nil && held[path] == nil {
                pieces[path] = (partial.held, partial.length)
            }
        }
        return ForeignTitle(outline: outline, held: held, pieces: pieces)
    }

    /// Saves `outline` for other processes' readers: replaced whole, not flushed (it
    /// matters only while this process runs). Off the loop thread.
    static func save(_ outline: TitleOutline, staging: String) {
        LoopThreads.preconditionOff("saving a title's outline")
        guard let bytes = try? JSONEncoder().encode(outline) else { return }
        try? FileSystem.replace(staging + "/" + outlineFile, with: Array(bytes))
    }

    static let outlineFile = "outline.json"
}

/// A title's shape as players see it while it downloads: its local playlists (or MPD),
/// the files they name, and each rendition's kind.
struct TitleOutline: Sendable, Codable, Equatable {
    var format: PresentationFormat
    var entry: String
    var playlists: [String: String]
    var files: [String]
    var kinds: [String: String]
    /// The lengths the plan gives files fetched in pieces (their ranges' end).
    var lengths: [String: Int64]? = nil
}
