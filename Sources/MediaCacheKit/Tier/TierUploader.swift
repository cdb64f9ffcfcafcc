import Foundation
import Synchronization

/// Uploads a cached file to the tier: one PUT below `multipartThreshold`, a multipart
/// upload with parts sent in parallel above it. A multipart upload survives `kill -9`:
/// its id and every confirmed part are saved in the cache as they happen
/// (`MultipartUploadState`), and the next upload of the same bytes resumes it, asking the
/// store which parts it holds. Uploads that cannot be resumed are aborted, so none is
/// left to pile up in the bucket (see `abortAbandonedUploads`).
public final class TierUploader: Sendable {
    public struct Settings: Sendable {
        /// Files at least this large go up in parts.
        public var multipartThreshold: Int64 = 16 << 20
        /// Bytes per part: at least 5 MiB, S3's smallest part but the last, and larger
        /// for a file that would need more than S3's 10 000 parts.
        public var partSize: Int64 = 16 << 20
        /// Parts in flight at once.
        public var parallelParts = 4
        /// How old an upload nobody knows of must be before `abortAbandonedUploads` ends it.
        public var abandonedAfter: TimeInterval = 24 * 3600

        public init() {}
    }

    public let client: S3Client
    public let settings: Settings
    /// `<cache>/tier/uploads`: one state file per multipart upload in progress.
    public let stateDirectory: String
    private let cancelled = LockedValue(false)
    /// Called after every part the store confirmed, with the parts confirmed so far in
    /// this upload; for progress.
    private let partUploaded: (@Sendable (Int) -> Void)?

    /// S3's limits, which other stores keep too (SeaweedFS refuses smaller parts).
    static let maxParts = 10_000
    static let minPartSize: Int64 = 5 << 20

    public init(
        client: S3Client, stateDirectory: String, settings: Settings = Settings(),
        partUploaded: (@Sendable (Int) -> Void)? = nil
    ) {
        self.client = client
        self.stateDirectory = stateDirectory
        self.settings = settings
        self.partUploaded = partUploaded
    }

    /// Stops every upload of this uploader at its next part boundary (they throw
    /// `TierError.cancelled`); what is saved lets a later run resume them.
    public func cancel() { cancelled.value = true }

    /// Uploads the file at `path` (`size` bytes with SHA-256 `sha256`) as `key`.
    public func upload(file path: String, size: Int64, sha256: String, to key: String, contentType: String? = nil)
        throws(TierError)
    {
        if size < settings.multipartThreshold {
            try client.putObject(key, file: path, range: ByteRange(0, size), contentType: contentType)
            return
        }
        try prepareStateDirectory()
        // One uploader of these bytes at a time, across threads and processes.
        let lock: FileLock
        do {
            lock = try FileLock.acquire(path: lockPath(sha256))
        } catch {
            throw .localFile("locking the upload of \(sha256): \(error)")
        }
        defer { withExtendedLifetime(lock) {} }

        var state = try resumableState(size: size, sha256: sha256, key: key)
        if state == nil {
            let id = try client.createMultipartUpload(key, contentType: contentType)
            let fresh = MultipartUploadState(
                endpoint: client.configuration.endpoint, bucket: client.location.bucket, key: key, uploadID: id,
                size: size, sha256: sha256, partSize: partSize(for: size), parts: [])
            // Saved before any part: from here on a crash leaves an upload this cache knows.
            try fresh.save(statePath(sha256))
            state = fresh
        }
        let complete = try uploadMissingParts(of: state!, from: path)
        do {
            try client.completeMultipartUpload(key, uploadID: complete.uploadID, parts: complete.parts)
        } catch {
            // A completion whose answer was lost completes nothing the second time:
            // the object being there, at its size, is what counts.
            guard try client.headObject(key)?.size == size else { throw error }
        }
        FileSystem.remove(statePath(sha256))
    }

    /// Aborts the saved upload of `sha256`, if any, and forgets it: for bytes that will
    /// not be uploaded after all (the object left the cache).
    public func abortSavedUpload(sha256: String) throws(TierError) {
        guard let state = MultipartUploadState.load(statePath(sha256)) else { return }
        if belongsToThisTier(state) { try client.abortMultipartUpload(state.key, uploadID: state.uploadID) }
        FileSystem.remove(statePath(sha256))
    }

    /// Aborts multipart uploads under `prefix` that no state file of this cache names
    /// and that began more than `settings.abandonedAfter` ago.
    ///
    /// The rule, since the bucket is shared: every cache saves the id of each upload it
    /// begins before sending a part, and resumes it at its next push. An upload no state
    /// names here may be another machine's, running now, so only age can tell it is
    /// abandoned: its cache was deleted, or its run died before saving the id. A day is
    /// far longer than any one upload takes; a machine that comes back later finds its
    /// upload gone and starts it again. Returns the uploads aborted.
    @discardableResult
    public func abortAbandonedUploads(under prefix: String, now: Date = Date()) throws(TierError) -> [S3MultipartUpload] {
        let known = Set(savedStates().filter(belongsToThisTier).map(\.uploadID))
        var aborted: [S3MultipartUpload] = []
        for upload in try client.listMultipartUploads(prefix: prefix) where !known.contains(upload.uploadID) {
            guard let initiated = upload.initiated, now.timeIntervalSince(initiated) > settings.abandonedAfter else {
                continue
            }
            try client.abortMultipartUpload(upload.key, uploadID: upload.uploadID)
            aborted.append(upload)
        }
        return aborted
    }

