import Foundation

/// A download's bytes on disk while it runs (`partial/<key>/`): the data file, the
/// progress journal, the saved state, and the queue that orders every disk step on them.
///
/// Owned by its job and confined to the transfer loop's thread; what it hands to
/// `diskQueue` (checkpoints, removal, the commit) runs there in order.
// @unchecked: confined to the loop thread; its disk steps run in order on `diskQueue`.
final class PartialFile: @unchecked Sendable {
    let cache: CacheDirectory
    let key: CacheKey
    /// Checkpoints, removal and the commit run here, in order, off the transfer thread.
    let diskQueue: DispatchQueue
    /// Nil before it is opened, and once it was removed or handed to the commit.
    private(set) var dataFile: DataFile?
    /// Made at the first checkpoint: files done before it need none.
    private var journal: ProgressJournal?
    /// False while no saved state can exist: a fresh start then skips looking for one.
    private var stateMayBeOnDisk = true
    /// Set when the job's folder was found missing: nothing in it needs reading.
    private var folderMissing = false
    /// The data file was just made and nothing was written to it yet.
    private var dataFileIsNew = false
    /// The length a small file's data file is given at its first checkpoint: a saved
    /// state vouches only for a data file of the file's full length.
    private var lengthOwedAtCheckpoint: Int64?
    /// Whether `partial/` was fsynced since this job's directory was made (disk queue only).
    private var directoryDurable = false
    private var lastCheckpoint = 0.0
    private var bytesSinceCheckpoint: Int64 = 0

    init(cache: CacheDirectory, key: CacheKey) {
        self.cache = cache
        self.key = key
        // On the shared pool, not a thread of its own: thousands of small files would
        // otherwise each wake (or make) a thread for their few disk tasks.
        diskQueue = DispatchQueue(label: "mediacache.job", target: .global())
    }

    var statePath: String { cache.statePath(key: key) }

    /// Runs `work`, which waits on the network (a tier pull reading its pack), in the
    /// disk queue's order but on a thread of its own: the queue is held until it ends,
    /// and no thread of the shared pool waits meanwhile.
    func runWaiting(_ work: @escaping @Sendable () -> Void) {
        let queue = diskQueue
        queue.async {
            queue.suspend()
            DispatchQueue(label: "mediacache.job.waiting").async {
                work()
                queue.resume()
            }
        }
    }

    // MARK: Opening

    /// Removes the job's folder when it, or anything in it, is a symbolic link (planted
    /// while no mediacache ran: following it would write outside the cache), and says
    /// what was found; nil when there was none. Links are unlinked, never followed.
    func removeLinks() -> String? {
        LoopThreads.preconditionOff("looking for links in a download's folder")
        let directory = cache.jobDirectory(key: key)
        // Most files have no folder yet: one lstat says so. Asked again on every start
        // (another process may have made it while this job waited for the key).
        let type = FileSystem.entryType(directory)
        folderMissing = type == nil
        guard let type else { return nil }
        if type == S_IFLNK {
            FileSystem.remove(directory)
            return directory
        }
        let links = FileSystem.contentsOfDirectory(directory).map { directory + "/" + $0 }.filter(FileSystem.isSymbolicLink)
        guard !links.isEmpty else { return nil }
        links.forEach(FileSystem.remove)
        FileSystem.removeTree(directory)
        return links.joined(separator: ", ")
    }

    /// The state saved by an earlier run with what the journal adds to it, or nil when
    /// none was saved. Throws when a saved state cannot be read.
    func savedState() throws -> JobState? {
        LoopThreads.preconditionOff("reading a saved state")
        let statePath = statePath
        stateMayBeOnDisk = !folderMissing && FileSystem.exists(statePath)
        guard stateMayBeOnDisk else { return nil }
        var saved = try JobStateCodec.decode(try FileSystem.readAll(statePath), path: statePath)
        // What the journal adds was written after the state, in this boot.
        if let epoch = saved.epoch, let length = saved.length {
            let journalPath = cache.journalPath(key: key)
            for range in ProgressJournal.recorded(path: journalPath, epoch: epoch) where range.end <= length {
                saved.completed.insert(range)
            }
        }
        return saved
    }

    /// Opens a data file without a name (a spare one if there is one), for a file with
    /// nothing to resume: it gets its name, and the job its directory, with the first
    /// checkpoint, so most small files never need either. False if none could be made.
    func openUnnamed(spares: SpareDataFiles?) -> Bool {
        let path = cache.dataPath(key: key)
        guard let file = spares?.take(path: path) ?? DataFile.unnamed(in: cache.partialDirectory, path: path) else {
            return false
        }
        dataFile = file
        dataFileIsNew = true
        return true
    }

