/// Read access to committed objects, for `path` and friends.
public final class ObjectStore: Sendable {
    public let directory: CacheDirectory
    let index: CacheIndex

    public init(directory: CacheDirectory) throws {
        self.directory = directory
        index = try CacheIndex(directory: directory)
    }

    /// The committed object known by `name`, even if its file is gone (for `info`).
    public func object(named name: String) throws -> CachedObject? { try index.lookup(name) }

    /// The saved state of an unfinished download of `name` (its URL or cache key,
    /// `#fragment` ignored).
    public func partialJob(named name: String) -> JobState? {
        for candidate in [name] + [URLParts.removingFragment(name)].compactMap({ $0 }) {
            let path = directory.statePath(key: CacheKey(identity: candidate))
            guard let bytes = try? FileSystem.readAll(path) else { continue }
            return try? JobStateCodec.decode(bytes, path: path)
        }
        return nil
    }

    /// Every object in the index.
    public func objects() throws -> [CachedObject] { try index.all() }

    /// The absolute path of the complete object known by `name` (URL, mirror or cache
    /// key), or nil. Answers from the index and the file together, and counts as a use.
    public func verifiedPath(for name: String) throws -> String? {
        guard let object = try index.lookup(name) else { return nil }
        let path = directory.absolute(object.path)
        guard FileSystem.isRegularFile(path), FileSystem.fileSize(path) == object.size else { return nil }
        if let key = CacheKey(hex: object.key) { try? index.touch(key: key) }
        return path
    }
}
