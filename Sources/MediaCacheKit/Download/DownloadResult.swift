/// How a download ended, for each of its clients.
public enum DownloadResult: Sendable {
    /// Fetched, verified and committed in this run.
    case committed(CachedObject)
    /// Already in the cache (or committed by the download this request joined).
    case alreadyCached(CachedObject)
    case failed(JobFailure)
    /// Stopped by a shutdown (Ctrl-C, SIGTERM); progress is saved.
    case interrupted
}

/// How to order downloads waiting for a slot: readers before prefetches.
public enum DownloadPriority: Int, Sendable, Comparable {
    /// Fetched while nothing more urgent waits (a `serve` list in the background).
    case background
    /// A list prefetch.
    case normal
    /// Someone is waiting to read it: starts at once, beyond `-j`.
    case interactive

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
