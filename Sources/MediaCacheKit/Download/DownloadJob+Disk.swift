import CCurl
import Foundation

/// How a job uses its `PartialFile`: new contents, checkpoints and progress, and
/// handing the finished file to the committer.
extension DownloadJob {
    /// Makes the data file ready for the bytes of `transfer`'s response (`length` long),
    /// then runs `then`; false when the bytes cannot go there: the source cannot be giving
    /// this file at that length (the next one is asked).
    ///
    /// New contents (`fresh`) need the file emptied and reserved (a new file for a small
    /// one needs neither, and goes on at once), which is disk work: it runs on the disk
    /// queue while the job is `.preparingDataFile` and `transfer` is held (libcurl keeps
    /// what arrives), and `then` runs when the disk answers, before the transfer may
    /// deliver a byte; if the disk refused, the job fails instead.
    func prepareDataFile(length: Int64?, fresh: Bool, holding transfer: HTTPTransfer, then: @escaping () -> Void) -> Bool {
        loop.preconditionOnLoop()
        if let problem = source.lengthProblem(length) {
            if !tryNextSource(after: .failed(problem)) { fail(JobFailure(.badResponse, problem), keepPartial: false) }
            return false
        }
        guard fresh, partial.dataFile != nil, let attempt else {
            then()
            return true
        }
        // New contents: no journal record of the old ones may ever vouch for them, and
        // no reader of the old ones may read on into them.
        state.epoch = JobState.newEpoch()
        download.held.startOver()
        let loop = loop
        // Crosses the disk queue untouched, for the loop to take back.
        let waiting = LoopBound((attempt: attempt, transfer: transfer, then: then), loop: loop)
        let posted = partial.startOver(length: length) { [weak self] result in
            loop.post { [weak self] in
                let (attempt, transfer, then) = waiting.value
                self?.didPrepareDataFile(result, length: length, attempt: attempt, transfer: transfer, then: then)
            }
        }
        guard posted else {
            then()
            return true
        }
        phase = .preparingDataFile(attempt)
        loop.hold(transfer)
        return true
    }

    /// The disk answered: the fetch goes on (`then`, then the held transfer receives
    /// again, or its end, if it ended meanwhile, is handled now), or the job fails.
    private func didPrepareDataFile(
        _ result: Result<Void, DataFileRefusal>, length: Int64?, attempt: FetchAttempt, transfer: HTTPTransfer,
        then: () -> Void
    ) {
        loop.preconditionOnLoop()
        // Stopped, failed or started over meanwhile: that path dealt with the transfer.
        guard case .preparingDataFile(let current) = phase, current === attempt else { return }
        phase = .probing(attempt)
        let ended = attempt.takeEndsWhilePreparing()
        if case .failure = result {
            // Their ends were reported already: only the others are cancelled.
            for end in ended { attempt.remove(end.transfer) }
        }
        switch result {
        case .failure(let refusal) where refusal.error.code == ENOSPC:
            let free = refusal.freeBytes.map { ", \(ByteCount.format($0)) free" } ?? ""
            var needed = length.map { " (\(name) needs \(ByteCount.format($0))\(free))" } ?? ""
            // Freeing space cannot help: say so, and that the origin may have lied.
            if let length, let capacity = refusal.capacityBytes, length > capacity {
                needed = " (\(name) needs \(ByteCount.format(length)), more than the whole disk holds, "
                    + "\(ByteCount.format(capacity)): the disk is too small, or the origin's length is wrong)"
            }
            fail(JobFailure(.io, "\(refusal.error)\(needed)"), keepPartial: false)
            return
        case .failure(let refusal):
            fail(JobFailure(.io, "\(refusal.error)"), keepPartial: false)
            return
        case .success:
            break
        }
        then()
        if let end = ended.first(where: { $0.transfer === transfer }) {
            self.transfer(transfer, didCompleteWith: end.error)
        } else if attempt.fragment(of: transfer) != nil, transfer.delegate != nil {
            release(transfer)
        }
        for end in ended where end.transfer !== transfer { self.transfer(end.transfer, didCompleteWith: end.error) }
    }

    /// Lets a transfer held for the disk receive again: what libcurl kept may arrive at
    /// once, so inside `insideCurl`, as the rate limiter does.
    private func release(_ transfer: HTTPTransfer) {
        var code = CURLE_OK
        loop.insideCurl { code = loop.release(transfer, now: TransferLoop.now()) }
        if code != CURLE_OK { loop.end(transfer, code: code) }
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
            download.activity.withLock { $0 = (max(0, rate), connections, false) }
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
        // An empty answer at a playlist's URL (or labelled one) would stay cached as the
        // title, for good: an origin mid-publish or misconfigured.
        if state.length == 0, source.kind == .origin, let format = expectedPresentation {
            let what = format == .hls ? "an HLS playlist" : "a DASH MPD"
            fail(
                JobFailure(
                    .notMedia,
                    "the origin answered with an empty body where \(what) is expected (by its name or Content-Type): "
                        + "nothing was cached; try again once the origin serves it"),
                keepPartial: false)
            return
        }
        // An empty file had no first bytes to show it is one.
        if case .fetching = phase { announceFileStart() }
        let hasher = attempt?.hasher
        cancelWake()
        phase = .committing
        partial.closeJournal()
        let committer = ObjectCommitter(cache: cache, faststart: options.faststart)
        let commits = service.commits
        let snapshot = state
        let (key, readers) = (key, download.held)
        let delay = options.commitDelayForTesting
        let finishedAt = Date()
        partial.diskQueue.async { [weak self] in
            if delay > 0 { Thread.sleep(forTimeInterval: delay) }
            do throws(CommitError) {
                let publication = try committer.prepare(
                    key: key, file: file, state: snapshot, hasher: hasher, readers: readers, finishedAt: finishedAt)
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
            // The same bytes would fail their checksum the same way: nothing is kept
            // for a resume that could only repeat it.
            fail(failure, keepPartial: failure.code != .checksumMismatch)
        }
    }
}
