import Foundation

/// Readies a finished download to become a cached object: verify (coverage, length,
/// checksums, MP4 structure), faststart relocation, flush where it pays. The
/// `CommitBatcher` then renames it into `objects/`, records its index row and removes
/// the partial data. Nothing becomes visible before every check passed.
struct ObjectCommitter: Sendable {
    let cache: CacheDirectory
    /// Relocate moov before mdat (`--no-faststart` clears it).
    let faststart: Bool

    static let saveBeforeHashing: Int64 = 64 << 20
    /// Smaller files are flushed with the rest of their commit group (one `syncfs`)
    /// rather than one `fdatasync` each.
    static let flushedInGroupBelow: Int64 = 8 << 20

    /// Everything up to the rename: the returned publication is handed to the
    /// `CommitBatcher`, which renames and records it with others ready at the same time.
    /// `hasher`: digests of the prefix hashed while the download ran, continued here.
    /// `finishedAt`: when its last byte was written, the object's first use (not when a
    /// disk thread got to it, so objects fetched one after another keep their order).
    /// `readers`: the download's, whose players decide whether a relocation may change
    /// the bytes under its URL (`HeldBytes.sealLayout`).
    func prepare(
        key: CacheKey, file: DataFile, state: JobState, hasher: PrefixHasher? = nil, readers: HeldBytes? = nil,
        finishedAt: Date
    ) throws(CommitError)
        -> CommitBatcher.Publication
    {
        LoopThreads.preconditionOff("verifying a download")
        let entry = state.entry
        guard let length = state.length, state.isComplete else { throw .incomplete(url: entry.url) }
        let size = try onDisk { () throws(SystemError) in try file.size() }
        if size > length { try onDisk { () throws(SystemError) in try file.truncate(length: length) } }
        guard size >= length else { throw .shortDataFile(path: file.path, size: size, expected: length) }

        // The layout is decided from headers and moov alone, so one read pass hashes
        // both the origin bytes and the relocated layout.
        let decision = try faststartDecision(file: file, length: length)
        var plan: RelocationPlan?
        var keptBecause = "disabled"
        // A copy from the tier is stored as the tier holds it, the bytes its record names
        // (relocated or not where it was pushed): every cache of the fleet the same.
        if faststart, state.tier == nil, case .relocate(let relocation) = decision {
            // Nor by another process's players (`serve` beside this `prefetch`).
            if readers?.sealLayout() ?? true, ForeignDownload.sealForRelocation(key: key, cache: cache) {
                plan = relocation
            } else {
                keptBecause = "played while it downloaded"
            }
        }
        // A relocated file is written and flushed anew, so the origin bytes need no flush
        // of their own (a crash before the rename falls back on the last checkpoint).
        // Other big files are saved first, so a crash while hashing them does not cost a
        // re-download; small ones are flushed with their commit group.
        let originFlushed = plan == nil && length >= Self.flushedInGroupBelow
        do {
            if originFlushed { try file.syncData() }
            if originFlushed && length >= Self.saveBeforeHashing {
                try cache.name(file, key: key)
                try FileSystem.writeAtomically(try JobStateCodec.encode(state), to: cache.statePath(key: key))
            }
        } catch {
            throw CommitError(classifying: error)
        }
        var algorithms: Set<DigestAlgorithm> = [.sha256]
        if let checksum = entry.checksum { algorithms.insert(checksum.algorithm) }
        let (digests, relocatedSHA256) = try hashes(
            file: file, length: length, algorithms: algorithms, plan: plan, hasher: hasher)
        // A copy from the tier is the bytes its record names, or nothing.
        if let record = state.tier, digests[.sha256] != record.sha256 {
            throw .tierCopyDiffers(expected: record.sha256, actual: digests[.sha256] ?? "?")
        }
        if let expected = entry.checksum, digests[expected.algorithm] != expected.hex {
            FileSystem.removeTree(cache.jobDirectory(key: key))
            throw .checksumMismatch(expected: expected, actual: digests[expected.algorithm])
        }

        var stored = storedLayout(
            key: key, file: file, length: length, originSHA256: digests[.sha256]!, decision: decision,
            relocation: plan.map { ($0, relocatedSHA256) }, keptBecause: keptBecause)
        // Stored as the tier holds it: the record knows how those bytes were made.
        if let record = state.tier, stored.sha256 == record.sha256 { stored.faststart = record.faststart }
        // The origin's validators and type, which a copy from the tier has from its record.
        let validators = state.tier.map { ($0.etag, $0.lastModified) } ?? (state.validators.etag, state.validators.lastModified)
        let relative = cache.relativeObjectPath(key: key, extension: Self.fileExtension(for: state))
        let destination = cache.absolute(relative)
        let object = CachedObject(
            key: key, cacheKey: entry.identity, path: relative, size: stored.size, sha256: stored.sha256,
            faststart: stored.faststart, url: URLCredentials.withoutPassword(entry.url),
            mirrors: entry.urls.dropFirst().map(URLCredentials.withoutPassword), name: entry.outName,
            contentType: state.tier.map(\.contentType) ?? state.contentType, validators: validators,
            addedAt: finishedAt, lastUsedAt: finishedAt, originName: state.originName)
        return CommitBatcher.Publication(
            source: stored.path, unnamed: stored.file, durable: stored.durable || originFlushed,
            destination: destination, object: object, aliases: entry.urls.map(URLCredentials.withoutPassword) + [entry.identity],
            jobDirectory: cache.jobDirectory(key: key))
    }

