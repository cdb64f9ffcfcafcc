import Foundation

/// How `export` compresses and what it may reveal.
public struct ExportOptions: Sendable {
    /// zstd level, 1 (fastest) to 19. Media is already compressed: higher levels cost
    /// time and save nothing on it (measured by Benchmarks/run, W8), so 1 is the default.
    public var compressionLevel = 1
    /// zstd worker threads (libarchive's `zstd:threads`); 1 compresses on this thread.
    public var threads = ProcessInfo.processInfo.activeProcessorCount
    /// Keep the full URLs of objects cached under a `cache-key=` (see `TokenRedaction`).
    public var keepQuery = false

    public init(compressionLevel: Int = 1, threads: Int = ProcessInfo.processInfo.activeProcessorCount, keepQuery: Bool = false) {
        self.compressionLevel = compressionLevel
        self.threads = threads
        self.keepQuery = keepQuery
    }
}

public struct ExportProgress: Sendable {
    public var objectsDone: Int
    public var objects: Int
    public var bytesDone: Int64
    public var bytes: Int64
}

public struct ExportSummary: Sendable {
    public var objects: Int
    /// Object bytes written (before compression).
    public var bytes: Int64
    public var bundleSize: Int64
    public var compressionThreads: Int
    public var seconds: Double
}

/// Writes cached objects into a bundle: the manifest first (from the index), then each
/// object streamed from its file and re-hashed on the way.
public final class BundleExporter {
    private let cache: CacheDirectory
    private let index: CacheIndex

    public init(cache: CacheDirectory) throws {
        self.cache = cache
        index = try CacheIndex(directory: cache)
    }

    /// The manifest `export` would write for `selection`, without writing anything.
    /// Throws `.notCached` for a name the cache does not know.
    public func manifest(for selection: ExportSelection, options: ExportOptions) throws -> BundleManifest {
        let entries = try selection.objects(in: index).map { try entry(for: $0, keepQuery: options.keepQuery) }
        return BundleManifest(created: Date(), generator: "mediacache \(MediaCacheVersion.string)", entries: entries)
    }

    /// Writes the bundle to `path` (atomically: a temporary name, renamed when complete);
    /// `writing` is told the temporary name, the file to remove if the process must end
    /// before it is complete.
    public func export(
        _ manifest: BundleManifest, to path: String, options: ExportOptions,
        progress: (ExportProgress) -> Void = { _ in }, isCancelled: () -> Bool = { false },
        writing: (String) -> Void = { _ in }
    ) throws -> ExportSummary {
        let started = Date()
        let total = manifest.entries.reduce(Int64(0)) { $0 + $1.size }
        let writer = try BundleWriter(destination: path, level: options.compressionLevel, threads: options.threads)
        writing(writer.temporary)
        try writer.writeManifest(manifest)
        var done: Int64 = 0
        for (number, entry) in manifest.entries.enumerated() {
            if isCancelled() { throw BundleError.cancelled }
            guard let object = try index.object(key: CacheKey(identity: entry.cacheKey)), object.sha256 == entry.sha256 else {
                throw BundleError.corruptObject(url: entry.url, path: entry.path, reason: "was removed or replaced during the export")
            }
            let report = { (bytes: Int64) in
                progress(ExportProgress(
                    objectsDone: number, objects: manifest.entries.count, bytesDone: done + bytes, bytes: total))
            }
            if entry.isTitle {
                try writeTitle(entry, object: object, to: writer, progress: report, isCancelled: isCancelled)
            } else {
                try writer.writeObject(entry, file: cache.absolute(object.path), progress: report, isCancelled: isCancelled)
            }
            done += entry.size
            progress(ExportProgress(objectsDone: number + 1, objects: manifest.entries.count, bytesDone: done, bytes: total))
        }
        if isCancelled() { throw BundleError.cancelled }
        let size = try writer.finish()
        return ExportSummary(
            objects: manifest.entries.count, bytes: total, bundleSize: size,
            compressionThreads: writer.compressionThreads, seconds: Date().timeIntervalSince(started))
    }

    /// A title's files under `objects/<key>.title/`: `title.json` first (import checks
    /// every other file against it), then each file it lists, re-hashed on the way.
    private func writeTitle(
        _ entry: BundleManifest.Entry, object: CachedObject, to writer: BundleWriter, progress: (Int64) -> Void,
        isCancelled: () -> Bool
    ) throws {
        let title = try intactTitle(object)
        let folder = cache.absolute(object.titleDirectory!)
        try writer.writeFile(
            folder + "/" + TitleManifest.fileName, as: entry.path + "/" + TitleManifest.fileName,
            size: Int64(title.bytes.count), sha256: object.sha256, of: entry, progress: progress,
            isCancelled: isCancelled)
        var done = Int64(title.bytes.count)
        for member in title.manifest.members {
            try writer.writeFile(
                folder + "/" + member.path, as: entry.path + "/" + member.path, size: member.size,
                sha256: member.sha256, of: entry, progress: { progress(done + $0) }, isCancelled: isCancelled)
            done += member.size
        }
    }

    /// The title's manifest, when its directory and `title.json` are the ones the index
    /// names (its other files are checked as they are written).
    private func intactTitle(_ object: CachedObject) throws -> TitleOnDisk.Manifest {
        guard let title = try TitleOnDisk.intactManifest(of: object, in: cache) else {
            throw BundleError.corruptObject(
                url: object.shownName, path: cache.absolute(object.storedPath), reason: "is missing or damaged")
        }
        return title
    }

    private func entry(for object: CachedObject, keepQuery: Bool) throws -> BundleManifest.Entry {
        let path = cache.absolute(object.path)
        // Checked before anything is written: a bundle never holds half a title.
        let title = try object.isTitle ? intactTitle(object) : nil
        guard title != nil || FileSystem.isRegularFile(path) else {
            throw BundleError.corruptObject(url: object.url, path: path, reason: "is missing")
        }
        let key = CacheKey(identity: object.cacheKey)
        let name = (object.path as NSString).lastPathComponent
        let ext = name.firstIndex(of: ".").map { String(name[name.index(after: $0)...]) }
        // An index written before passwords were kept out of it may still hold one.
        let cacheKey = URLCredentials.withoutPassword(object.cacheKey)
        let urls = TokenRedaction.shareable(
            url: URLCredentials.withoutPassword(object.url), mirrors: object.mirrors.map(URLCredentials.withoutPassword),
            cacheKey: cacheKey, keepQuery: keepQuery)
        let entryPath = title == nil ? EntryPathPolicy.objectPath(key: key, extension: ext) : EntryPathPolicy.titlePath(key: key)
        return BundleManifest.Entry(
            key: key.hex, path: entryPath, url: urls.url,
            mirrors: urls.mirrors, cacheKey: cacheKey, name: object.name, size: object.size,
            sha256: object.sha256, contentType: object.contentType, faststart: object.faststart,
            validators: .init(etag: object.etag, lastModified: object.lastModified), added: object.addedAt,
            urlsRedacted: urls.redacted,
            title: title.map { title in
                .init(format: title.manifest.format, files: title.manifest.members.count, segments: title.manifest.segmentCount)
            }, originName: object.originName)
    }
}
