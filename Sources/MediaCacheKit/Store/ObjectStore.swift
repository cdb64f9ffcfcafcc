import Foundation

/// Read access to committed objects: `path` and friends, `serve`, imports, and a
/// download asking whether its object is cached already.
public final class ObjectStore: Sendable {
    public let directory: CacheDirectory
    let index: CacheIndex

    public init(directory: CacheDirectory) throws {
        self.directory = directory
        index = try CacheIndex(directory: directory)
    }

    /// Shares `index` (one per process where a service runs).
    init(directory: CacheDirectory, index: CacheIndex) {
        self.directory = directory
        self.index = index
    }

    /// The one answer to "is it there and intact?": the indexed object of `key`, with its
    /// file open, when that file is a regular file (never a link or a FIFO) of the size
    /// the index records (a title: see `openTitle`). What is read through it is that file, whatever happens to the
    /// name later (gc, a new version). Nil otherwise, and when the index cannot answer.
    /// `lookingAtTitleFiles`: false for `serve`, which answers a title's files one by one
    /// and says which one is missing, rather than fetching the whole title again.
    public func openIntact(key: CacheKey, lookingAtTitleFiles: Bool = true) -> IntactObject? {
        guard let object = try? index.object(key: key) else { return nil }
        return try? open(object, lookingAtTitleFiles: lookingAtTitleFiles)
    }

    /// Throws when the file cannot be looked at or read (EACCES, EIO): that is not a
    /// missing object, and whoever asks must not treat it as one.
    private func open(_ object: CachedObject, lookingAtTitleFiles: Bool = true) throws(SystemError) -> IntactObject? {
        if object.isTitle { return try openTitle(object, lookingAtFiles: lookingAtTitleFiles) }
        let path = directory.absolute(object.path)
        switch FileSystem.entry(path) {
        case .missing, .other: return nil
        case .unreachable(let error): throw error
        case .regularFile: break
        }
        let file: DataFile
        do {
            file = try DataFile(path: path, mode: .readOnly)
        } catch where error.code == ENOENT || error.code == ELOOP {
            return nil  // removed or replaced since the look
        }
        guard try file.size() == object.size else { return nil }
        return IntactObject(object: object, file: file)
    }

    /// A title is intact when `TitleOnDisk` says so (its files' bytes are `verify`'s job);
    /// its entry playlist is the file opened.
    private func openTitle(_ object: CachedObject, lookingAtFiles: Bool) throws(SystemError) -> IntactObject? {
        guard let manifest = try TitleOnDisk.intactManifest(of: object, in: directory, lookingAtFiles: lookingAtFiles)
        else { return nil }
        do {
            let file = try DataFile(path: directory.absolute(object.path), mode: .readOnly)
            return IntactObject(object: object, file: file, titleManifest: manifest.manifest)
        } catch where error.code == ENOENT || error.code == ELOOP {
            return nil
        }
    }

    /// The manifest of the title `object` is, when its `title.json` is the one its row
    /// names (for `ls` and `info`); nil for a file, or a title damaged or gone.
    public func titleManifest(of object: CachedObject) -> TitleManifest? {
        guard object.isTitle else { return nil }
        return (try? TitleOnDisk.intactManifest(of: object, in: directory))??.manifest
    }

    /// The committed object known by `name`, even if its file is gone (for `info`).
    public func object(named name: String) throws -> CachedObject? { try index.lookup(name) }

    /// The saved state of an unfinished download of `name` (its URL or cache key,
    /// `#fragment` ignored), and whether it is a streaming title's.
    public func partialJob(named name: String) -> (state: JobState, isTitle: Bool)? {
        for candidate in [name] + [URLParts.removingFragment(name)].compactMap({ $0 }) {
            let key = CacheKey(identity: candidate)
            // A file's state, or a streaming title's in its staging directory.
            let places = [
                (directory.statePath(key: key), false),
                (TitleLayout.staging(key: key, in: directory) + "/" + TitleLayout.stateFile, true),
            ]
            for (path, isTitle) in places {
                guard let bytes = try? FileSystem.readAll(path), let state = try? JobStateCodec.decode(bytes, path: path) else {
                    continue
                }
                return (state, isTitle)
            }
        }
        return nil
    }

    /// Every object in the index.
    public func objects() throws -> [CachedObject] { try index.all() }

    /// The `limit` objects used last, the most recent first.
    public func recentlyUsed(limit: Int) throws -> [CachedObject] { try index.recentlyUsed(limit: limit) }

    /// How many objects there are and their bytes.
    public func totals() throws -> (count: Int, bytes: Int64) { try index.totals() }

    /// The absolute path of the complete object known by `name` (URL, mirror or cache
    /// key), or nil. Answers from the index and the file together, and counts as a use.
    /// Throws `SystemError` when the object's file cannot be looked at or read.
    public func verifiedPath(for name: String) throws -> String? {
        guard let object = try index.lookup(name), try open(object) != nil else { return nil }
        if let key = CacheKey(hex: object.key) { try? index.touch(key: key) }
        return directory.absolute(object.path)
    }
}

/// A committed object and its file, opened. For a streaming title, `file` is its entry
/// playlist and `titleManifest` its checked `title.json`.
public struct IntactObject: Sendable {
    public let object: CachedObject
    public let file: DataFile
    /// Nil for a file.
    public let titleManifest: TitleManifest?

    init(object: CachedObject, file: DataFile, titleManifest: TitleManifest? = nil) {
        self.object = object
        self.file = file
        self.titleManifest = titleManifest
    }
}
