/// The outcome of a run.
public struct PrefetchSummary: Sendable {
    public var committed = 0
    public var alreadyCached = 0
    public var failed: [(url: String, failure: JobFailure)] = []
    /// Bytes received from origins in this run.
    public var bytesFetched: Int64 = 0
    public var elapsed: Double = 0
    /// The run was stopped by `cancel()` (Ctrl-C, SIGTERM) before it finished.
    public var interrupted = false
    /// Files left partial by an interruption, resumable later.
    public var unfinished = 0
    /// Cached files that could not be put where their entries asked (`-d`, `dir=`).
    public var notPlaced = 0

    public init() {}
}
