import Foundation

/// How `import` treats a bundle.
public struct ImportOptions: Sendable {
    /// Read and hash everything, commit nothing (`import --dry-run`).
    public var dryRun = false
    /// Take the bundle's version of an object the cache holds with other bytes.
    public var replace = false

    public init(dryRun: Bool = false, replace: Bool = false) {
        self.dryRun = dryRun
        self.replace = replace
    }
}

/// What happened to each entry, as it happens.
public enum ImportEvent: Sendable {
    case imported(BundleManifest.Entry)
    /// Dry run: the object checked out and would be committed.
    case verified(BundleManifest.Entry)
    case alreadyCached(BundleManifest.Entry)
    case rejected(EntryRejection)
    /// Not imported, for a reason that is not the bundle's fault (another process is
    /// downloading it; the cache holds other bytes under that key).
    case skipped(BundleManifest.Entry, reason: String)
    /// Bytes of the bundle's objects handled so far, of `total`.
    case progress(done: Int64, total: Int64)
}

/// The outcome of one bundle.
public struct ImportSummary: Sendable {
    public var bundle: String
    public var objects = 0
    public var imported = 0
    public var alreadyCached = 0
    public var skipped = 0
    public var rejected: [EntryRejection] = []
    /// Object bytes written into the cache (or, in a dry run, hashed).
    public var bytes: Int64 = 0
    /// Set when the stream broke part-way; entries after that point are rejected too.
    public var damage: BundleError?

    /// Everything the bundle lists is in the cache now (or would be, in a dry run).
    public var isComplete: Bool { rejected.isEmpty && skipped == 0 && damage == nil }
}

/// Imports bundles: each object is read entry by entry into a temporary file inside the
/// cache while it is hashed (on a second thread), and committed — atomic rename into
/// `objects/`, then its index row — only when its size and SHA-256 match the manifest.
/// Commits go through the `CommitBatcher` while the next objects are read, so objects
/// staged together share one flush and one index transaction. Nothing is ever written
/// outside the cache directory: destinations come from the checked key, never from a
/// name in the archive. An interrupted import leaves only temporary files, which `gc`
/// and the next import remove once no import holds them.
public final class BundleImporter {
    let cache: CacheDirectory
    let index: CacheIndex?
    /// The cache's objects, through `index`.
    let objects: ObjectStore?
    let batcher: CommitBatcher?
    let options: ImportOptions
    private let events: (ImportEvent) -> Void
    let isCancelled: () -> Bool
    let digests = DigestPipeline()

    /// A dry run into a cache that does not exist yet creates nothing.
    public init(
        cache: CacheDirectory, options: ImportOptions = ImportOptions(),
        events: @escaping (ImportEvent) -> Void = { _ in }, isCancelled: @escaping () -> Bool = { false }
    ) throws {
        self.cache = cache
        self.options = options
        self.events = events
        self.isCancelled = isCancelled
        let hasIndex = try cache.existsForReading() && cache.hasIndexOrObjects
        if options.dryRun && !hasIndex {
            index = nil
        } else {
            if !options.dryRun {
                try cache.prepare()
                StagedObject.removeAbandoned(in: cache)
            }
            index = try CacheIndex(directory: cache)
        }
        objects = index.map { ObjectStore(directory: cache, index: $0) }
        batcher = options.dryRun ? nil : index.map { CommitBatcher(index: $0) }
    }

    /// Imports one bundle. Throws when the bundle cannot be used at all (unreadable, no
    /// or a malformed manifest: nothing is imported), when the cache fails, or on
    /// cancellation; everything wrong with single entries is in the summary.
    public func importBundle(at path: String, name: String) throws -> ImportSummary {
        try importBundle(OpenedBundle(path: path, name: name))
    }

