/// A half-open byte interval `[start, end)` of a file.
public struct ByteRange: Sendable, Codable, Hashable, CustomStringConvertible {
    public var start: Int64
    public var end: Int64

    public init(_ start: Int64, _ end: Int64) {
        precondition(start <= end, "ByteRange start \(start) > end \(end)")
        self.start = start
        self.end = end
    }

    public var count: Int64 { end - start }
    public var isEmpty: Bool { start == end }

    public func contains(_ offset: Int64) -> Bool { offset >= start && offset < end }

    public func overlaps(_ other: ByteRange) -> Bool { start < other.end && other.start < end }

    public func clamped(to other: ByteRange) -> ByteRange {
        let s = max(start, other.start)
        return ByteRange(s, max(s, min(end, other.end)))
    }

    /// The HTTP `Range` header value for these bytes (inclusive end).
    public var httpRangeValue: String { "bytes=\(start)-\(end - 1)" }

    public var description: String { "[\(start), \(end))" }
}
