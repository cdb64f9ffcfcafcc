import Foundation

/// How a job uses its `PartialFile`: new contents, checkpoints and progress, and
/// handing the finished file to the committer.
extension DownloadJob {
    /// Empties and reserves the data file for a new download of `length` bytes (when
    /// `fresh`); false when the bytes cannot go there: the disk refused (the job failed),
    /// or the source cannot be giving this file at that length (the next one is asked).
    func prepareDataFile(length: Int64?, fresh: Bool) -> Bool {
        loop.preconditionOnLoop()
        if let problem = source.lengthProblem(length) {
            if !tryNextSource(after: .failed(problem)) { fail(JobFailure(.badResponse, problem), keepPartial: false) }
            return false
        }
        guard fresh, partial.dataFile != nil else { return true }
        // New contents: no journal record of the old ones may ever vouch for them, and
        // no reader of the old ones may read on into them.
        state.epoch = JobState.newEpoch()
        download.held.startOver()
        do {
            try partial.startOver(length: length)
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
        if partial.checkpointIsDue(now: now, options: options, length: state.length) {
            checkpoint()
        }
        if now - lastProgress >= 0.5 {
            let done = state.bytesDone
            let rate = Double(done - bytesAtLastProgress) / max(0.001, now - lastProgress)
            let connections = attempt?.connections ?? 0
            download.activity.withLock { $0 = (max(0, rate), connections) }
            emit(
                .progress(
                    url: url, name: name, bytesDone: done, length: state.length, bytesPerSecond: max(0, rate),
                    connections: connections))
            lastProgress = now
            bytesAtLastProgress = done
        }
    }

    /// Saves progress off the transfer thread; a save that fails fails the job.
    func checkpoint() {
        partial.checkpoint(state) { [weak self] message in
            self?.loop.post { [weak self] in self?.fail(JobFailure(.io, message), keepPartial: true) }
        }
    }

    /// Every byte is held: verify and commit off the transfer thread, behind the next
    /// downloads (the service frees this one's slot when its bound on commits behind
    /// allows).
    func commit() {
        loop.preconditionOnLoop()
        guard let file = partial.dataFile else { return }
        let hasher = attempt?.hasher
        phase = .committing
        if let wakeTimer { loop.cancelTimer(wakeTimer) }
        partial.closeJournal()
        let committer = ObjectCommitter(cache: cache, faststart: options.faststart)
        let commits = service.commits
        let snapshot = state
        let key = key
        let delay = options.commitDelayForTesting
        partial.diskQueue.async { [weak self] in
            if delay > 0 { Thread.sleep(forTimeInterval: delay) }
            do throws(CommitError) {
                let publication = try committer.prepare(key: key, file: file, state: snapshot, hasher: hasher)
                // The disk queue is free again while the publication waits for its group.
                commits.publish(publication) { [weak self] result in
                    let committed = result.map { publication.object }.mapError(JobFailure.init)
                    self?.loop.post { [weak self] in self?.didCommit(committed) }
                }
            } catch where error.blamesTheBytes {
                self?.loop.post { [weak self] in
                    guard let self, !self.tryNextSource(after: .badBytes(error.description)) else { return }
                    self.didCommit(.failure(JobFailure(error)))
                }
            } catch {
                self?.loop.post { [weak self] in self?.didCommit(.failure(JobFailure(error))) }
            }
        }
        service.jobDidWriteAll(self, bytes: snapshot.length ?? 0)
    }

    private func didCommit(_ result: Result<CachedObject, JobFailure>) {
        loop.preconditionOnLoop()
        partial.close()
        switch result {
        case .success(let object):
            emit(.verified(url: url, sha256: object.sha256))
            finish(.committed(object))
        case .failure(let failure):
            fail(failure, keepPartial: failure.code != .checksumMismatch)
        }
    }
}
