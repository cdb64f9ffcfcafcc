/// A set of bytes as sorted, disjoint, non-adjacent ranges: what a job holds on disk.
public struct RangeSet: Sendable, Codable, Equatable, CustomStringConvertible {
    public private(set) var ranges: [ByteRange] = []

    public init() {}

    public init(_ ranges: [ByteRange]) {
        for range in ranges { insert(range) }
    }

    public var isEmpty: Bool { ranges.isEmpty }
    public var byteCount: Int64 { ranges.reduce(0) { $0 + $1.count } }

    /// Adds `range`, merging with every range it overlaps or touches.
    public mutating func insert(_ range: ByteRange) {
        guard !range.isEmpty else { return }
        // Appending to the end is the hot path: sequential writes of one fragment.
        if let last = ranges.last, range.start >= last.start {
            if range.start <= last.end {
                ranges[ranges.count - 1].end = max(last.end, range.end)
                return
            }
            if range.start > last.end {
                ranges.append(range)
                return
            }
        }
        var merged = range
        let first = firstIndex(endingAtOrAfter: range.start)
        var index = first
        while index < ranges.count, ranges[index].start <= merged.end {
            merged.start = min(merged.start, ranges[index].start)
            merged.end = max(merged.end, ranges[index].end)
            index += 1
        }
        ranges.replaceSubrange(first..<index, with: [merged])
    }

    public mutating func remove(_ range: ByteRange) {
        guard !range.isEmpty else { return }
        var result: [ByteRange] = []
        result.reserveCapacity(ranges.count + 1)
        for existing in ranges {
            if !existing.overlaps(range) {
                result.append(existing)
                continue
            }
            if existing.start < range.start { result.append(ByteRange(existing.start, range.start)) }
            if existing.end > range.end { result.append(ByteRange(range.end, existing.end)) }
        }
        ranges = result
    }

    public func contains(_ range: ByteRange) -> Bool {
        if range.isEmpty { return true }
        let index = firstIndex(endingAtOrAfter: range.start + 1)
        return index < ranges.count && ranges[index].start <= range.start && ranges[index].end >= range.end
    }

    /// Whether every byte of `other` is in the set.
    public func contains(_ other: RangeSet) -> Bool { other.ranges.allSatisfy { contains($0) } }

    /// The parts of `[0, length)` not in the set, in order.
    public func gaps(within bounds: ByteRange) -> [ByteRange] {
        var result: [ByteRange] = []
        var cursor = bounds.start
        for range in ranges where range.end > bounds.start {
            if range.start >= bounds.end { break }
            if range.start > cursor { result.append(ByteRange(cursor, range.start)) }
            cursor = max(cursor, range.end)
        }
        if cursor < bounds.end { result.append(ByteRange(cursor, bounds.end)) }
        return result
    }

    /// Whether every byte of `[0, length)` is held.
    public func covers(length: Int64) -> Bool {
        length == 0 || (ranges.count == 1 && ranges[0].start == 0 && ranges[0].end >= length)
    }

    /// The bytes from 0 held without a gap.
    public var contiguousPrefix: Int64 {
        guard let first = ranges.first, first.start == 0 else { return 0 }
        return first.end
    }

    /// The range that holds the byte at `offset`, if one does.
    public func range(containing offset: Int64) -> ByteRange? {
        let index = firstIndex(endingAtOrAfter: offset + 1)
        return index < ranges.count && ranges[index].start <= offset ? ranges[index] : nil
    }

    /// Where the last range ends (0 when empty).
    public var end: Int64 { ranges.last?.end ?? 0 }

    /// Index of the first range whose end is >= offset (binary search).
    private func firstIndex(endingAtOrAfter offset: Int64) -> Int {
        var low = 0
        var high = ranges.count
        while low < high {
            let mid = (low + high) / 2
            if ranges[mid].end < offset { low = mid + 1 } else { high = mid }
        }
        return low
    }

    public var description: String { ranges.map(\.description).joined(separator: " ") }

    /// `ranges` (sorted, disjoint) as at most `limit` ranges: the smallest gaps are
    /// filled first, so a picture of them stays true at a glance.
    public static func coarsened(_ ranges: [ByteRange], to limit: Int) -> [ByteRange] {
        var merged = ranges
        while merged.count > max(1, limit) {
            var smallest = 0
            for index in 1..<merged.count - 1 where merged[index + 1].start - merged[index].end
                < merged[smallest + 1].start - merged[smallest].end
            {
                smallest = index
            }
            merged[smallest] = ByteRange(merged[smallest].start, merged[smallest + 1].end)
            merged.remove(at: smallest + 1)
        }
        return merged
    }
}
