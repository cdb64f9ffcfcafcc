import Foundation

/// Brings a streaming title back from the tier whole (`--tier`, `pull`), for the download
/// job that found its record. Its pack (`TitlePack`) is read in a few large ranged GETs
/// (which the job makes on its transfer loop, under the run's rate limits) and split
/// into the title's files in a staging folder as it arrives: `title.json`
/// checked against the record, every file against `title.json`; then the folder becomes
/// the title in one step, as an imported one does. A copy that fails any check is
/// reported naming the file, and nothing of it is kept. Blocking: never on the transfer
/// thread.
final class TierTitlePuller: Sendable {
    /// Bytes asked for per GET: few requests for a title of small segments, bounded memory.
    static let window: Int64 = 8 << 20

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
    /// cached. Stops with `.cancelled` between reads once `isCancelled`, and tells
    /// `received` how much of the pack has been read after each read.
    func pull(
        _ record: TierRecord, identity: String, lockedBy lock: KeyLock,
        isCancelled: () -> Bool, received: (Int64) -> Void
    ) throws(TierError) -> CachedObject {
        let (key, manifestSize) = try checkedTitle(record)
        precondition(lock.key == key, "a title is pulled under its own key's lock")
        let pack = layout.objectKey(for: record)
        // Each read of the pack may be the last one (cancelled), and each is counted.
        func read(_ range: ByteRange) throws(TierError) -> [UInt8] {
            guard !isCancelled() else { throw .cancelled }
            let bytes = try fetch(pack, range)
            received(range.end)
            return bytes
        }
        var assembly = try checking(pack, writing: TitleManifest.fileName) {
            let bytes = try read(ByteRange(0, manifestSize))
            return try TitleAssembly(manifestBytes: bytes, sha256: record.sha256, size: record.size)
        }
        let staged = try local { try StagedTitle(cache: cache) }
        try local { try staged.writeManifest(assembly.manifestBytes) }
        try split(pack, of: record, into: staged, reading: read, checking: &assembly)
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

    /// Reads the members that follow `title.json` in the pack, window by window, into
    /// their files, each checked as it is completed.
    private func split(
        _ pack: String, of record: TierRecord, into staged: StagedTitle, reading read: (ByteRange) throws(TierError) -> [UInt8],
        checking assembly: inout TitleAssembly
    ) throws(TierError) {
        var offset = Int64(assembly.manifestBytes.count)
        var window: [UInt8] = []
        var windowStart = offset
        for member in assembly.manifest.members {
            try checking(pack, writing: staged.directory + "/" + member.path) {
                let listed = try assembly.begin(member.path)
                let file = try staged.create(member.path)
                let digest = Digest(.sha256)
                var done: Int64 = 0
                while done < listed.size {
                    let at = offset + done
                    if at >= windowStart + Int64(window.count) {
                        windowStart = at
                        window = try read(ByteRange(at, min(record.size, at + Self.window)))
                    }
                    let from = Int(at - windowStart)
                    let bytes = Array(window[from..<(from + Int(min(Int64(window.count - from), listed.size - done)))])
                    digest.update(bytes)
                    try file.write(bytes, at: done)
                    done += Int64(bytes.count)
                }
                try TitleAssembly.check(listed, size: done, sha256: digest.finalizeHex())
            }
            offset += member.size
        }
    }

    /// Runs `body`, which reads the pack and writes `path`: a check that fails makes the
    /// pack unusable, a tier error stays one, anything else is this cache's.
    private func checking<T>(_ pack: String, writing path: String, _ body: () throws -> T) throws(TierError) -> T {
        do {
            return try body()
        } catch let problem as TitleAssembly.Problem {
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
