import Foundation

/// A title's progress: shown twice a second, and saved (after the files it names are
/// flushed) four times a second or every `checkpointBytes` fetched.
extension TitleDownload {
    /// Four times a second while fetching: progress is shown and saved (and after every
    /// `checkpointBytes` fetched), resources on their way included, so `kill -9` costs
    /// about a quarter of a second of transfer. One checkpoint is saved at a time: on a
    /// slow disk they come as often as it allows, not in a queue.
    func tick() {
        guard !ended, !committing else { return }
        if onTheirWay.contains(where: { $0.bytesWritten > 0 }) || pieced.values.contains(where: { !$0.fetches.isEmpty }) {
            unsaved += 1
        }
        noteProgress()
        // A piece's rate is known only as its bytes come: an idle connection may take the
        // back of the slowest now (`PiecedFile.nextPieces`).
        if !pieced.isEmpty { fill() }
        _ = loop.after(Self.tickInterval) { [weak self] in self?.tick() }
    }

    static let tickInterval = 0.25
    /// Fetched since the last checkpoint, this much is flushed at once, so the flush
    /// before the commit finds little left: the disk works while the network does.
    static let checkpointBytes: Int64 = 16 << 20

    func noteProgress() {
        let now = TransferLoop.now()
        // With nothing left to fetch the commit comes next, and makes it all durable.
        let commitIsNext = running.isEmpty && writing.isEmpty && pending.isEmpty && pieced.isEmpty
        let due = now - lastCheckpoint >= Self.tickInterval
            || job.bytesFetched - bytesAtLastCheckpoint >= Self.checkpointBytes
        if unsaved > 0, due, !checkpointing, !commitIsNext { checkpoint() }
        guard now - lastProgressEvent >= 0.5 else { return }
        let done = progress.bytesHeld + onTheirWay.reduce(0) { $0 + $1.bytesReceived }
            + pieced.values.reduce(0) { $0 + $1.bytesReceived }
        let rate = Double(done - bytesAtLastEvent) / max(0.001, now - lastProgressEvent)
        let connections = inFlight
        job.download.activity.withLock { $0 = (max(0, rate), connections, false) }
        job.emit(
            .progress(
                url: job.url, name: job.name, bytesDone: done, length: nil, bytesPerSecond: max(0, rate),
                connections: connections, title: counts(listingMissing: false)))
        lastProgressEvent = now
        bytesAtLastEvent = done
    }

    /// How many segments and files are held, of the plan's (none before it is made).
    func counts(listingMissing: Bool) -> TitleCounts? {
        plan.map { TitleCounts(resources: $0.resources, isHeld: { progress.held[$0] != nil }, listingMissing: listingMissing) }
    }

    /// Flushes the files held so far, then saves the progress that names them.
    func checkpoint() {
        lastCheckpoint = TransferLoop.now()
        bytesAtLastCheckpoint = job.bytesFetched
        checkpointing = true
        unsaved = 0
        var snapshot = progress
        snapshot.copy = copy > 0 ? copy : nil
        for fetch in onTheirWay { snapshot.keepPartial(of: fetch) }
        for (path, file) in pieced { snapshot.partial[path] = file.partial }
        let state = snapshot.jobState(of: job.request, createdAt: createdAt)
        let (saved, savedState, staging, download, loop) = (snapshot, state, staging, job.download, loop)
        job.partial.diskQueue.async {
            saved.saveAfterFlushing(state: savedState, staging: staging)
            loop.post { download.job?.onTitle { $0.checkpointing = false } }
        }
    }
}
