import Synchronization

/// One download in the registry: the key's submissions, what readers may read, and
/// (once started, on the loop thread) its job.
final class Download: Sendable {
    let key: CacheKey
    /// The request the download runs for: the first submission's.
    let request: JobRequest
    /// The first submission comes first. Changed and read while the service's registry
    /// lock is held, so a submission joins a download before it ends, or not at all.
    let submissions = Mutex<[Submission]>([])
    let held = HeldBytes()
    /// Rate and connections as of the last progress event, for a status page;
    /// `elsewhere`: what is shown is another process's download of the key.
    let activity = Mutex<(bytesPerSecond: Double, connections: Int, elsewhere: Bool)>((0, 0, false))
    private let confined: LoopBound<Confined>

    private struct Confined {
        var priority: DownloadPriority
        var job: DownloadJob?
        var slotFreed = false
        var demands: [Int: ByteRange] = [:]
    }

    init(key: CacheKey, request: JobRequest, priority: DownloadPriority, loop: TransferLoop) {
        self.key = key
        self.request = request
        confined = LoopBound(Confined(priority: priority), loop: loop)
    }

    var priority: DownloadPriority {
        get { confined.value.priority }
        set { confined.value.priority = newValue }
    }

    var job: DownloadJob? {
        get { confined.value.job }
        set { confined.value.job = newValue }
    }

    /// Set once the download takes no slot: all written (committing behind) or ended.
    var slotFreed: Bool {
        get { confined.value.slotFreed }
        set { confined.value.slotFreed = newValue }
    }

    /// What readers wait for, by reader: the bytes to fetch before anything else.
    var demands: [Int: ByteRange] {
        get { confined.value.demands }
        set { confined.value.demands = newValue }
    }
}

/// One client's request for a download.
struct Submission: Sendable {
    let request: JobRequest
    let priority: DownloadPriority
    /// Weak: a client that let go of its handle waits for nothing.
    weak var handle: DownloadHandle?
    let slot: SlotRelease
    let onFinish: (@Sendable (DownloadResult, Int64) -> Void)?
}

/// A submission's "the download takes no slot any more", said once: on the loop thread,
/// or on the submitting thread for a submission refused before it reached the loop.
final class SlotRelease: Sendable {
    private let action: Mutex<(@Sendable () -> Void)?>

    init(_ action: (@Sendable () -> Void)?) { self.action = Mutex(action) }

    func release() {
        let action = self.action.withLock { action in
            defer { action = nil }
            return action
        }
        action?()
    }
}

extension DownloadProgress {
    /// `download` as a status page shows it now.
    init(_ download: Download) {
        let (held, length) = download.held.progress
        let (ranges, contentType) = download.held.heldRanges
        let (rate, connections, elsewhere) = download.activity.withLock { $0 }
        let entry = download.request.entry
        self.init(
            key: download.key, url: entry.url, cacheKey: entry.cacheKey, name: entry.displayName, bytesHeld: held,
            length: length, heldRanges: RangeSet.coarsened(ranges, to: Self.rangeLimit), contentType: contentType,
            bytesPerSecond: rate, connections: connections, inAnotherProcess: elsewhere)
    }
}
