import Foundation

/// Uploads committed objects to the tier behind the downloads (`--tier-push`, `push`).
///
/// Objects go up one at a time on a queue of their own (a large one in parallel parts),
/// so the transfer thread never waits for the store. Each object to push is first noted
/// in `tier/pending/<key>`, and the note is removed only once its record is written: a
/// run stopped or killed before then leaves the note, and the next pushing run (or
/// `push`) finds and finishes it, resuming a multipart upload where it stopped.
public final class TierPusher: Sendable {
    public enum Event: Sendable {
        /// `uploaded` is false when the tier already held these bytes under this key.
        case pushed(CachedObject, uploaded: Bool)
        case failed(CachedObject, TierError)
        /// The tier cannot be used at all (unreachable, credentials, bucket): nothing
        /// more is tried in this run, and what is left stays noted for the next.
        case stopped(TierError)
    }

    public let store: TierStore
    private let objects: ObjectStore
    private var cache: CacheDirectory { objects.directory }
    private let events: @Sendable (Event) -> Void
    /// Notes are written here, in order, as soon as an object is handed over.
    private let notes = DispatchQueue(label: "mediacache.tier.notes")
    private let uploads = DispatchQueue(label: "mediacache.tier.uploads")
    private let group = DispatchGroup()
    private let state = LockedValue(State())

    private struct State {
        var queued: Set<String> = []
        var stoppedBy: TierError?
        var cancelled = false
    }

    public init(store: TierStore, objects: ObjectStore, events: @escaping @Sendable (Event) -> Void) {
        self.store = store
        self.objects = objects
        self.events = events
    }

    var pendingDirectory: String { cache.root + "/tier/pending" }

    /// Hands `object` over to be pushed; returns at once (safe on the transfer thread).
    /// Once pushing has stopped, the object is only noted, for the next run.
    public func push(_ object: CachedObject) {
        let accepted = state.withLock { $0.queued.insert(object.key).inserted }
        guard accepted else { return }
        group.enter()
        notes.async { [self] in
            note(object.key)
            uploads.async { [self] in
                defer { group.leave() }
                upload(object)
            }
        }
    }

    /// The tier cannot be used (found before any push): objects handed over from now on
    /// are noted for a later run, not uploaded.
    public func stop(because error: TierError) {
        let first = state.withLock { state -> Bool in
            defer { if state.stoppedBy == nil { state.stoppedBy = error } }
            return state.stoppedBy == nil
        }
        if first { events(.stopped(error)) }
    }

    /// Pushes the objects an earlier run noted but did not finish; objects no longer in
    /// the cache lose their note.
    public func pushNoted() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: pendingDirectory)) ?? []
        for name in names.sorted() {
            guard let key = CacheKey(hex: name) else { continue }
            if let object = try? objects.index.object(key: key) {
                push(object)
            } else {
                FileSystem.remove(pendingDirectory + "/" + name)
            }
        }
    }

    /// Waits until every object handed over is pushed, failed, or left noted.
    public func finish() {
        group.wait()
    }

    /// Stops after the current part; what is left stays noted for the next run.
    public func cancel() {
        state.withLock { $0.cancelled = true }
        store.uploader.cancel()
    }

    private func upload(_ object: CachedObject) {
        let skip = state.withLock { $0.cancelled || $0.stoppedBy != nil }
        guard !skip, let key = CacheKey(hex: object.key) else { return }
        do {
            // A title goes up as one pack (`TitlePack`), its title.json read first: a
            // title damaged in this cache is never pushed.
            let title = try object.isTitle ? intactTitle(object) : nil
            let record = TierRecord(of: object, titleManifestSize: title.map { Int64($0.bytes.count) })
            // Another cache's record for this key is replaced: the last push wins.
            var uploaded = false
            if try store.record(for: key) != record {
                if let title, let folder = object.titleDirectory {
                    try store.publishTitle(
                        title, folder: cache.absolute(folder), record: record, packs: cache.root + "/tier/packs")
                } else {
                    try store.publish(objectAt: cache.absolute(object.path), record: record)
                }
                uploaded = true
            } else if title == nil {
                uploaded = try store.restoreObject(at: cache.absolute(object.path), record: record)
            }
            FileSystem.remove(pendingDirectory + "/" + object.key)
            events(.pushed(object, uploaded: uploaded))
        } catch {
            if error == .cancelled { return }
            if error.stopsTheTier {
                stop(because: error)
                return
            }
            events(.failed(object, error))
        }
    }

    private func intactTitle(_ object: CachedObject) throws(TierError) -> TitleOnDisk.Manifest {
        let title: TitleOnDisk.Manifest?
        do {
            title = try TitleOnDisk.intactManifest(of: object, in: cache)
        } catch {
            throw .localFile("\(error)")
        }
        guard let title else {
            throw .localFile(
                "the title \(object.shownName) is missing or damaged in \(cache.root); run `mediacache verify --repair` and fetch it again")
        }
        return title
    }

    private func note(_ key: String) {
        do {
            try FileSystem.makeDirectory(pendingDirectory, durable: false)
            let path = pendingDirectory + "/" + key
            FileSystem.createPrivateFile(path)
        } catch {
            // Without its note an object is still pushed now, only not after a crash.
        }
    }
}

extension TierError {
    /// The tier as a whole cannot be used: trying the next object would fail the same way.
    var stopsTheTier: Bool {
        switch self {
        case .unreachable, .credentialsRejected, .noSuchBucket, .missingEndpoint, .invalidEndpoint,
            .missingCredentials, .invalidLocation:
            true
        default: false
        }
    }
}
