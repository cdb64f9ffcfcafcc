/// `LENGTH[@OFFSET]`, the value of `EXT-X-BYTERANGE` and of `EXT-X-MAP`'s `BYTERANGE`.
struct HLSByteRangeSpec: Equatable {
    let length: Int64
    /// nil: the range starts where the previous one of the same resource ended.
    let offset: Int64?

    init(parsing written: some StringProtocol) throws(PlaylistSyntaxError) {
        let text = String(written)
        let parts = text.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        let length = Int64(try AttributeList.decimalInteger(parts[0], name: "the byte range length"))
        guard length > 0 else {
            throw PlaylistSyntaxError("the byte range \(PlaylistSyntaxError.quote(text)) is empty")
        }
        self.length = length
        offset =
            parts.count == 2 ? Int64(try AttributeList.decimalInteger(parts[1], name: "the byte range offset")) : nil
    }

    /// The half-open range: at `offset`, or at `previousEnd` when no offset is written
    /// (an error when there is no previous range to continue).
    func range(continuing previousEnd: Int64?) throws(PlaylistSyntaxError) -> ByteRange {
        guard let start = offset ?? previousEnd else {
            throw PlaylistSyntaxError(
                "the byte range \(length) has no @offset and no earlier byte range of the same URI to follow")
        }
        let (end, overflow) = start.addingReportingOverflow(length)
        guard !overflow else { throw PlaylistSyntaxError("the byte range \(length)@\(start) ends past 2^63 bytes") }
        return ByteRange(start, end)
    }
}
