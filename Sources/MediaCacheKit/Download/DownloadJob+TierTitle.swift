import Dispatch
import Synchronization

/// A streaming title the tier holds (`--tier`): its pack comes back whole, every file
/// checked against its `title.json` (`TierTitlePuller`), instead of segment by segment
/// from the origin; a pull that was stopped goes on from what it kept. The pull writes
/// and checks files, so it runs in the order of the job's disk queue under the job's
/// lock, on a thread of its own: it waits for each range of the pack, which the transfer
/// loop fetches beside the downloads, under the run's and the file's rate limits. The
/// transfer thread hears how it ended. A copy that cannot be used leaves the origin, as
/// for a file.
extension DownloadJob {
    func pullTitle(_ record: TierRecord, from tier: TierSource) {
        loop.preconditionOnLoop()
        // Bytes held from the origin keep going there, as a file's do (`pull` never asks it).
        let originMayFinish = tier.fallback != .none
        guard let lock, state.completed.isEmpty || !originMayFinish else { return declineTier(nil, in: tier) }
        let pull = TitlePull()
        phase = .pullingTitle(pull)
        let client = tier.store.client
        let puller = TierTitlePuller(layout: tier.store.layout, objects: service.objects) {
            [weak self] key, range throws(TierError) in
            guard let self else { throw .cancelled }
            return try readPack(key, range, from: client, for: pull)
        }
        let (loop, identity, staging) = (loop, request.entry.identity, TitleLayout.staging(key: key, in: cache))
        let started = TransferLoop.now()
        let forPlayers = download.priority == .interactive
        partial.runWaiting { [weak self] in
            // A title part-fetched from the origin keeps going there.
            if originMayFinish && FileSystem.exists(staging + "/" + TitleLayout.stateFile) {
                loop.post { [weak self] in self?.didPullTitle(nil, record: record, from: tier) }
                return
            }
            let watch = TitlePullWatch(
                isCancelled: { pull.isCancelled },
                resuming: { kept in
                    pull.resumedBytes = kept
                    loop.post { [weak self] in self?.didStartPull(of: record, keeping: kept) }
                },
                planned: { manifest, folder, held in
                    let view = pull.makeView(of: manifest, in: folder, holding: held)
                    loop.post { [weak self] in self?.publishPulledTitle(view) }
                },
                arriving: { path, note in pull.view?.note(path, note) },
                held: { member in pull.view?.didHold(member.path, .init(size: member.size, sha256: member.sha256)) },
                received: { bytes in
                    loop.post { [weak self] in self?.notePullProgress(bytes, of: record, since: started) }
                },
                asked: { pull.takeAsked() }, forPlayers: forPlayers)
            let outcome = Result { () throws(TierError) in
                try puller.pull(record, identity: identity, lockedBy: lock, watch: watch)
            }
            loop.post { [weak self] in self?.didPullTitle(outcome, record: record, from: tier) }
        }
    }

    /// Exactly `range` of the pack `key`, fetched on the transfer loop while the disk
    /// queue waits; `.cancelled` soon after the pull is stopped, even if the loop has
    /// stopped too (so the lock is never held on a transfer that will not end).
    private func readPack(_ key: String, _ range: ByteRange, from client: S3Client, for pull: TitlePull)
        throws(TierError) -> [UInt8]?
    {
        LoopThreads.preconditionOff("waiting for a title's pack")
        let answer = LockedValue<Result<[UInt8]?, TierError>?>(nil)
        let answered = DispatchSemaphore(value: 0)
        loop.post { [weak self] in
            guard let self, case .pullingTitle = phase else { return }
            // A player's pull goes ahead of background ones on the tier's host, as its
            // download would on an origin's.
            client.getObject(
                key, range: range, on: loop, rateLimits: loop.rateLimiter.limits(file: fileRateLimit),
                priority: download.priority.rawValue, isCancelled: { pull.isCancelled }
            ) { result in
                answer.value = result
                answered.signal()
            }
        }
        while answered.wait(timeout: .now() + .milliseconds(100)) == .timedOut {
            if pull.isCancelled { throw .cancelled }
        }
        return try (answer.value ?? .failure(.cancelled)).get()
    }

