import Foundation

/// Removing objects and keeping the cache tidy: `rm`, `gc`, `stats`.
///
/// Every removal holds the object's job lock, so it never races a download or commit
/// of the same object in another process; rows go before files, so `path` never
/// answers with a file that is about to disappear.
public struct CacheMaintenance: Sendable {
    public let directory: CacheDirectory
    let index: CacheIndex

    public init(directory: CacheDirectory) throws {
        self.directory = directory
        try directory.prepare()
        index = try CacheIndex(directory: directory)
    }

    public enum RemovalError: Error, Equatable, CustomStringConvertible {
        case notCached(String)
        case busy(String)

        public var description: String {
            switch self {
            case .notCached(let name): "not cached: \(name)"
            case .busy(let name): "\(name) is being downloaded by another mediacache process; try again when it is done"
            }
        }
    }

    /// Removes the object known by `name` (URL, mirror or cache key) and any partial job
    /// for it. Returns the bytes freed.
    @discardableResult
    public func remove(_ name: String) throws -> Int64 {
        guard let object = try index.lookup(name), let key = CacheKey(hex: object.key) else {
            throw RemovalError.notCached(name)
        }
        guard let lock = try KeyLock.tryAcquire(key: key, in: directory) else {
            throw RemovalError.busy(name)
        }
        try withExtendedLifetime(lock) {
            try index.remove(key: key)
            FileSystem.remove(directory.absolute(object.path))
            FileSystem.removeTree(directory.jobDirectory(key: key))
        }
        return object.size
    }

    public struct CollectionReport: Sendable, Equatable {
        public var evicted: [String] = []
        public var bytesFreed: Int64 = 0
        public var orphanFiles = 0
        public var rowsWithoutFile = 0
        public var unreadablePartialJobs = 0
        public var remainingBytes: Int64 = 0
    }

    /// Cleans orphans (files without a row, rows without a file, partial jobs whose
    /// state cannot be read), then evicts least-recently-used objects until the cache
    /// holds at most `maxSize` bytes (nil: no eviction).
    public func collectGarbage(maxSize: Int64?) throws -> CollectionReport {
        var report = CollectionReport()
        var objects = try index.all()
        for object in objects where !FileSystem.isRegularFile(directory.absolute(object.path)) {
            guard let key = CacheKey(hex: object.key), let lock = try KeyLock.tryAcquire(key: key, in: directory)
            else { continue }
            try withExtendedLifetime(lock) { try index.remove(key: key) }
            report.rowsWithoutFile += 1
        }
        objects = try index.all()
        let known = Set(objects.map(\.path))
        for relative in objectFiles() where !known.contains(relative) {
            // A commit renames first and inserts its row second, under the job lock.
            let name = (relative as NSString).lastPathComponent
            guard let key = CacheKey(hex: String(name.prefix(64))),
                let lock = try KeyLock.tryAcquire(key: key, in: directory)
            else { continue }
            withExtendedLifetime(lock) {
                if (try? index.object(key: key))??.path != relative {
                    report.bytesFreed += FileSystem.fileSize(directory.absolute(relative)) ?? 0
                    FileSystem.remove(directory.absolute(relative))
                    report.orphanFiles += 1
                }
            }
        }
        let partial = PartialJobs.list(in: directory)
        let readable = Set(partial.jobs.map(\.key.hex))
        for name in FileSystem.contentsOfDirectory(directory.partialDirectory) where !readable.contains(name) {
            guard let key = CacheKey(hex: name), let lock = try KeyLock.tryAcquire(key: key, in: directory)
            else { continue }
            withExtendedLifetime(lock) { FileSystem.removeTree(directory.jobDirectory(key: key)) }
            report.unreadablePartialJobs += 1
        }

        removeLegacyLockFiles()

        var total = objects.reduce(Int64(0)) { $0 + $1.size }
        if let maxSize {
            for object in objects.sorted(by: { $0.lastUsedAt < $1.lastUsedAt }) where total > maxSize {
                guard (try? remove(object.cacheKey)) != nil else { continue }
                total -= object.size
                report.bytesFreed += object.size
                report.evicted.append(object.url)
            }
        }
        report.remainingBytes = total
        return report
    }

    public struct Statistics: Sendable, Equatable {
        public var objects = 0
        public var bytes: Int64 = 0
        public var relocated = 0
        public var partialJobs = 0
        public var partialBytes: Int64 = 0
    }

    public func statistics() throws -> Statistics {
        var stats = Statistics()
        for object in try index.all() {
            stats.objects += 1
            stats.bytes += object.size
            if object.faststart == "relocated" { stats.relocated += 1 }
        }
        for job in PartialJobs.list(in: directory).jobs {
            stats.partialJobs += 1
            stats.partialBytes += job.state.bytesDone
        }
        return stats
    }

    /// What `gc` would clean, without touching anything: files in `objects/` without an
    /// index row (relative paths) and partial jobs whose state cannot be read.
    public func orphans() throws -> (files: [String], unreadableJobs: [String]) {
        let known = Set(try index.all().map(\.path))
        let files = objectFiles().filter { !known.contains($0) }
        let readable = Set(PartialJobs.list(in: directory).jobs.map(\.key.hex))
        let jobs = FileSystem.contentsOfDirectory(directory.partialDirectory).filter {
            CacheKey(hex: $0) != nil && !readable.contains($0)
        }
        return (files, jobs.map { "partial/" + $0 })
    }

    /// Earlier versions kept one lock file per key in `locks/` (now one byte of
    /// `locks/keys` each): removed unless a process of such a version holds one.
    private func removeLegacyLockFiles() {
        for name in FileSystem.contentsOfDirectory(directory.locksDirectory) where CacheKey(hex: name) != nil {
            let path = directory.locksDirectory + "/" + name
            guard let lock = try? FileLock.tryAcquire(path: path) else { continue }
            FileSystem.remove(path)
            withExtendedLifetime(lock) {}
        }
    }

    /// Paths of every file under `objects/`, relative to the cache root.
    private func objectFiles() -> [String] {
        FileSystem.contentsOfDirectory(directory.objectsDirectory).flatMap { shard in
            FileSystem.contentsOfDirectory(directory.objectsDirectory + "/" + shard).map { "objects/\(shard)/\($0)" }
        }
    }
}