    /// Opens the named data file of a resumed download; returns its size.
    func openNamed() throws -> Int64 {
        LoopThreads.preconditionOff("opening a resumed download's data")
        try FileSystem.makeDirectory(cache.jobDirectory(key: key), durable: false, replacingLink: true)
        let file = try DataFile(path: cache.dataPath(key: key), mode: .readWrite)
        dataFile = file
        return try file.size()
    }

    /// Lets the data file's descriptor go (the job starts again later).
    func close() {
        dataFile = nil
    }

    // MARK: Writing

    /// Empties and reserves the data file for new contents of `length` bytes, on the
    /// disk queue (a truncate, a `statfs` and an `fallocate` may each wait for the disk,
    /// and the queue may still be busy with a checkpoint's fdatasync); `done` hears how it
    /// went, on the disk queue. False when there is no data file (nothing to prepare).
    ///
    /// A saved state may still claim bytes of the old data (a checkpoint written before
    /// the discard, or one still queued): it is removed, after every queued checkpoint
    /// ran, before a byte is overwritten, so a crash here never pairs old claims with
    /// new or zeroed bytes. The caller writes nothing before `done` says so.
    ///
    /// False, and `done` is not called, when nothing needs the disk: there is no data
    /// file, or it is a new, empty one for a small file (no state to remove, nothing to
    /// empty, and a reservation gains nothing below `smallFileBytes`).
    func startOver(length: Int64?, done: @escaping @Sendable (Result<Void, DataFileRefusal>) -> Void) -> Bool {
        guard let file = dataFile else { return false }
        defer { dataFileIsNew = false }
        if dataFileIsNew && !stateMayBeOnDisk && (length ?? 0) < Self.smallFileBytes {
            lengthOwedAtCheckpoint = length
            return false
        }
        lengthOwedAtCheckpoint = nil
        let removeState = stateMayBeOnDisk
        // Every later checkpoint queues behind the removal, so none can be undone by it.
        stateMayBeOnDisk = false
        let (statePath, directory, partialDirectory) = (statePath, cache.jobDirectory(key: key), cache.partialDirectory)
        diskQueue.async {
            if removeState && FileSystem.exists(statePath) {
                FileSystem.remove(statePath)
                try? FileSystem.syncDirectory(directory)
            }
            do throws(SystemError) {
                try Self.empty(file, reserving: length, freeIn: partialDirectory)
                done(.success(()))
            } catch {
                let full = error.code == ENOSPC
                done(.failure(DataFileRefusal(
                    error: error, freeBytes: full ? FileSystem.freeBytes(partialDirectory) : nil,
                    capacityBytes: full ? FileSystem.capacityBytes(partialDirectory) : nil)))
            }
        }
        return true
    }

    /// Below this a new file is not reserved ahead: it arrives in a response or two,
    /// the file system's delayed allocation keeps it in one piece, and a full disk is
    /// reported by the write (the disk-queue round trip cost a small file more than
    /// its bytes did). One still running at its first checkpoint gets its length then.
    static let smallFileBytes: Int64 = 1 << 20

    /// Empties `file` and reserves `length` bytes for it. Off the transfer thread.
    private static func empty(_ file: DataFile, reserving length: Int64?, freeIn directory: String) throws(SystemError) {
        // Not a new, empty file: ext4 flushes a file truncated to 0 when it is closed
        // (auto_da_alloc), a cost paid for nothing.
        if try file.size() > 0 { try file.truncate(length: 0) }
        guard let length, length > 0 else { return }
        // A length the disk cannot hold (or a lie: 10 GB for 1,000 bytes) is refused
        // before it is reserved. Below 64 MiB the reservation itself says ENOSPC, and a
        // file of many small ones skips the statfs.
        if length >= 64 << 20, let free = FileSystem.freeBytes(directory), length > free {
            throw SystemError("reserve \(length) bytes", path: file.path, code: ENOSPC)
        }
        try file.preallocate(length: length)
    }

    /// Gives back every byte of the data file: what a failed stream wrote, which no range
    /// can continue. On the disk queue, before the checkpoint that follows.
    func releaseAll() {
        guard let file = dataFile else { return }
        diskQueue.async { try? file.truncate(length: 0) }
    }

    /// Gives back the space reserved for bytes never received, when a failed download
    /// is kept for a later run: what it holds on disk is then what it has. Hole punching
    /// is file-system work: on the disk queue, before the checkpoint that follows.
    func releaseUnheld(_ held: RangeSet, length: Int64?) {
        guard let file = dataFile, let length else { return }
        let gaps = held.gaps(within: ByteRange(0, length))
        diskQueue.async {
            for gap in gaps { file.releaseBlocks(gap) }
        }
    }

