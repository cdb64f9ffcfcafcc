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
            case .notCached(let name): "not cached: \(Printable.url(name))"
            case .busy(let name): "\(name) is being downloaded by another mediacache process; try again when it is done"
            }
        }
    }

    /// What `remove` took out of the cache.
    public struct Removal: Sendable, Equatable {
        /// The size of the cached object; nil when there was none.
        public var objectBytes: Int64?
        /// The disk space of an unfinished download; nil when there was none.
        public var partialBytes: Int64?
        /// Entries of interrupted runs, not started, that `resume` would have fetched.
        public var queuedEntries = 0
    }

    /// Removes the object known by `name` (URL, mirror or cache key) and any partial
    /// download of it, or only that download when nothing is cached yet.
    @discardableResult
    public func remove(_ name: String) throws -> Removal {
        let object = try index.lookup(name)
        // Without an object or a saved download, the lock of the name's own key still
        // tells whether another process is downloading it right now.
        let key = object.flatMap { CacheKey(hex: $0.key) } ?? partialJobKey(named: name) ?? CacheKey(identity: name)
        guard let lock = try KeyLock.tryAcquire(key: key, in: directory) else {
            throw RemovalError.busy(name)
        }
        return try withExtendedLifetime(lock) {
            var removal = Removal()
            if let object {
                try index.remove(key: key)
                // A title goes whole: its directory, never what a link in it points to.
                TitleOnDisk.removeStored(object.storedPath, in: directory)
                removal.objectBytes = object.size
            }
            let job = directory.jobDirectory(key: key)
            if FileSystem.exists(job) {
                removal.partialBytes = FileSystem.diskUsage(ofDirectory: job)
                FileSystem.removeTree(job)
            }
            // A title being assembled belongs to its key as much as a partial file does.
            let staging = TitleLayout.staging(key: key, in: directory)
            if TitleOnDisk.kind(staging) != .missing {
                removal.partialBytes = (removal.partialBytes ?? 0) + TitleOnDisk.storedBytes(staging)
                FileSystem.removeTree(staging)  // a link there is removed, not followed
            }
            removal.queuedEntries = try RunQueue.forget(in: directory) {
                $0.key == key || $0.entry.urls.contains(name) || $0.entry.outName == name
            }
            if removal == Removal() { throw RemovalError.notCached(name) }
            return removal
        }
    }

    /// The key of the partial download `name` stands for: its cache key, its URL or a
    /// mirror (saved downloads are filed under their cache key), `#fragment` ignored, or
    /// its out= name.
    private func partialJobKey(named name: String) -> CacheKey? {
        func hasPartial(_ key: CacheKey) -> Bool {
            FileSystem.exists(directory.jobDirectory(key: key)) || TitleOnDisk.kind(TitleLayout.staging(key: key, in: directory)) != .missing
        }
        if let key = CacheKey(hex: name), hasPartial(key) { return key }
        let names = [name] + [URLParts.removingFragment(name)].compactMap { $0 }
        let keys = names.map(CacheKey.init(identity:))
        if let direct = keys.first(where: hasPartial) { return direct }
        let jobs = PartialJobs.list(in: directory).jobs
        if let byURL = jobs.first(where: { job in names.contains { job.state.entry.urls.contains($0) } }) {
            return byURL.key
        }
        // The out= name `status` shows, when only one download has it.
        let named = jobs.filter { $0.state.entry.outName == name }
        return named.count == 1 ? named[0].key : nil
    }

    public struct CollectionReport: Sendable, Equatable {
        public var evicted: [String] = []
        public var bytesFreed: Int64 = 0
        public var orphanFiles = 0
        public var rowsWithoutFile = 0
        public var unreadablePartialJobs = 0
        /// Temporary files of imports that were killed.
        public var stagedImportFiles = 0
        /// Partial downloads untouched for longer than the age limit.
        public var oldPartialJobs = 0
        public var remainingBytes: Int64 = 0
        /// Object files and folders this process may not look at (EACCES, EIO): left
        /// alone, rows included, since what is behind them may be intact.
        public var unreachable: [SystemError] = []
    }

    /// Cleans orphans (files without a row, rows without a file, partial jobs whose
    /// state cannot be read, temporary files no live import holds), removes partial
    /// downloads nothing has written to for `partialOlderThan` seconds (nil: keeps them),
    /// then evicts least-recently-used objects until the cache holds at most `maxSize`
    /// bytes (nil: no eviction). Whatever another process works on is left alone.
    public func collectGarbage(maxSize: Int64?, partialOlderThan: TimeInterval? = nil) throws -> CollectionReport {
        var report = CollectionReport()
        var objects = try index.all()
        for object in objects {
            switch TitleOnDisk.entry(of: object, in: directory) {
            case .regularFile: continue
            case .unreachable(let error):
                report.unreachable.append(error)
                continue
            case .missing, .other: break
            }
            guard let key = CacheKey(hex: object.key), let lock = try KeyLock.tryAcquire(key: key, in: directory)
            else { continue }
            try withExtendedLifetime(lock) { try index.remove(key: key) }
            report.rowsWithoutFile += 1
        }
        report.unreachable += directory.unreadableObjectFolders()
        objects = try index.all()
        // A title is known by its directory (`storedPath`), a file by its path.
        let known = Set(objects.map(\.storedPath))
        for relative in directory.objectFiles() where !known.contains(relative) {
            // A commit renames first and inserts its row second, under the job lock.
            let name = (relative as NSString).lastPathComponent
            guard let key = CacheKey(hex: String(name.prefix(64))),
                let lock = try KeyLock.tryAcquire(key: key, in: directory)
            else { continue }
            withExtendedLifetime(lock) {
                if (try? index.object(key: key))??.storedPath != relative {
                    report.bytesFreed += TitleOnDisk.storedBytes(directory.absolute(relative))
                    TitleOnDisk.removeStored(relative, in: directory)
                    report.orphanFiles += 1
                }
            }
        }
        let partial = PartialJobs.list(in: directory)
        for (key, path) in unlistedPartialFolders(listed: partial.jobs) {
            guard let lock = try KeyLock.tryAcquire(key: key, in: directory) else { continue }
            withExtendedLifetime(lock) {
                report.bytesFreed += TitleOnDisk.storedBytes(path)
                FileSystem.removeTree(path)
            }
            report.unreadablePartialJobs += 1
        }
        if let partialOlderThan {
            let cutoff = Date().addingTimeInterval(-partialOlderThan)
            func isOld(_ path: String) -> Bool { (FileSystem.lastModification(inDirectory: path) ?? Date()) < cutoff }
            for job in partial.jobs where isOld(directory.jobDirectory(key: job.key)) {
                guard let lock = try KeyLock.tryAcquire(key: job.key, in: directory) else { continue }
                let path = directory.jobDirectory(key: job.key)
                // A resume may have run and ended between the listing and the lock.
                guard isOld(path) else { continue }
                withExtendedLifetime(lock) {
                    report.bytesFreed += FileSystem.diskUsage(ofDirectory: path)
                    FileSystem.removeTree(path)
                }
                report.oldPartialJobs += 1
            }
            report.oldPartialJobs += try removeOldTitleStaging(before: cutoff, freed: &report.bytesFreed)
        }
        for leftover in StagedObject.removeAbandoned(in: directory) {
            report.stagedImportFiles += 1
            report.bytesFreed += leftover.size
        }

        removeLegacyLockFiles()

        var total = objects.reduce(Int64(0)) { $0 + $1.size }
        if let maxSize {
            for object in objects.sorted(by: { $0.lastUsedAt < $1.lastUsedAt }) where total > maxSize {
                guard (try? remove(object.cacheKey))?.objectBytes != nil else { continue }
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
        /// What partial jobs take on disk: preallocated space counts, held or not.
        public var partialDiskBytes: Int64 = 0
        /// Temporary files of imports, running or killed (`gc` removes the latter).
        public var stagedImports = 0
        public var stagedImportBytes: Int64 = 0

        public init() {}
    }

    public func statistics() throws -> Statistics {
        var stats = Statistics()
        for object in try index.all() {
            stats.objects += 1
            stats.bytes += object.size
            if object.faststart == .relocated { stats.relocated += 1 }
        }
        let partial = PartialJobs.list(in: directory).jobs
        for job in partial {
            stats.partialJobs += 1
            stats.partialBytes += job.state.bytesDone
            let title = TitleLayout.staging(key: job.key, in: directory)
            stats.partialDiskBytes += FileSystem.exists(title)
                ? TitleOnDisk.storedBytes(title) : FileSystem.diskUsage(ofDirectory: directory.jobDirectory(key: job.key))
        }
        // Downloads whose state could not be saved (a full disk): what `gc` removes.
        for (_, path) in unlistedPartialFolders(listed: partial) {
            stats.partialJobs += 1
            stats.partialDiskBytes += TitleOnDisk.storedBytes(path)
        }
        for staged in StagedObject.all(in: directory) {
            stats.stagedImports += 1
            stats.stagedImportBytes += staged.size
        }
        return stats
    }

    /// Folders under `partial/` of downloads no saved state describes (unreadable, or
    /// never written: a title's on a full disk), whose data no run can go on from; a
    /// title's stopped pull from the tier is not one (the next pull goes on from it).
    private func unlistedPartialFolders(listed: [PartialJobs.Job]) -> [(key: CacheKey, path: String)] {
        let known = Set(listed.map(\.key)).union(PartialJobs.pulls(in: directory).map(\.key))
        return FileSystem.contentsOfDirectory(directory.partialDirectory).compactMap { name in
            if let key = TitleLayout.stagingKey(ofPartialEntry: name) {
                return known.contains(key) ? nil : (key, TitleLayout.staging(key: key, in: directory))
            }
            guard let key = CacheKey(hex: name), !known.contains(key) else { return nil }
            return (key, directory.jobDirectory(key: key))
        }
    }

    /// Titles being assembled (`partial/<key>.title`) that nothing has written to since
    /// `cutoff`, under the age rule of partial downloads: removed under their key's lock.
    private func removeOldTitleStaging(before cutoff: Date, freed: inout Int64) throws -> Int {
        var removed = 0
        for name in FileSystem.contentsOfDirectory(directory.partialDirectory) {
            guard let key = TitleLayout.stagingKey(ofPartialEntry: name) else { continue }
            let path = TitleLayout.staging(key: key, in: directory)
            func isOld() -> Bool { (TitleOnDisk.lastModification(inTree: path) ?? Date()) < cutoff }
            guard isOld(), let lock = try KeyLock.tryAcquire(key: key, in: directory) else { continue }
            // A resume may have run and ended between the listing and the lock.
            guard isOld() else { continue }
            withExtendedLifetime(lock) {
                freed += TitleOnDisk.storedBytes(path)
                FileSystem.removeTree(path)
            }
            removed += 1
        }
        return removed
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
}
