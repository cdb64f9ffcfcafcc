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
