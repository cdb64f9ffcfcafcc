/// Where a job is in its life, each phase carrying what only it needs: probing and
/// fetching carry the `FetchAttempt` under way, so nothing one try learned leaks into
/// the next.
extension DownloadJob {
    enum Phase {
        /// Made, not yet started.
        case starting
        /// The key's lock, the index and the saved state are read off the transfer thread;
        /// `afterWaiting`: the lock was found taken before (the wait was reported).
        case preparing(afterWaiting: Bool)
        /// Another process (or job) holds the key's lock: asked for again when `timer` fires.
        case waitingForLock(timer: Int)
        /// The process ran short of file descriptors while preparing: tried again when
        /// `timer` fires, once other jobs have freed some.
        case waitingForDescriptors(timer: Int)
        /// The tier is asked whether it has a copy (a request on the transfer loop).
        case lookingUpTier
        /// The tier holds the title: its pack comes back whole on the disk queue.
        case pullingTitle(TitlePull)
        /// The first request of an attempt is out; its head decides the rest.
        case probing(FetchAttempt)
        /// The probe's head announced new contents: the data file is emptied and
        /// reserved on the disk queue while the probe is held (`prepareDataFile`).
        case preparingDataFile(FetchAttempt)
        /// The probe was accepted: connections fill the file.
        case fetching(FetchAttempt)
        /// The URL answered with a playlist: the job is a streaming title's download now.
        case title(TitleDownload)
        /// Every byte is held: verification and commit run off the transfer thread.
        case committing
        case finished(DownloadResult)
    }

    /// The attempt under way while probing or fetching; nil in every other phase.
    var attempt: FetchAttempt? {
        switch phase {
        case .probing(let attempt), .preparingDataFile(let attempt), .fetching(let attempt): attempt
        default: nil
        }
    }

    var isFinished: Bool {
        if case .finished = phase { true } else { false }
    }

    /// Whether responses still count: an attempt is probing or fetching.
    var isTransferring: Bool { attempt != nil }
}
