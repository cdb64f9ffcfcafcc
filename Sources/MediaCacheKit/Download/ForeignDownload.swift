import Foundation

/// Another process's download of a key, as this process's readers may read it while
/// they wait for its lock (`serve` beside a `prefetch` of the same URL): its saved state
/// says what the bytes are, its journal which of them are written (both are in the page
/// cache the moment they are written, whatever reaches the disk), and its data file is
/// read through a descriptor of this process's own.
///
/// Nothing of it is trusted after a read until `stillHolds` says the bytes are still of
/// the same contents (`epoch`): the other process may start its data over at any time.
struct ForeignDownload: Sendable {
    let epoch: UInt64
    let held: RangeSet
    let about: DownloadData
    let file: DataFile
    /// Which file `file` is: the object it may become is recognized by it.
    let fileID: FileIdentity?

    /// What the download holding `key`'s lock has saved, once it has checkpointed once;
    /// nil before, for a stream of unknown length, or a title (none of which has a
    /// state of that kind), and when its commit will move an MP4's moov. Off the loop
    /// thread; only for a download players wait for (it keeps the origin's layout).
    static func look(key: CacheKey, cache: CacheDirectory) -> ForeignDownload? {
        LoopThreads.preconditionOff("reading another process's download")
        guard let state = savedState(key: key, cache: cache), let epoch = state.epoch, let length = state.length,
            length > 0, !state.isComplete, markReading(key: key, cache: cache),
            let file = try? DataFile(path: cache.dataPath(key: key), mode: .readOnly)
        else { return nil }
        var held = state.completed
        for range in ProgressJournal.recorded(path: cache.journalPath(key: key), epoch: epoch) where range.end <= length {
            held.insert(range)
        }
        // Only what the file holds now: one being started over is emptied first.
        guard let size = try? file.size() else { return nil }
        if size < length { held.remove(ByteRange(max(0, size), length)) }
        let about = DownloadData(
            length: length, contentType: state.contentType,
            originVersion: state.validators.etag ?? state.validators.lastModified)
        return ForeignDownload(epoch: epoch, held: held, about: about, file: file, fileID: file.identity())
    }

    /// Whether bytes read from `file` since `look` are still of contents `epoch`: its
    /// saved state still names them, or they were committed whole (the data file read is
    /// then complete, and never written again). Off the loop thread; asked after every
    /// read of the bytes.
    static func stillHolds(
        epoch: UInt64, about: DownloadData, file: FileIdentity?, key: CacheKey, cache: CacheDirectory, objects: ObjectStore
    ) -> Bool {
        if let state = savedState(key: key, cache: cache) { return state.epoch == epoch }
        guard !FileSystem.exists(cache.statePath(key: key)), let object = try? objects.index.object(key: key) else {
            return false
        }
        return isCommitted(about: about, file: file, as: object, in: cache)
    }

    /// Whether `object` holds the bytes readers were shown, whole: it is the very file
    /// they read (committed as it was), or the same version of the origin's file, of its
    /// length (or moved to another layout, when the origin names its versions). Off the
    /// loop thread.
    static func isCommitted(about: DownloadData, file: FileIdentity?, as object: CachedObject, in cache: CacheDirectory) -> Bool {
        if let file, FileSystem.identity(of: cache.absolute(object.path)) == file { return true }
        guard let version = about.originVersion else { return false }
        return (object.etag ?? object.lastModified) == version && (object.faststart == .relocated || object.size == about.length)
    }

    // MARK: Which layout the commit stores

    /// Marks that this process hands on the data file's bytes as they are (the origin's
    /// layout), then asks whether the downloading process has already chosen to move the
    /// MP4's moov at its commit: then nothing may be handed on, or a player reading on
    /// after the commit would get the other layout. Each side marks before it looks
    /// (`sealForRelocation`), so at least one of them sees the other.
    static func markReading(key: CacheKey, cache: CacheDirectory) -> Bool {
        let directory = cache.jobDirectory(key: key)
        guard (try? DataFile(path: directory + "/" + readingMark, mode: .readWrite)) != nil else { return false }
        return !FileSystem.exists(directory + "/" + sealedMark)
    }

    /// The committing process's side: whether it may move the moov (no other process
    /// has handed on its bytes; from now on none will).
    static func sealForRelocation(key: CacheKey, cache: CacheDirectory) -> Bool {
        let directory = cache.jobDirectory(key: key)
        // Never named (no state): no other process could read it.
        guard FileSystem.exists(directory) else { return true }
        guard (try? DataFile(path: directory + "/" + sealedMark, mode: .readWrite)) != nil else { return false }
        return !FileSystem.exists(directory + "/" + readingMark)
    }

    private static let readingMark = "read-by-another-process"
    private static let sealedMark = "layout-sealed"

    private static func savedState(key: CacheKey, cache: CacheDirectory) -> JobState? {
        let path = cache.statePath(key: key)
        guard let bytes = try? FileSystem.readAll(path) else { return nil }
        return try? JobStateCodec.decode(bytes, path: path)
    }
}
