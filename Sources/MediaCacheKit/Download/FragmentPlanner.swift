/// Decides which byte ranges the free connections of a job fetch next.
///
/// Unfetched bytes are split across free connections, never into pieces smaller than
/// `minFragment`. When nothing is left unassigned, a free connection steals: it takes
/// the back half of the largest range still in flight, so one slow connection does not
/// hold the tail of the file.
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
