/// What happens during a prefetch, for the command line to show or print as NDJSON.
/// Delivered on the transfer thread; handlers must be quick.
public enum PrefetchEvent: Sendable {
    /// A file started downloading (`resumedBytes` > 0 when partial data was kept).
    /// A streaming title also counts its segments and files (those held on a resume).
    case started(
        url: String, name: String, length: Int64?, resumedBytes: Int64, connections: Int, source: DownloadSource,
        title: TitleCounts? = nil)
    /// Bytes on disk so far; emitted at most a few times per second per file. A
    /// streaming title's progress also counts its segments and files.
    case progress(
        url: String, name: String, bytesDone: Int64, length: Int64?, bytesPerSecond: Double, connections: Int,
        title: TitleCounts? = nil)
    /// A transient failure; the file continues after `delay` seconds.
    case retry(url: String, attempt: Int, delay: Double, reason: String)
    /// Something the user should know that does not stop the file.
    case notice(url: String, message: String)
    /// Another process holds this file; waiting for it.
    case waiting(url: String, reason: String)
    /// An MP4's moov is entirely on disk, after `bytesReceived` bytes of this run.
    case moovFound(url: String, offset: Int64, size: Int64, bytesReceived: Int64)
    /// All bytes arrived and checked (coverage, length, checksum).
    case verified(url: String, sha256: String)
    /// The object is in the cache.
    case committed(url: String, name: String, path: String, size: Int64, faststart: FaststartState)
    /// The object was already in the cache.
    case skipped(url: String, name: String, path: String)
    case failed(url: String, name: String, failure: JobFailure)
}

/// Where a download's bytes come from.
public enum DownloadSource: String, Sendable {
    case origin
    /// The fleet's shared tier (`--tier`): a copy another cache pushed.
    case tier
}