    /// Players (`serve`) read the title's files from the pull from now on.
    private func publishPulledTitle(_ view: TitleInProgress) {
        guard case .pullingTitle = phase else { return }
        download.held.publish(title: view)
    }

    /// Once the pull knows what an earlier one left that it keeps.
    private func didStartPull(of record: TierRecord, keeping kept: Int64) {
        guard case .pullingTitle = phase else { return }
        bytesFetched = kept
        emit(.started(url: url, name: name, length: record.size, resumedBytes: kept, connections: 1, source: .tier))
    }

    private func notePullProgress(_ bytes: Int64, of record: TierRecord, since started: Double) {
        guard case .pullingTitle(let pull) = phase else { return }
        bytesFetched = bytes
        let rate = Double(bytes - pull.resumedBytes) / max(0.001, TransferLoop.now() - started)
        emit(.progress(url: url, name: name, bytesDone: bytes, length: record.size, bytesPerSecond: rate, connections: 1))
    }

    /// `outcome` nil: the title was not pulled because the origin has part of it.
    private func didPullTitle(_ outcome: Result<CachedObject, TierError>?, record: TierRecord, from tier: TierSource) {
        loop.preconditionOnLoop()
        // Stopped (Ctrl-C) meanwhile: the result was reported.
        guard case .pullingTitle(let pull) = phase else { return }
        /// The origin takes over: players wait for its title, not the pull's.
        func decline(_ reason: String?) {
            if let view = pull.view { download.held.withdraw(title: view) }
            declineTier(reason, in: tier)
        }
        switch outcome {
        case nil:
            decline(nil)
        case .success(let object):
            bytesFetched = record.size
            // Nothing was written to the job's own folder but its unnamed data file.
            partial.remove()
            finish(.committed(object))
        case .failure(let error) where error.stopsTheTier || error.isTransient:
            tier.markUnusable(error)
            if tier.fallback != .origin(required: false) {
                return fail(JobFailure(.tier, "the tier cannot be used: \(error)"), keepPartial: false)
            }
            decline("the tier's copy of the title could not be read (\(error))")
        case .failure(let error):
            decline("the tier's copy of the title cannot be used (\(error))")
        }
    }
}

/// A title's pull from the tier, which the transfer thread may stop (Ctrl-C) while the
/// disk queue runs it: the range being read ends at its next bytes, no other starts.
/// Players reading the title as it arrives (`view`) ask for the files they wait for.
final class TitlePull: Sendable {
    private let cancelled = Atomic<Bool>(false)
    private let kept = Atomic<Int64>(0)
    private let asked = Mutex<[String]>([])
    private let madeView = Mutex<TitleInProgress?>(nil)

    /// What players read of the title while it is pulled; nil until `title.json` is read.
    var view: TitleInProgress? { madeView.withLock { $0 } }

    /// The view of the title `manifest` lists, its files written into `folder`.
    func makeView(of manifest: TitleManifest, in folder: String, holding held: [TitleManifest.Member]) -> TitleInProgress {
        let view = TitleInProgress(
            manifest: manifest, filesDirectory: folder,
            held: Dictionary(held.map { ($0.path, .init(size: $0.size, sha256: $0.sha256)) }, uniquingKeysWith: { first, _ in first })
        ) { [weak self] path, _ in self?.asked.withLock { $0.append(path) } }
        madeView.withLock { $0 = view }
        return view
    }

    /// The files players asked for since the last call, oldest first.
    func takeAsked() -> [String] {
        asked.withLock { asked in
            defer { asked.removeAll() }
            return asked
        }
    }

    func cancel() { cancelled.store(true, ordering: .relaxed) }

    var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    /// What an earlier pull left that this one keeps: the rate counts only the rest.
    var resumedBytes: Int64 {
        get { kept.load(ordering: .relaxed) }
        set { kept.store(newValue, ordering: .relaxed) }
    }
}