    /// Imports a bundle already opened. Throws when the cache fails or on cancellation;
    /// everything wrong with single entries is in the summary.
    public func importBundle(_ bundle: OpenedBundle) throws -> ImportSummary {
        let reader = bundle.reader
        let name = reader.name
        var summary = ImportSummary(bundle: name, objects: reader.manifest.entries.count)
        let total = reader.manifest.entries.reduce(Int64(0)) { $0 + $1.size }
        var handled: Int64 = 0
        let commits = PendingCommits()
        // Publications still running own their temporary files and locks: wait for them
        // whichever way this returns.
        defer { _ = commits.waitForAll() }

        func reject(_ rejection: EntryRejection) {
            summary.rejected.append(rejection)
            events(.rejected(rejection))
        }
        func report(_ finished: [(PendingCommit, Result<Void, CacheError>)]) throws {
            var failure: CacheError?
            for (commit, result) in finished {
                switch result {
                case .success:
                    commit.staged?.published()
                    commit.stagedTitle?.didPublish()
                    if let previous = commit.replacedPath, previous != commit.relativePath {
                        FileSystem.remove(cache.absolute(previous))
                    }
                    summary.imported += 1
                    summary.bytes += commit.entry.size
                    events(.imported(commit.entry))
                case .failure(let error):
                    failure = failure ?? error
                }
            }
            if let failure { throw failure }
        }

        func apply(_ outcome: Outcome, to entry: BundleManifest.Entry) {
            switch outcome {
            case .committing:
                break
            case .verified(let bytes):
                summary.imported += 1
                summary.bytes += bytes
                events(.verified(entry))
            case .alreadyCached:
                summary.alreadyCached += 1
                events(.alreadyCached(entry))
            case .skipped(let reason):
                summary.skipped += 1
                events(.skipped(entry, reason: reason))
            case .rejected(let reason):
                reject(EntryRejection(bundle: name, entry: entry.path, url: entry.url, reason: reason))
            }
        }
        // The title whose files are being read: it ends at the first entry that is not
        // one of its files (or at the end of the bundle), and is committed only then.
        var title: ImportingTitle?
        func endTitle() throws {
            guard let ending = title else { return }
            title = nil
            if let outcome = try finish(ending, damaged: summary.damage != nil, commits: commits) {
                apply(outcome, to: ending.entry)
            }
        }

        while true {
            try report(commits.takeFinished())
            if isCancelled() { throw BundleError.cancelled }
            let item: BundleReader.Item?
            do {
                item = try reader.next()
            } catch {
                guard error.isDamage else { throw error }
                summary.damage = error
                break
            }
            guard let item else { break }
            if !item.continues(title) { try endTitle() }
            switch item {
            case .rejected(let rejection):
                reject(rejection)
            case .object(let entry):
                do {
                    let outcome = try take(entry, from: reader, commits: commits) { done in
                        events(.progress(done: handled + done, total: total))
                    }
                    apply(outcome, to: entry)
                } catch let error as BundleError where error.isDamage {
                    summary.damage = error
                    reject(EntryRejection(bundle: name, entry: entry.path, url: entry.url, reason: .truncated))
                }
                handled += entry.size
                events(.progress(done: handled, total: total))
            case .titleMember(let entry, let member):
                func progress(_ done: Int64) { events(.progress(done: handled + done, total: total)) }
                do {
                    if var current = title {
                        let (outcome, bytes) = try take(member, of: &current, from: reader, progress: progress)
                        title = current
                        handled += bytes
                        if let outcome { apply(outcome, to: entry) }
                    } else {
                        let (started, outcome, bytes) = try startTitle(entry, first: member, from: reader, progress: progress)
                        title = started
                        handled += bytes
                        if let outcome { apply(outcome, to: entry) }
                    }
                } catch let error as BundleError where error.isDamage {
                    summary.damage = error
                }
                events(.progress(done: handled, total: total))
            }
            if summary.damage != nil { break }
        }
        try endTitle()
        try report(commits.waitForAll())
        let missing: RejectionReason =
            switch summary.damage {
            case nil: .missingFromBundle
            case .abandoned?: .notRead
            default: .truncated
            }
        for entry in reader.unseenEntries {
            reject(EntryRejection(bundle: name, entry: entry.path, url: entry.url, reason: missing))
        }
        return summary
    }

