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
    /// Exclusive; nil while the length is unknown (one stream, to wherever it ends).
    var end: Int64?
    /// Where the response's bytes end (exclusive), once its head is accepted: past `end`
    /// when the range was cut (stolen, or a probe trimmed to one piece).
    var responseEnd: Int64?
    /// Bytes before this offset are compared with the disk, not written (the overlap
    /// re-check when the origin sent no validators).
    var compareUntil: Int64
    var redirectHops: Int
    /// What the completed transfer means when its body was not file data.
    var outcome: Outcome = .data
    /// Whether a response head was accepted as file data.
    var accepted = false
    /// The demand this range was started for (a reader's bytes, the tail holding a late
    /// moov); nil for the ordinary front-to-back fill.
    var demand: FragmentScheduler.Demand.Priority?

    /// Whether it serves a demand: the scheduler lets it be, and a late moov's hold
    /// lasts while one runs.
    var isPriority: Bool { demand != nil }
    /// When this transfer started, and when its first body byte arrived with `next` then:
    /// this connection's own rate is measured from there.
    let startedAt: Double
    private(set) var firstByte: (time: Double, offset: Int64)?
    private var bursts = BurstMeter()
    /// When body bytes last arrived.
    var lastByteAt: Double? { bursts.lastByteAt }
    /// The rate of the range this one was split from, until it has its own.
    var rateHint: Double?

    enum Outcome {
        case data
        case redirect(String)
        case transientStatus(Int, retryAfter: Double?)
        case errorPage(String)
        case fatalStatus(Int)
        case badRedirect(String)
    }

    init(
        transfer: HTTPTransfer, isProbe: Bool, start: Int64, end: Int64?, sentRange: Bool, ifRange: String?,
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
        startedAt = TransferLoop.now()
    }

    /// Notes `count` body bytes arriving (at offset `next`); for the first ones, returns
    /// the seconds they took since the request started.
    func noteBytes(_ count: Int, now: Double) -> Double? {
        bursts.note(count, now: now)
        guard firstByte == nil else { return nil }
        firstByte = (now, next)
        return now - startedAt
    }

    /// Seconds since this connection last delivered a byte (or since it started). Time
    /// held by the rate limiter is waiting, not idleness: it never counts as a stall.
    func secondsIdle(now: Double) -> Double {
        if transfer.isHeld { return 0 }
        return now - max(lastByteAt ?? startedAt, transfer.releasedAt ?? 0)
    }

    /// When this range counts as stalled if nothing arrives before then (see
    /// `FragmentScheduler.stallSeconds`).
    func stallsAt(now: Double, requestSeconds: Double?) -> Double {
        now - secondsIdle(now: now)
            + FragmentScheduler.stallSeconds(remaining: remaining, responseGoesOn: isCutShort, requestSeconds: requestSeconds)
    }

    /// Bytes per second this connection delivers: measured once it has run a moment,
    /// else the rate it inherited, else unknown.
    func bytesPerSecond(now: Double) -> Double? {
        if let firstByte, now - firstByte.time >= 0.05, next > firstByte.offset {
            return Double(next - firstByte.offset) / (now - firstByte.time)
        }
        return rateHint
    }

    /// Bytes still to come; nil while the end is unknown.
    var remaining: Int64? { end.map { $0 - next } }

    /// This range as the scheduler sees it.
    func inFlight(now: Double) -> FragmentScheduler.InFlight {
        FragmentScheduler.InFlight(
            next: next, end: end, compareUntil: compareUntil, accepted: accepted,
            isPriority: isPriority, bytesPerSecond: bytesPerSecond(now: now),
            arrived: mayBeCut ? transfer.bytesWaiting : 0, burst: bursts.burst(now: now))
    }

    /// Whether any cut of it could be planned (one syscall asks what has arrived).
    private var mayBeCut: Bool { accepted && (remaining ?? 0) >= 2 * FragmentPlanner.endgamePiece }

    var isFinished: Bool { end.map { next >= $0 } ?? false }
    /// The response goes on past this fragment's range.
    var isCutShort: Bool {
        guard let end, let responseEnd else { return false }
        return end < responseEnd
    }
}
