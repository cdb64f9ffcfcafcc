import Foundation

/// Brings a streaming title back from the tier whole (`--tier`, `pull`), for the download
/// job that found its record. Its pack (`TitlePack`) is read in a few large ranged GETs
/// (which the job makes on its transfer loop, under the run's rate limits) and split
/// into the title's files in its pull folder as it arrives: `title.json` checked against
/// the record, every file against `title.json`; then the folder becomes the title in one
/// step, as an imported one does. A pack that fails any check is reported naming the
/// file, and nothing of it is kept. Blocking: never on the transfer thread.
///
/// A player may play the title while it is pulled (`serve --tier`): the file it waits for
/// is read next, out of the pack's order (`PackReadOrder`).
///
/// A pull that stops (Ctrl-C, `kill -9`, a tier that went away) keeps what it wrote, and
/// the next one goes on from there: the pack is named by its `title.json`, so a kept
/// `title.json` with the record's SHA-256 says the rest belongs to this pack too, and
/// every kept file is hashed again before it is trusted (after a power loss it may hold
/// anything).
final class TierTitlePuller: Sendable {
    /// Bytes asked for per GET: about a second of the pull at the rate the last one came
    /// (`nextWindow`), within these bounds. A stop loses at most the GET under way, and a
    /// fast tier is read in few requests, with bounded memory.
    static let windows: ClosedRange<Int64> = (64 << 10)...(8 << 20)

    /// The size of the GET after one that brought `bytes` in `seconds`.
    static func nextWindow(after bytes: Int64, took seconds: Double) -> Int64 {
        let second = Double(bytes) / max(seconds, 0.001)
        return Int64(min(max(second, Double(windows.lowerBound)), Double(windows.upperBound)))
    }

    /// Reads exactly `range` of the tier's object `key`, or nil when there is none; may
    /// block, and throws `.cancelled` once the pull is stopped.
    typealias RangeReader = @Sendable (_ key: String, _ range: ByteRange) throws(TierError) -> [UInt8]?

    private let layout: TierLayout
    private let objects: ObjectStore
    private let readRange: RangeReader
    private var cache: CacheDirectory { objects.directory }

    init(layout: TierLayout, objects: ObjectStore, readingWith readRange: @escaping RangeReader) {
        self.layout = layout
        self.objects = objects
        self.readRange = readRange
    }

    /// Pulls the title `record` names, cached under `identity` (the URL or `cache-key=`
    /// it was asked for by), for a download that holds the key's lock and found nothing
    /// cached, telling and asking `watch` as it goes (see `TitlePullWatch`).
    func pull(
        _ record: TierRecord, identity: String, lockedBy lock: KeyLock, watch: TitlePullWatch = TitlePullWatch()
    ) throws(TierError) -> CachedObject {
        let (key, manifestSize) = try checkedTitle(record)
        precondition(lock.key == key, "a title is pulled under its own key's lock")
        let pack = layout.objectKey(for: record)
        var held: Int64 = 0
        // Each read of the pack may be the last one (cancelled), and each is counted.
        func read(_ range: ByteRange) throws(TierError) -> [UInt8] {
            guard !watch.isCancelled() else { throw .cancelled }
            let bytes = try fetch(pack, range)
            held += range.count
            watch.received(held)
            return bytes
        }
        let staged = try local { try StagedTitle(pullOf: key, cache: cache) }
        var assembly: TitleAssembly
        let kept: KeptPull
        if let manifest = keptManifest(in: staged, of: record) {
            assembly = manifest
            kept = try local { try KeptPull.scan(staged, checking: &assembly) }
            held = kept.bytes
            watch.resuming(held)
        } else {
            try local { try staged.removeAll() }
            watch.resuming(0)
            assembly = try checking(pack, in: staged, writing: TitleManifest.fileName) {
                let bytes = try read(ByteRange(0, manifestSize))
                return try TitleAssembly(manifestBytes: bytes, sha256: record.sha256, size: record.size)
            }
            try local { try staged.writeManifest(assembly.manifestBytes) }
            kept = KeptPull.none(of: assembly)
        }
        let members = assembly.manifest.members
        watch.planned(assembly.manifest, staged.directory, members.indices.filter { kept.whole[$0] }.map { members[$0] })
        try split(pack, of: record, into: staged, keeping: kept, reading: read, watch: watch, checking: &assembly)
        let object = StagedTitle.object(
            key: key, assembly: assembly, cacheKey: identity, url: record.cacheKey == nil ? identity : record.url,
            mirrors: [], name: nil, contentType: record.contentType, validators: (record.etag, record.lastModified),
            addedAt: Date())
        let aliases = [identity] + (record.cacheKey == nil || record.url == identity ? [] : [record.url])
        try commit(staged, object: object, key: key, aliases: aliases)
        return object
    }

