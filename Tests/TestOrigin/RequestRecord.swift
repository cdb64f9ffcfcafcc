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
}
