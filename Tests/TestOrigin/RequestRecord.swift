import Glibc

/// What the origin saw and did for one request.
///
/// Records are appended to the log when the request head arrives (so the log is in
/// arrival order); `status`, `range` are filled in once the response is chosen and
/// `bodyBytesSent`/`finished` once the response ends or the connection drops.
public struct RequestRecord: Sendable {
    public var method: String
    /// The request path without the query string, as sent (not percent-decoded).
    public var path: String
    public var query: String?
    /// Header names are lowercased; repeated headers are joined with ", ".
    public var headers: [String: String]
    /// The resolved requested byte range, when a satisfiable single Range was sent
    /// (even if a fault or If-Range made the origin answer differently).
    public var range: ClosedRange<Int>?
    public var rangeHeader: String?
    /// 0 until the response has been chosen.
    public var status: Int
    /// Body bytes actually handed to the socket.
    public var bodyBytesSent: Int
    /// Increments per accepted TCP connection, starting at 1 (lets tests assert keep-alive reuse).
    public var connectionID: Int
    /// True once the response has ended (completed, dropped, stalled out or failed).
    public var finished: Bool
    /// The body offset at which `Faults.resetAfterBytes` was to reset this response (it
    /// sent less when the client hung up first).
    public var resetPlannedAt: Int? = nil
    /// When the response head went out and when its body ended, in seconds of the
    /// monotonic clock (`RequestRecord.now()`): rates measured here are the origin's own.
    public var startedAt: Double? = nil
    public var finishedAt: Double? = nil

    /// The monotonic clock of `startedAt` and `finishedAt`.
    public static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    /// Body bytes per second `records` sent together: their bytes over the time from the
    /// first one's start to the last one's end. Nil until one of them has ended.
    public static func sendRate(_ records: [RequestRecord]) -> Double? {
        let timed = records.filter { $0.startedAt != nil && $0.finishedAt != nil }
        guard let start = timed.compactMap(\.startedAt).min(), let end = timed.compactMap(\.finishedAt).max(), end > start
        else { return nil }
        return Double(timed.reduce(0) { $0 + $1.bodyBytesSent }) / (end - start)
    }
}
