import Foundation

/// Where a job touches the disk beyond plain writes: preallocation, checkpoints and
/// handing the finished file to the committer.
extension DownloadJob {
    /// Empties and reserves the data file for a new download of `length` bytes.
    ///
    /// A saved state may still claim bytes of the old data (a checkpoint written before
    /// the discard, or one still queued): it is removed, after every queued checkpoint
    /// ran, before a byte is overwritten, so a crash here never pairs old claims with
    /// new or zeroed bytes.
    func prepareDataFile(length: Int64?, fresh: Bool) -> Bool {
        loop.assertOnLoop()
        guard fresh, let file = dataFile else { return true }
        let statePath = cache.statePath(key: key)
        let directory = cache.jobDirectory(key: key)
        if stateMayBeOnDisk {
            diskQueue.sync {
                guard FileSystem.exists(statePath) else { return }
                FileSystem.remove(statePath)
                try? FileSystem.syncDirectory(directory)
            }
            stateMayBeOnDisk = false
        }
        // New contents: no journal record of the old ones may ever vouch for them, and
        // no reader of the old ones may read on into them.
        state.epoch = JobState.newEpoch()
        download.held.startOver()
        do {
            try file.truncate(length: 0)
            if let length, length > 0 { try file.preallocate(length: length) }
            return true
        } catch let error as SystemError where error.code == ENOSPC {
            let free = FileSystem.freeBytes(cache.root).map { ", \(ByteCount.format($0)) free" } ?? ""
            let needed = length.map { " (\(name) needs \(ByteCount.format($0))\(free))" } ?? ""
            fail(JobFailure(.io, "\(error)\(needed)"), keepPartial: false)
            return false
        } catch {
            fail(JobFailure(.io, "\(error)"), keepPartial: false)
            return false
        }
    }

    func noteProgress() {
        let now = TransferLoop.now()
        let elapsed = now - lastCheckpoint
        let enoughBytes = max(options.checkpointBytes, (state.length ?? 0) / 100)
        // The first checkpoint starts the journal, after which a kill costs almost
        // nothing: it comes early for a file still running, never for one done at once.
        let interval = journal == nil ? options.firstCheckpointInterval : options.checkpointInterval
        if elapsed >= interval
            || (bytesSinceCheckpoint >= enoughBytes && elapsed >= options.minCheckpointInterval)
        {
            checkpoint()
        }
        if now - lastProgress >= 0.5 {
            let done = state.bytesDone
            let rate = Double(done - bytesAtLastProgress) / max(0.001, now - lastProgress)
            emit(
                .progress(
                    url: url, name: name, bytesDone: done, length: state.length, bytesPerSecond: max(0, rate),
                    connections: fragments.count))
            lastProgress = now
            bytesAtLastProgress = done
        }
    }

    /// Saves progress: the data is flushed before the state that claims it is written
    /// (temporary file, fsync, rename), off the transfer thread.
    func checkpoint() {
        guard let file = dataFile else { return }
        stateMayBeOnDisk = true
        lastCheckpoint = TransferLoop.now()
        bytesSinceCheckpoint = 0
        updateJournal()
        var stamped = state
        stamped.updatedAt = Date()
        let snapshot = stamped
        let statePath = cache.statePath(key: key)
        let partialDirectory = cache.partialDirectory
        let cache = cache
        let key = key
        diskQueue.async { [weak self] in
            do {
                try file.syncData()
                try cache.name(file, key: key)
                try FileSystem.writeAtomically(try JobStateCodec.encode(snapshot), to: statePath)
                if self?.jobDirectoryDurable == false {
                    try FileSystem.syncDirectory(partialDirectory)
                    self?.jobDirectoryDurable = true
                }
            } catch where (error as? SystemError)?.isDescriptorShortage == true {
                // Out of descriptors for a moment: the next checkpoint saves what this
                // one would have; nothing on disk claims more than it holds.
            } catch {
                let message = "saving progress failed: \(error)"
                self?.loop.post { [weak self] in self?.fail(JobFailure(.io, message), keepPartial: true) }
            }
        }
    }

    /// Appends a just-written range to the journal; a journal that fails is dropped
    /// (the durable checkpoints still hold).
    func journalWrite(_ range: ByteRange) {
        guard let journal, let epoch = state.epoch else { return }
        do { try journal.record(range, epoch: epoch) } catch { self.journal = nil }
    }

    /// At each checkpoint the journal restarts from everything held, so it stays short.
    private func updateJournal() {
        guard let epoch = state.epoch, !state.isComplete else { return }
        if let journal {
            do { try journal.rewrite(epoch: epoch, holding: state.completed.ranges) } catch { self.journal = nil }
        } else {
            try? FileSystem.makeDirectory(cache.jobDirectory(key: key), durable: false)
            journal = ProgressJournal(path: cache.journalPath(key: key), epoch: epoch, holding: state.completed.ranges)
        }
    }

    /// Every byte is held: verify and commit off the transfer thread, behind the next
    /// downloads (the service frees this one's slot when its bound on commits behind
    /// allows).
    func commit() {
        loop.assertOnLoop()
        guard let file = dataFile else { return }
        let hasher = attempt?.hasher
        phase = .committing
        if let wakeTimer { loop.cancelTimer(wakeTimer) }
        // Nothing is written any more: its descriptor goes back before the commit.
        journal = nil
        let committer = ObjectCommitter(cache: cache, faststart: options.faststart)
        let commits = service.commits
        let snapshot = state
        let key = key
        let delay = options.commitDelayForTesting
        diskQueue.async { [weak self] in
            if delay > 0 { Thread.sleep(forTimeInterval: delay) }
            do throws(JobFailure) {
                let publication = try committer.prepare(key: key, file: file, state: snapshot, hasher: hasher)
                // The disk queue is free again while the publication waits for its group.
                commits.publish(publication) { [weak self] result in
                    let committed = result.map { publication.object }
                    self?.loop.post { [weak self] in self?.didCommit(committed) }
                }
            } catch {
                self?.loop.post { [weak self] in self?.didCommit(.failure(error)) }
            }
        }
        service.jobDidWriteAll(self, bytes: snapshot.length ?? 0)
    }

    private func didCommit(_ result: Result<CachedObject, JobFailure>) {
        loop.assertOnLoop()
        dataFile = nil
        switch result {
        case .success(let object):
            emit(.verified(url: url, sha256: object.sha256))
            finish(.committed(object))
        case .failure(let failure):
            fail(failure, keepPartial: failure.code != .checksumMismatch)
        }
    }
}
