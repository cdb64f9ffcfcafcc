/// Misbehaviours a `Resource` can be scripted with. Everything defaults to "off".
///
/// Counted faults (`dropCount`, `stallCount`, `resetAfterBytes`, `trickleCount`,
/// `statusSequence`) apply to the first N
/// responses they match for the path and then the resource behaves normally again.
/// Calling `TestOrigin.serve(_:_:)` again for the path resets those counters.
public struct Faults: Sendable {
    /// Answer Range requests with 200 and the full body, and stop advertising `Accept-Ranges`.
    public var ignoreRange = false
    /// Answer Range requests with a 206 whose Content-Range (and body) start somewhere
    /// other than requested: at 0 when the requested start is > 0, else at start + 1000.
    public var wrongContentRange = false
    /// Close the connection after this many body bytes, for the first `dropCount` responses
    /// whose body is longer than that.
    public var dropAfterBytes: Int? = nil
    public var dropCount = 1
    /// Stop sending (socket stays open) after this many body bytes, for the first `stallCount`
    /// responses whose body is longer than that. The stall ends when the client closes or on `stop()`.
    public var stallAfterBytes: Int? = nil
    public var stallCount = 1
    /// Abort the connection with a TCP RST (SO_LINGER 0, not a clean close) after this many
    /// body bytes: the first matching response uses the first offset, the next one the
    /// second, and so on. Takes precedence over drop/stall for the responses it applies to.
    public var resetAfterBytes: [Int] = []
    /// Per-response pacing of the body, in bytes per second.
    public var bytesPerSecond: Int? = nil
    /// Pace as nginx's `limit_rate` does: each second's worth at once, then a wait.
    public var pacedInBursts = false
    /// The kernel send buffer (SO_SNDBUF) for this path's responses, so the bytes the log
    /// records as sent are about the bytes on the wire (rate measurements).
    public var sendBufferBytes: Int? = nil
    /// A much slower pacing (bytes per second) for the first `trickleCount` bodies only.
    public var trickleBytesPerSecond: Int? = nil
    public var trickleCount = 1
    /// 206 responses to ranges that do not start at byte 0 give this total in their
    /// Content-Range instead of the real length (a load balancer over two versions).
    public var misstatedTotal: Int? = nil
    /// Answer every satisfiable Range request with 416 (`Content-Range: bytes */length`).
    public var unsatisfiableRanges = false
    /// Answer every request with 416 (`Content-Range: bytes */length`), Range or not.
    public var alwaysUnsatisfiable = false
    /// Content responses carry a second Content-Length with this value (after the true one).
    public var secondContentLength: Int? = nil
    /// Range requests get a 200 with only the first this-many bytes and a Content-Range
    /// that says so (a broken proxy's); a request without Range gets the whole file.
    public var partialBodyAs200: Int? = nil
    /// Serve ranges even when If-Range names another version (as some CDNs do).
    public var ignoreIfRange = false
    /// Send the full body with `Transfer-Encoding: chunked`: no Content-Length, no
    /// Accept-Ranges, Range ignored. Drops cut the stream without the last chunk.
    public var chunked = false
    /// With `chunked`: a Content-Length of this many bytes beside Transfer-Encoding, which
    /// RFC 9112 forbids a sender and tells a recipient to ignore.
    public var contentLengthBesideChunked: Int? = nil
    /// Content responses (Range honoured) claim this many bytes more in Content-Length
    /// than they send; the connection closes after the real body.
    public var overstatedLength: Int? = nil
    /// Content responses (Range honoured) go out in chunked coding and the connection
    /// closes after the last data chunk, without the final `0` chunk.
    public var missingLastChunk = false
    /// Label every content response with this `Content-Encoding` (the body is served as is,
    /// so serve pre-compressed bytes to make the label true).
    public var contentEncoding: String? = nil
    /// The first requests for the path get these statuses, in order; later ones are served normally.
    public var statusSequence: [ScriptedStatus] = []
    /// Round robin over these ETags, one per request (servers behind a load balancer,
    /// each naming its copy its own way); empty: the resource's own.
    public var etagPerRequest: [String] = []
    /// With `etagPerRequest`: the bytes the second server holds under the same name and
    /// length (every other request gets them); nil: the servers' copies are the same.
    public var otherServersBytes: [UInt8]? = nil
    /// Answer every request with `302 Found` and `Location: <redirectTo>`.
    public var redirectTo: String? = nil

    public init() {}
}

/// One scripted non-content answer (for example a 503 with `Retry-After`).
public struct ScriptedStatus: Sendable {
    public var status: Int
    public var retryAfter: String?
    public var body: String
    /// nil: `text/plain; charset=utf-8`.
    public var contentType: String?

    public init(_ status: Int, retryAfter: String? = nil, body: String = "error", contentType: String? = nil) {
        self.status = status
        self.retryAfter = retryAfter
        self.body = body
        self.contentType = contentType
    }
}
