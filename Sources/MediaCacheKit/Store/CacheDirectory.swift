import Foundation

/// The layout of a cache directory (where it is: `CacheLocation`).
public struct CacheDirectory: Sendable {
    public let root: String

    public init(root: String) {
        self.root = (root as NSString).standardizingPath
    }

    public var objectsDirectory: String { root + "/objects" }
    public var partialDirectory: String { root + "/partial" }
    public var locksDirectory: String { root + "/locks" }
    /// What a run leaves for the next: entries it never started, the failures it had.
    public var runsDirectory: String { root + "/runs" }
    public var indexPath: String { root + "/index.sqlite" }

    /// Whether there is an index to read, or objects an index is rebuilt for (its file
    /// deleted): commands that only read take a cache with neither as empty, without
    /// making an index there.
    public var hasIndexOrObjects: Bool {
        FileSystem.exists(indexPath) || !FileSystem.contentsOfDirectory(objectsDirectory).isEmpty
    }

    public func jobDirectory(key: CacheKey) -> String { partialDirectory + "/" + key.hex }
    public func dataPath(key: CacheKey) -> String { jobDirectory(key: key) + "/data" }
    public func statePath(key: CacheKey) -> String { jobDirectory(key: key) + "/state" }
    public func journalPath(key: CacheKey) -> String { jobDirectory(key: key) + "/journal" }

    /// Gives a job's data file, if it has no name yet, its place in the job's directory.
    func name(_ file: DataFile, key: CacheKey) throws(SystemError) {
        guard !file.isNamed else { return }
        try FileSystem.makeDirectory(jobDirectory(key: key), durable: false, replacingLink: true)
        try file.link(as: dataPath(key: key))
    }

    /// `objects/ab/abcdef….ext`, relative to the root (the index stores it relative so a
    /// cache directory can be moved).
    public func relativeObjectPath(key: CacheKey, extension ext: String?) -> String {
        let name = ext.map { key.hex + "." + $0 } ?? key.hex
        return "objects/\(key.hex.prefix(2))/\(name)"
    }

    public func absolute(_ relative: String) -> String { root + "/" + relative }

    /// The folders of `objects/` this process cannot list (a `chmod 000`, EIO): their
    /// files are neither listed nor orphans.
    func unreadableObjectFolders() -> [SystemError] {
        FileSystem.contentsOfDirectory(objectsDirectory).sorted().compactMap { shard in
            let path = objectsDirectory + "/" + shard
            guard FileSystem.entryType(path) == S_IFDIR else { return nil }
            guard let folder = opendir(path) else { return SystemError("list", path: path) }
            closedir(folder)
            return nil
        }
    }

    /// Every file under `objects/`, relative to the root, in name order.
    func objectFiles() -> [String] {
        FileSystem.contentsOfDirectory(objectsDirectory).sorted().flatMap { shard in
            FileSystem.contentsOfDirectory(objectsDirectory + "/" + shard).sorted().map { "objects/\(shard)/\($0)" }
        }
    }

    /// For commands that only read the cache: whether it exists (a cache that does not
    /// exist yet is empty, and is not created for them). Throws when `root` is there but
    /// is not a directory this process can read, which is never an empty cache.
    public func existsForReading() throws -> Bool {
        var info = stat()
        guard stat(root, &info) == 0 else {
            if errno == ENOENT { return false }
            throw CacheError.io(SystemError("open", path: root))
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw CacheError.io(SystemError("open", path: root, code: ENOTDIR)) }
        guard access(root, R_OK | X_OK) == 0 else { throw CacheError.io(SystemError("open", path: root)) }
        return true
    }

    /// Which directory `root` names now: a long-running process compares it with what
    /// it opened, to notice the cache removed or replaced under it. Nil when none is there.
    public func identity() -> FileIdentity? {
        var info = stat()
        guard stat(root, &info) == 0 else { return nil }
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// Creates the directories (mode 0700: states may hold tokens).
    public func prepare() throws {
        if FileSystem.isOnReadOnlyFileSystem(root) { throw CacheError.readOnly(path: root) }
        do {
            // The root may be a link the user made (a cache on another disk); nothing in it is.
            try FileSystem.makeDirectory(root)
            var made = false
            for dir in [objectsDirectory, partialDirectory, locksDirectory] {
                made = try FileSystem.makeDirectory(dir, durable: false, replacingLink: true) || made
            }
            // One flush of the root makes all three new entries durable.
            if made { try FileSystem.syncDirectory(root) }
        } catch {
            throw error.code == EROFS ? CacheError.readOnly(path: root) : CacheError.io(error)
        }
    }
}

/// A file or directory as the file system knows it, whatever its name.
public struct FileIdentity: Sendable, Equatable {
    public let device: UInt64
    public let inode: UInt64
}
