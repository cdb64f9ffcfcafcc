/// Where a job is in its life, each phase carrying what only it needs: a retry, a
/// mirror switch or a changed origin begins a fresh `Attempt`, so nothing one try
/// learned leaks into the next.
extension DownloadJob {
    enum Phase {
        /// Made, not yet started.
        case starting
        /// The key's lock, the index and the saved state are read off the transfer thread;
        /// `afterWaiting`: the lock was found taken before (the wait was reported).
        case preparing(afterWaiting: Bool)
        /// Another process (or job) holds the key's lock: asked for again shortly.
        case waitingForLock
        /// The tier is asked whether it has a copy (off the transfer thread).
        case lookingUpTier
        /// The first request of an attempt is out; its head decides the rest.
        case probing(Attempt)
        /// The probe was accepted: connections fill the file.
        case fetching(Attempt)
        /// Every byte is held: verification and commit run off the transfer thread.
        case committing
        case finished(DownloadResult)
    }

    /// What one try at the origin learns while it probes and fetches.
    struct Attempt {
        /// Set once the probe's first body bytes were checked for an error page.
        var firstBytesChecked = false
        /// A text-like Content-Type on a media URL: the first bytes decide.
        var suspectMediaType: String?
        /// Other connections wait (until this time) for a response that decides what comes
        /// first (the probe's first bytes, a late moov); nil while nobody waits.
        var holdFillUntil: Double?
        /// The search for an MP4's moov; nil once there is nothing left to learn.
        var moovSearch: MoovSearch?
        /// Demands that locate a late moov (the tail after mdat, box headers), kept until
        /// their bytes are held.
        var layoutDemands: [ByteRange] = []
        /// Hashes the contiguous prefix while the rest arrives (files of 32 MiB and more).
        var hasher: PrefixHasher?

        /// Whether the other connections wait at `now`.
        func holdsFill(at now: Double) -> Bool { holdFillUntil.map { now < $0 } ?? false }
    }

    /// Finds an MP4's moov while bytes arrive.
    struct MoovSearch {
        var locator: MoovLocator
        /// Whether the tail after mdat was asked for first.
        var tailRequested = false
        /// Whether `moov-found` was reported.
        var reported = false
    }

    /// The attempt under way while probing or fetching, nil in every other phase (where
    /// writes change nothing).
    var attempt: Attempt? {
        get {
            switch phase {
            case .probing(let attempt), .fetching(let attempt): attempt
            default: nil
            }
        }
        set {
            guard let newValue else { return }
            switch phase {
            case .probing: phase = .probing(newValue)
            case .fetching: phase = .fetching(newValue)
            default: break
            }
        }
    }

    var isFinished: Bool {
        if case .finished = phase { true } else { false }
    }

    /// Whether responses still count: an attempt is probing or fetching.
    var isTransferring: Bool { attempt != nil }
}