    // MARK: Resuming

    /// The saved upload of these bytes if the store still has it, with the parts the
    /// store holds; nil when there is none to resume. A saved upload that cannot be
    /// resumed (other key or size, other part size) is aborted and forgotten.
    private func resumableState(size: Int64, sha256: String, key: String) throws(TierError) -> MultipartUploadState? {
        guard var state = MultipartUploadState.load(statePath(sha256)) else { return nil }
        guard belongsToThisTier(state) else {
            // Another store's upload: not reachable with these credentials. That
            // store's rule for unknown uploads ends it.
            FileSystem.remove(statePath(sha256))
            return nil
        }
        guard state.key == key, state.size == size, state.sha256 == sha256, state.partSize == partSize(for: size) else {
            try client.abortMultipartUpload(state.key, uploadID: state.uploadID)
            FileSystem.remove(statePath(sha256))
            return nil
        }
        guard let held = try client.listParts(key, uploadID: state.uploadID) else {
            // Completed, aborted or expired meanwhile.
            FileSystem.remove(statePath(sha256))
            return nil
        }
        // The store holds only parts it received whole (their payload hash checked),
        // cut from these same bytes: parts a run sent but died before saving count too.
        state.parts = held.filter { (1...state.partCount).contains($0.number) }
        try state.save(statePath(sha256))
        return state
    }

    // MARK: Parts

    /// Sends every part `state` lacks, `settings.parallelParts` at a time, saving each as
    /// the store confirms it. Returns the state with every part.
    private func uploadMissingParts(of initial: MultipartUploadState, from source: String) throws(TierError)
        -> MultipartUploadState
    {
        let have = Set(initial.parts.map(\.number))
        let missing = (1...initial.partCount).filter { !have.contains($0) }
        let progress = PartProgress(state: initial, missing: missing)
        let stateFile = statePath(initial.sha256)
        // Threads of their own: each mostly waits on the network, and the dispatch pool
        // would run no more of them than there are cores.
        let finished = DispatchGroup()
        for _ in 0..<max(1, min(settings.parallelParts, missing.count)) {
            finished.enter()
            Thread.detachNewThread { [self] in
                defer { finished.leave() }
                while let number = progress.next(cancelled: cancelled.value) {
                    do {
                        let part = try client.uploadPart(
                            initial.key, uploadID: initial.uploadID, number: number, file: source,
                            range: initial.range(ofPart: number))
                        let confirmed = try progress.confirm(part, saveTo: stateFile)
                        partUploaded?(confirmed)
                    } catch {
                        progress.fail(error)
                    }
                }
            }
        }
        finished.wait()
        return try progress.result()
    }

    private func partSize(for size: Int64) -> Int64 {
        max(settings.partSize, Self.minPartSize, (size + Int64(Self.maxParts) - 1) / Int64(Self.maxParts))
    }

    private func belongsToThisTier(_ state: MultipartUploadState) -> Bool {
        state.endpoint == client.configuration.endpoint && state.bucket == client.location.bucket
    }

    private func savedStates() -> [MultipartUploadState] {
        FileSystem.contentsOfDirectory(stateDirectory).filter { $0.hasSuffix(".json") }.compactMap {
            MultipartUploadState.load(stateDirectory + "/" + $0)
        }
    }

    private func prepareStateDirectory() throws(TierError) {
        do {
            try FileSystem.makeDirectory(stateDirectory)
        } catch {
            throw .localFile("creating \(stateDirectory): \(error)")
        }
    }

    private func statePath(_ sha256: String) -> String { stateDirectory + "/" + sha256 + ".json" }
    private func lockPath(_ sha256: String) -> String { stateDirectory + "/" + sha256 + ".lock" }
}

/// The parts of one multipart upload still to send, shared by the threads sending them:
/// hands out part numbers, records confirmed parts and saves the state after each, and
/// keeps the first failure (after which no new part starts).
private final class PartProgress: Sendable {
    private struct State {
        var upload: MultipartUploadState
        var pending: [Int]
        var failure: TierError?
    }

    private let state: Mutex<State>

    init(state: MultipartUploadState, missing: [Int]) {
        self.state = Mutex(State(upload: state, pending: missing.reversed()))
    }

    func next(cancelled: Bool) -> Int? {
        state.withLock { $0.failure == nil && !cancelled ? $0.pending.popLast() : nil }
    }

    /// Records `part` and saves the state; returns how many parts are confirmed.
    func confirm(_ part: S3UploadedPart, saveTo path: String) throws(TierError) -> Int {
        try state.withLock { state throws(TierError) in
            state.upload.parts.append(part)
            try state.upload.save(path)
            return state.upload.parts.count
        }
    }

    func fail(_ error: Error) {
        state.withLock { state in
            if state.failure == nil { state.failure = (error as? TierError) ?? .localFile("\(error)") }
        }
    }

    /// The state with every part, else the first failure, else `.cancelled`.
    func result() throws(TierError) -> MultipartUploadState {
        try state.withLock { state throws(TierError) in
            if let failure = state.failure { throw failure }
            guard state.upload.parts.count == state.upload.partCount else { throw .cancelled }
            return state.upload
        }
    }
}
