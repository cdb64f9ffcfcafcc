/// One transfer's share of a file: bytes `[next, end)` still to come, written at their
/// offsets as they arrive. `end` shrinks when another connection steals the back half.
final class Fragment {
    let transfer: HTTPTransfer
    let isProbe: Bool
    /// The first byte asked for (`Range: bytes=start-`); 0 without Range.
    let requestedStart: Int64
    /// Whether the request carried a Range header, and the If-Range value it carried.
    let sentRange: Bool
    let ifRange: String?
    var next: Int64
    /// Exclusive; `Int64.max` while the length is unknown.
    var end: Int64
    /// Bytes before this offset are compared with the disk, not written (the overlap
    /// re-check when the origin sent no validators).
    var compareUntil: Int64
    var redirectHops: Int
    /// What the completed transfer means when its body was not file data.
    var outcome: Outcome = .data
    /// Whether a response head was accepted as file data.
    var accepted = false
    /// Fetched ahead of everything else (the tail holding a late moov).
    var isPriority = false

    enum Outcome {
        case data
        case redirect(String)
        case transientStatus(Int, retryAfter: Double?)
        case fatalStatus(Int)
        case badRedirect(String)
    }

    init(
        transfer: HTTPTransfer, isProbe: Bool, start: Int64, end: Int64, sentRange: Bool, ifRange: String?,
        redirectHops: Int
    ) {
        self.transfer = transfer
        self.isProbe = isProbe
        self.sentRange = sentRange
        self.ifRange = ifRange
        self.requestedStart = start
        self.next = start
        self.end = end
        self.compareUntil = start
        self.redirectHops = redirectHops
    }

    var remaining: Int64 { end == Int64.max ? Int64.max : end - next }
    var isFinished: Bool { next >= end }
}