    /// The title's key and the size of its `title.json`, once the record is known to be a
    /// title's whose manifest may be read.
    private func checkedTitle(_ record: TierRecord) throws(TierError) -> (key: CacheKey, manifestSize: Int64) {
        guard let manifestSize = record.titleManifestSize, let key = CacheKey(hex: record.key) else {
            throw .localFile("the record of \(record.url) is not a streaming title's")
        }
        // Read whole into memory: a record may claim anything, a title.json is bounded.
        guard manifestSize <= Int64(TitleOnDisk.maximumManifestSize) else {
            throw unusable(layout.objectKey(for: record), .manifestUnreadable("the record says it holds \(manifestSize) bytes, more than a title manifest may"))
        }
        return (key, manifestSize)
    }

    /// The `title.json` an earlier pull of this same pack left in the folder, checked.
    private func keptManifest(in staged: StagedTitle, of record: TierRecord) -> TitleAssembly? {
        guard let size = record.titleManifestSize, let file = staged.existing(TitleManifest.fileName),
            (try? file.size()) == size, let bytes = try? file.read(count: Int(size), at: 0), bytes.count == Int(size)
        else { return nil }
        return try? TitleAssembly(manifestBytes: bytes, sha256: record.sha256, size: record.size)
    }

    /// Reads every member `kept` lacks into its file, each checked once whole: the pack's
    /// order, a player's first (`PackSplit`).
    private func split(
        _ pack: String, of record: TierRecord, into staged: StagedTitle, keeping kept: KeptPull,
        reading read: (ByteRange) throws(TierError) -> [UInt8], watch: TitlePullWatch,
        checking assembly: inout TitleAssembly
    ) throws(TierError) {
        let manifest = assembly.manifest
        var split = PackSplit(
            manifest, manifestSize: Int64(assembly.manifestBytes.count), into: staged, keeping: kept,
            forPlayers: watch.forPlayers)
        while let index = split.next(asked: watch.asked()) {
            let member = manifest.members[index]
            let whole = try checking(pack, in: staged, writing: staged.directory + "/" + member.path) {
                try split.write(index, reading: read, asked: watch.asked, noting: watch.arriving, checking: &assembly)
            }
            if whole { watch.held(member) }
        }
    }

    /// Runs `body`, which reads the pack and writes `path`: a check that fails makes the
    /// pack unusable (and what was pulled of it is removed), a tier error stays one,
    /// anything else is this cache's.
    private func checking<T>(
        _ pack: String, in staged: StagedTitle, writing path: String, _ body: () throws -> T
    ) throws(TierError) -> T {
        do {
            return try body()
        } catch let problem as TitleAssembly.Problem {
            staged.discard()
            throw unusable(pack, problem)
        } catch let error as TierError {
            throw error
        } catch {
            throw .localFile("writing \(path): \(error)")
        }
    }

    /// `range` of the pack, exactly.
    private func fetch(_ pack: String, _ range: ByteRange) throws(TierError) -> [UInt8] {
        guard let bytes = try readRange(pack, range) else {
            throw .invalidResponse(
                operation: "get", target: target(pack), reason: "the tier has a record of this title but not its pack")
        }
        return bytes
    }

    /// Renames the staged folder into `objects/` and records its row, as one step.
    private func commit(_ staged: StagedTitle, object: CachedObject, key: CacheKey, aliases: [String]) throws(TierError) {
        let publication = try local { try staged.publication(of: object, key: key, aliases: aliases, index: objects.index) }
        let finished = DispatchSemaphore(value: 0)
        let result = LockedValue<Result<Void, CacheError>?>(nil)
        CommitBatcher(index: objects.index).publish(publication) { outcome in
            result.withLock { $0 = outcome }
            finished.signal()
        }
        finished.wait()
        if case .failure(let error)? = result.withLock({ $0 }) {
            throw .localFile("committing the title into \(cache.root): \(error)")
        }
        staged.didPublish()
    }

    private func unusable(_ pack: String, _ problem: TitleAssembly.Problem) -> TierError {
        .invalidResponse(operation: "check", target: target(pack), reason: "\(problem); nothing of the title was kept")
    }

    private func target(_ pack: String) -> String { "s3://\(layout.location.bucket)/\(pack)" }

    private func local<T>(_ body: () throws -> T) throws(TierError) -> T {
        do {
            return try body()
        } catch {
            throw .localFile("\(cache.root): \(error)")
        }
    }
}