    /// Writes `chunk` at `offset` and appends the range to the journal of contents `epoch`.
    func write(_ chunk: BodyChunk, at offset: Int64, epoch: UInt64?) throws {
        guard let file = dataFile else { return }
        dataFileIsNew = false
        try chunk.write(to: file, at: offset)
        let written = ByteRange(offset, offset + Int64(chunk.count))
        bytesSinceCheckpoint += written.count
        // A journal that fails is dropped: the durable checkpoints still hold.
        if let journal, let epoch {
            do { try journal.record(written, epoch: epoch) } catch { self.journal = nil }
        }
    }

    // MARK: Checkpoints

    /// Checkpoints are counted from `now` (the fetch begins).
    func restartCheckpointClock(at now: Double) {
        lastCheckpoint = now
    }

    /// Whether it is time to save progress: after `checkpointInterval` (sooner for the
    /// first, which starts the journal, after which a kill costs almost nothing), or
    /// after enough bytes but not more often than `minCheckpointInterval`.
    func checkpointIsDue(now: Double, options: PrefetchOptions, length: Int64?) -> Bool {
        let elapsed = now - lastCheckpoint
        let enoughBytes = max(options.checkpointBytes, (length ?? 0) / 100)
        let interval = journal == nil ? options.firstCheckpointInterval : options.checkpointInterval
        return elapsed >= interval || (bytesSinceCheckpoint >= enoughBytes && elapsed >= options.minCheckpointInterval)
    }

    /// Saves progress: the data is flushed before the state that claims it is written
    /// (temporary file, fsync, rename), off the transfer thread. `failed` hears why a
    /// save failed, on the disk queue.
    func checkpoint(_ state: JobState, failed: @escaping @Sendable (String) -> Void) {
        guard let file = dataFile else { return }
        stateMayBeOnDisk = true
        lastCheckpoint = TransferLoop.now()
        bytesSinceCheckpoint = 0
        updateJournal(state)
        var stamped = state
        stamped.updatedAt = Date()
        let snapshot = stamped
        let statePath = statePath
        let partialDirectory = cache.partialDirectory
        let cache = cache
        let key = key
        let owedLength = lengthOwedAtCheckpoint
        lengthOwedAtCheckpoint = nil
        diskQueue.async { [weak self] in
            do {
                // Only grows the file: every write lands below the length.
                if let owedLength, try file.size() < owedLength { try file.truncate(length: owedLength) }
                try file.syncData()
                try cache.name(file, key: key)
                try FileSystem.writeAtomically(try JobStateCodec.encode(snapshot), to: statePath)
                if self?.directoryDurable == false {
                    try FileSystem.syncDirectory(partialDirectory)
                    self?.directoryDurable = true
                }
            } catch where (error as? SystemError)?.isDescriptorShortage == true {
                // Out of descriptors for a moment: the next checkpoint saves what this
                // one would have; nothing on disk claims more than it holds.
            } catch {
                failed("saving progress failed: \(error)")
            }
        }
    }

    /// At each checkpoint the journal restarts from everything held, so it stays short.
    private func updateJournal(_ state: JobState) {
        guard let epoch = state.epoch, !state.isComplete else { return }
        if let journal {
            do { try journal.rewrite(epoch: epoch, holding: state.completed.ranges) } catch { self.journal = nil }
        } else {
            _ = try? FileSystem.makeDirectory(cache.jobDirectory(key: key), durable: false, replacingLink: true)
            journal = ProgressJournal(path: cache.journalPath(key: key), epoch: epoch, holding: state.completed.ranges)
        }
    }

    // MARK: Ending

    /// Nothing is written any more: the journal's descriptor goes back before the commit.
    func closeJournal() {
        journal = nil
    }

    /// Removes the directory with everything in it, after every queued disk step.
    func remove() {
        let directory = cache.jobDirectory(key: key)
        dataFile = nil
        diskQueue.async { [weak self] in
            FileSystem.removeTree(directory)
            // A directory made again later is new to `partial/`.
            self?.directoryDurable = false
        }
    }
}

/// Why a data file could not be made ready for new contents, with the space left on the
/// disk when it was full (for the message).
struct DataFileRefusal: Error {
    let error: SystemError
    let freeBytes: Int64?
    /// The whole file system's size: a length beyond it is the origin's error, not a full disk.
    let capacityBytes: Int64?
}