    enum Outcome {
        /// Staged and verified, handed to the batcher; reported when it is published.
        case committing
        /// Dry run: the object checked out.
        case verified(bytes: Int64)
        case alreadyCached
        case skipped(String)
        case rejected(RejectionReason)
    }

    /// One object: skip it if present, else stage and check it under its job lock and
    /// hand it to the batcher (which publishes it while the next ones are read).
    private func take(
        _ entry: BundleManifest.Entry, from reader: BundleReader, commits: PendingCommits,
        progress: (Int64) -> Void
    ) throws -> Outcome {
        // The manifest was checked: the key is valid and derived from the cache key.
        let key = CacheKey(identity: entry.cacheKey)
        if let outcome = try existingOutcome(for: entry, key: key) { return outcome }

        var lock: KeyLock?
        if !options.dryRun {
            lock = try KeyLock.tryAcquire(key: key, in: cache)
            guard lock != nil else {
                return .skipped("another mediacache process is downloading or importing it; run the import again when it has finished")
            }
            // Another process may have committed it while this one was not holding the lock.
            if let outcome = try existingOutcome(for: entry, key: key) { return outcome }
        }

        let staged = options.dryRun ? nil : try StagedObject(cache: cache)
        var done: Int64 = 0
        digests.start([.sha256])
        let read = try reader.readObject(limit: entry.size, digests: digests) { block in
            if isCancelled() { throw BundleError.cancelled }
            try staged?.append(block)
            done += Int64(block.count)
            progress(done)
        }
        let sha256 = digests.finish()[.sha256]!
        switch read {
        case .oversized(let atLeast):
            return .rejected(.largerThanManifest(atLeast: atLeast, manifest: entry.size))
        case .complete(let bytes) where bytes != entry.size:
            return .rejected(.sizeMismatch(actual: bytes, manifest: entry.size))
        case .complete:
            break
        }
        guard sha256 == entry.sha256 else { return .rejected(.digestMismatch(actual: sha256, manifest: entry.sha256)) }
        guard let staged, let index, let batcher else { return .verified(bytes: done) }
        staged.startWriteback()

        let ext = EntryPathPolicy.parseObjectPath(entry.path)?.1
        let relative = cache.relativeObjectPath(key: key, extension: ext)
        let previous = try index.object(key: key)
        let now = Date()
        let object = CachedObject(
            key: key, cacheKey: entry.cacheKey, path: relative, size: entry.size, sha256: entry.sha256,
            faststart: entry.faststart, url: entry.url, mirrors: entry.mirrors, name: entry.name,
            contentType: entry.contentType, validators: (entry.validators.etag, entry.validators.lastModified),
            addedAt: entry.added, lastUsedAt: now, originName: entry.originName)
        // With --replace, the old row goes first: a crash in between leaves an unlisted
        // file (harmless, replaced by the next import), never a row over other bytes.
        if previous != nil { try index.remove(key: key) }
        let commit = PendingCommit(
            entry: entry, staged: staged, lock: lock, relativePath: relative, replacedPath: previous?.path)
        // The batcher flushes the file system once for its group before renaming, and
        // removes a download of this object interrupted earlier (obsolete now).
        let publication = CommitBatcher.Publication(
            source: staged.path, unnamed: nil, durable: false, destination: cache.absolute(relative),
            object: object, aliases: entry.aliases, jobDirectory: cache.jobDirectory(key: key))
        commits.submit(commit, publication, to: batcher)
        return .committing
    }

    /// Already cached with the same bytes, or a different version the options keep;
    /// nil when the object should be imported (absent, or its file lost or damaged).
    func existingOutcome(for entry: BundleManifest.Entry, key: CacheKey) throws -> Outcome? {
        guard let existing = objects?.openIntact(key: key)?.object else { return nil }
        if existing.sha256 == entry.sha256 && existing.size == entry.size { return .alreadyCached }
        if options.replace { return nil }
        return .skipped(
            "the cache holds a different version (sha256 \(existing.sha256.prefix(16))…, \(existing.size) bytes); "
                + "kept it: import with --replace to take the bundle's")
    }
}