    /// What is stored: the origin bytes, or their faststart relocation.
    struct StoredLayout {
        var path: String
        /// The origin bytes' file when it has no name yet: linked into place, not renamed.
        var file: DataFile? = nil
        /// A relocated copy is flushed when written; the origin bytes maybe not yet.
        var durable = false
        var size: Int64
        var sha256: String
        var faststart: FaststartState
    }

    /// The origin digests and the relocated layout's SHA-256, in one read pass; what the
    /// prefix hasher already covered is not read again.
    private func hashes(
        file: DataFile, length: Int64, algorithms: Set<DigestAlgorithm>, plan: RelocationPlan?, hasher: PrefixHasher?
    ) throws(CommitError) -> ([DigestAlgorithm: String], String?) {
        if let result = hasher?.finish(length: length), algorithms.isSubset(of: Set(result.digests.keys)) {
            guard let plan else { return (result.digests, nil) }
            if let relocated = result.relocated, relocated.plan == plan { return (result.digests, relocated.sha256) }
        }
        let relocated = plan.map { RelocatedDigest(plan: $0) }
        do {
            let digests = try FileDigester.digest(file, length: length, algorithms: algorithms) { offset, block in
                relocated?.update(at: offset, block)
            }
            return (digests, relocated?.finalizeHex())
        } catch {
            throw CommitError(classifying: error)
        }
    }

    /// How an MP4 is stored; a file that starts like an MP4 but whose boxes do not tile
    /// it is damaged (usually truncated at the origin) and is not cached.
    /// A file that starts as an MP4 but whose boxes do not tile it (a truncated file, a
    /// trailer a camera or a tool appended) is the origin's as it is: stored so, as curl
    /// and aria2 would save it, and recorded as not relocated, with why.
    private func faststartDecision(file: DataFile, length: Int64) throws(CommitError) -> FaststartDecision {
        do {
            return try FaststartPlanner.plan(file, length: length)
        } catch let error as MP4Error {
            return .skipped("its MP4 structure is damaged (\(error))")
        } catch {
            throw CommitError(classifying: error)
        }
    }

    /// File work whose failure is the cache's.
    private func onDisk<T>(_ body: () throws(SystemError) -> T) throws(CommitError) -> T {
        do { return try body() } catch { throw .cache(.io(error)) }
    }

    /// The origin bytes, or (unless disabled) their faststart relocation: written with
    /// copy_file_range and structure-checked before it replaces the origin bytes.
    private func storedLayout(
        key: CacheKey, file: DataFile, length: Int64, originSHA256: String, decision: FaststartDecision,
        relocation: (plan: RelocationPlan, sha256: String?)?, keptBecause: String
    ) -> StoredLayout {
        let origin = cache.dataPath(key: key)
        let unnamed = file.isNamed ? nil : file
        guard case .relocate = decision else {
            return StoredLayout(
                path: origin, file: unnamed, size: length, sha256: originSHA256, faststart: decision.state)
        }
        guard let relocation else {
            return StoredLayout(
                path: origin, file: unnamed, size: length, sha256: originSHA256, faststart: .skipped(keptBecause))
        }
        let path = cache.jobDirectory(key: key) + "/faststart"
        do {
            try FileSystem.makeDirectory(cache.jobDirectory(key: key), durable: false, replacingLink: true)
            let relocated = try DataFile(path: path, mode: .readWrite)
            try MoovRelocator.write(relocation.plan, from: file, to: relocated)
            let size = try relocated.size()
            try MP4StructureCheck.check(relocated, length: size)
            let sha256 = try relocation.sha256
                ?? FileDigester.digest(relocated, length: size, algorithms: [.sha256])[.sha256]!
            return StoredLayout(path: path, durable: true, size: size, sha256: sha256, faststart: .relocated)
        } catch {
            // Never half-fixed: keep the origin bytes and say why.
            FileSystem.remove(path)
            return StoredLayout(
                path: origin, file: unnamed, size: length, sha256: originSHA256,
                faststart: .skipped("relocation failed: \(error)"))
        }
    }

    /// A short extension from `out=` or the URL path, so players and `file` recognise
    /// the object; nil when there is none worth keeping.
    static func fileExtension(for state: JobState) -> String? {
        state.entry.outName.flatMap(URLParts.shortExtension(of:))
            ?? state.finalURL.flatMap(URLParts.pathExtension(ofURL:))
            ?? URLParts.pathExtension(ofURL: state.entry.url)
    }
}
