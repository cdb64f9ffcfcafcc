import Foundation

/// A streaming title in a bundle being imported: `title.json` first, checked against
/// the bundle manifest's SHA-256 and size, then every file it lists, each checked as it
/// is written into the title's staging folder. Any file missing, extra or not matching
/// gives up the whole title (its folder is removed, the rest of its files read past);
/// only a title whose every file arrived and matched is handed to the commit batcher,
/// which renames the folder into `objects/` and records its row in one step.
struct ImportingTitle {
    let entry: BundleManifest.Entry
    /// Nil once the title is settled (given up, already cached, skipped): its remaining
    /// files are read past.
    var assembly: TitleAssembly?
    /// Nil in a dry run.
    let staged: StagedTitle?
    let lock: KeyLock?

    static func settled(_ entry: BundleManifest.Entry) -> ImportingTitle {
        ImportingTitle(entry: entry, assembly: nil, staged: nil, lock: nil)
    }
}

extension BundleReader.Item {
    /// Whether this entry is one more file of `title`.
    func continues(_ title: ImportingTitle?) -> Bool {
        guard case .titleMember(let entry, _) = self, let title else { return false }
        return title.entry.key == entry.key
    }
}

extension BundleImporter {
    /// The first file met of a title, which must be its `title.json`. Returns the title
    /// in progress, its outcome when it is settled at once, and the bytes read.
    func startTitle(
        _ entry: BundleManifest.Entry, first member: String, from reader: BundleReader, progress: (Int64) -> Void
    ) throws -> (ImportingTitle, Outcome?, Int64) {
        guard member == TitleManifest.fileName else {
            let problem = "its first file is \(Printable.name(member)); \(TitleManifest.fileName) must come first"
            return (.settled(entry), .rejected(.titleNotImported(problem)), 0)
        }
        let key = CacheKey(identity: entry.cacheKey)
        if let outcome = try existingOutcome(for: entry, key: key) { return (.settled(entry), outcome, 0) }
        var lock: KeyLock?
        if !options.dryRun {
            lock = try KeyLock.tryAcquire(key: key, in: cache)
            guard lock != nil else {
                return (.settled(entry), .skipped("another mediacache process is downloading or importing it; run the import again when it has finished"), 0)
            }
            if let outcome = try existingOutcome(for: entry, key: key) { return (.settled(entry), outcome, 0) }
        }
        let limit = min(entry.size, Int64(TitleOnDisk.maximumManifestSize))
        var bytes: [UInt8] = []
        digests.start([])
        let read = try reader.readObject(limit: limit, digests: digests) { block in
            if isCancelled() { throw BundleError.cancelled }
            bytes.append(contentsOf: block)
            progress(Int64(bytes.count))
        }
        _ = digests.finish()
        if case .oversized = read {
            let problem = "its \(TitleManifest.fileName) is larger than the whole title's \(entry.size) bytes"
            return (.settled(entry), .rejected(.titleNotImported(problem)), Int64(bytes.count))
        }
        let assembly: TitleAssembly
        do {
            assembly = try TitleAssembly(manifestBytes: bytes, sha256: entry.sha256, size: entry.size)
        } catch {
            return (.settled(entry), .rejected(.titleNotImported(error.description)), Int64(bytes.count))
        }
        let staged = options.dryRun ? nil : try StagedTitle(cache: cache)
        try staged?.writeManifest(bytes)
        return (ImportingTitle(entry: entry, assembly: assembly, staged: staged, lock: lock), nil, Int64(bytes.count))
    }

    /// One more file of `title`: written into its folder while hashed, then checked
    /// against `title.json`. Returns an outcome when this file settles the title.
    func take(
        _ member: String, of title: inout ImportingTitle, from reader: BundleReader, progress: (Int64) -> Void
    ) throws -> (Outcome?, Int64) {
        guard var assembly = title.assembly else { return (nil, 0) }
        var done: Int64 = 0
        do {
            let listed = try assembly.begin(member)
            title.assembly = assembly
            let file = try title.staged?.create(member)
            digests.start([.sha256])
            let read = try reader.readObject(limit: listed.size, digests: digests) { block in
                if isCancelled() { throw BundleError.cancelled }
                try file?.write(block, at: done)
                done += Int64(block.count)
                progress(done)
            }
            let sha256 = digests.finish()[.sha256]!
            switch read {
            case .oversized(let atLeast):
                throw TitleAssembly.Problem.memberSize(member, actual: atLeast, listed: listed.size)
            case .complete(let bytes):
                try TitleAssembly.check(listed, size: bytes, sha256: sha256)
            }
            return (nil, done)
        } catch let problem as TitleAssembly.Problem {
            // Given up: the staging folder goes with `title`, its lock with it.
            title = .settled(title.entry)
            return (.rejected(.titleNotImported(problem.description)), done)
        }
    }

    /// The title ends (another entry follows, or the bundle does): committed when every
    /// file listed arrived and matched, else rejected naming the first one missing.
    func finish(_ title: ImportingTitle, damaged: Bool, commits: PendingCommits) throws -> Outcome? {
        guard let assembly = title.assembly else { return nil }
        if let missing = assembly.firstMissing {
            return .rejected(damaged ? .truncated : .titleNotImported(TitleAssembly.Problem.missing(missing).description))
        }
        guard let staged = title.staged, let index, let batcher else { return .verified(bytes: title.entry.size) }
        let entry = title.entry
        let key = CacheKey(identity: entry.cacheKey)
        let object = StagedTitle.object(
            key: key, assembly: assembly, cacheKey: entry.cacheKey, url: entry.url, mirrors: entry.mirrors,
            name: entry.name, contentType: entry.contentType,
            validators: (entry.validators.etag, entry.validators.lastModified), addedAt: entry.added)
        let publication = try staged.publication(of: object, key: key, aliases: entry.aliases, index: index)
        let commit = PendingCommit(
            entry: entry, staged: nil, stagedTitle: staged, lock: title.lock, relativePath: object.path, replacedPath: nil)
        commits.submit(commit, publication, to: batcher)
        return .committing
    }
}
