/// Decides which byte ranges the free connections of a job fetch next.
///
/// Unfetched bytes are split across free connections, never into pieces smaller than
/// `minFragment`. When nothing is left unassigned, a free connection steals: it takes
/// the back half of the largest range still in flight, so one slow connection does not
/// hold the tail of the file; in the endgame, when nothing that large is left, it takes
/// the back of whichever range would take longest, however short.
public struct FragmentPlanner: Sendable {
    public let minFragment: Int64
    /// Split points are rounded to this so writes stay page-aligned.
    public let alignment: Int64

    public init(minFragment: Int64, alignment: Int64 = 64 * 1024) {
        precondition(minFragment > 0)
        self.minFragment = minFragment
        self.alignment = max(1, min(alignment, minFragment))
    }

    /// Splits the unassigned ranges into at most `slots` fragments, largest first.
    /// Pieces are at least `minFragment` long, except ranges already shorter than that.
    public func plan(unassigned: [ByteRange], slots: Int) -> [ByteRange] {
        guard slots > 0 else { return [] }
        var pieces = unassigned.filter { !$0.isEmpty }.sorted { $0.count > $1.count }
        if pieces.count > slots { return Array(pieces.prefix(slots)) }
        while pieces.count < slots, let largest = pieces.first, largest.count >= 2 * minFragment {
            // Split the largest into as many parts as the free slots allow, evenly.
            let free = slots - pieces.count + 1
            let parts = Int(min(Int64(free), largest.count / minFragment))
            guard parts >= 2 else { break }
            pieces.removeFirst()
            pieces.append(contentsOf: split(largest, into: parts))
            pieces.sort { $0.count > $1.count }
        }
        return pieces.sorted { $0.start < $1.start }
    }

    /// Hands out pieces of at most `pieceSize` from the lowest unassigned offset, so the
    /// file fills front to back (it can be played, and hashed, while it arrives). Once
    /// less is left than the free connections could take, the rest is split evenly.
    public func planInOrder(unassigned: [ByteRange], slots: Int, pieceSize: Int64) -> [ByteRange] {
        guard slots > 0 else { return [] }
        let ranges = unassigned.filter { !$0.isEmpty }.sorted { $0.start < $1.start }
        let total = ranges.reduce(Int64(0)) { $0 + $1.count }
        let piece = max(pieceSize, minFragment)
        if total <= Int64(slots) * piece { return plan(unassigned: ranges, slots: slots) }
        var result: [ByteRange] = []
        for range in ranges {
            var start = range.start
            while start < range.end && result.count < slots {
                var end = min(range.end, start + piece)
                // Never leave a sliver smaller than a fragment behind.
                if range.end - end < minFragment { end = range.end }
                result.append(ByteRange(start, end))
                start = end
            }
            if result.count == slots { break }
        }
        return result
    }

    /// Where to cut an in-flight range `[next, end)` so a free connection takes the back
    /// half, or nil if what remains is too small to share.
    public func stealPoint(next: Int64, end: Int64) -> Int64? {
        let remaining = end - next
        guard remaining >= 2 * minFragment else { return nil }
        let middle = next + remaining / 2
        let cut = align(middle) - next >= minFragment ? align(middle) : middle
        guard cut - next >= minFragment, end - cut >= minFragment else { return nil }
        return cut
    }

    /// The smallest piece an endgame split leaves on either side of its cut.
    public static let endgamePiece: Int64 = 128 * 1024
    /// A range done within this many seconds is left alone: on a fast link a split would
    /// cost a request (and CPU, with many files at once) to save milliseconds.
    public static let endgameFloor = 0.5

    /// The endgame: where a free connection should cut an in-flight range `[next, end)`
    /// even below `minFragment`, or nil when that would not finish it sooner.
    ///
    /// At `bytesPerSecond` the range needs `remaining / rate`; split, the old connection
    /// keeps the front and a fresh request, whose first byte comes `requestSeconds` later,
    /// takes the back. The cut makes both finish together, so it pays only when the
    /// range would take longer than two fresh requests' latency (and `endgameFloor`).
    public func endgameCut(next: Int64, end: Int64, bytesPerSecond: Double, requestSeconds: Double) -> Int64? {
        let remaining = end - next
        guard remaining >= 2 * Self.endgamePiece, bytesPerSecond > 0 else { return nil }
        let secondsLeft = Double(remaining) / bytesPerSecond
        guard secondsLeft > max(2 * requestSeconds, Self.endgameFloor) else { return nil }
        // Front x bytes take x / r; the back takes latency + (remaining - x) / r.
        let front = (Double(remaining) + requestSeconds * bytesPerSecond) / 2
        let ideal = next + Int64(front.rounded())
        // To the nearest boundary: rounding down could undo the latency's share.
        let nearest = align(ideal + alignment / 2)
        let aligned = nearest > next ? nearest : ideal
        let cut = min(max(aligned, next + Self.endgamePiece), end - Self.endgamePiece)
        return cut > next && cut < end ? cut : nil
    }

    /// Where to cut a range whose connection has brought bytes up to `from` (what its
    /// socket holds included) and would go on to `end`, near `ideal`. A connection that
    /// delivers in bursts of `burst` bytes is cut between two of them, at least one burst
    /// on: a cut inside a burst would have the burst's rest, sent already, fetched twice,
    /// and a pausing one's next burst may be on its way (a throttling server's bursts of
    /// all its connections come together). Nil: leave it, its bursts bring the rest as soon.
    static func burstAligned(_ ideal: Int64, from: Int64, end: Int64, burst: Int64?) -> Int64? {
        guard let burst, burst > 0 else { return ideal }
        let bursts = max(1, (Double(ideal - from) / Double(burst)).rounded())
        let cut = from + Int64(bursts) * burst
        return cut < end ? cut : nil
    }

    func split(_ range: ByteRange, into parts: Int) -> [ByteRange] {
        var result: [ByteRange] = []
        var start = range.start
        for index in 1...parts {
            // Round to the alignment only when the piece before the cut stays long enough.
            let ideal = range.start + range.count * Int64(index) / Int64(parts)
            let aligned = align(ideal)
            let end = index == parts ? range.end : (aligned - start >= minFragment ? aligned : ideal)
            if end > start { result.append(ByteRange(start, end)) }
            start = end
        }
        return result
    }

    private func align(_ offset: Int64) -> Int64 { offset - offset % alignment }
}
