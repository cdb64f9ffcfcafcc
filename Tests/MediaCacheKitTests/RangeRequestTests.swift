import Testing
@testable import MediaCacheKit

/// How `serve` reads a Range header: what a player asks for, and what it gets for
/// numbers no file reaches.
@Suite("RangeRequest")
struct RangeRequestTests {
    func resolve(_ header: String?, length: Int64 = 1000) throws -> ByteRange? {
        try RangeRequest(header: header).resolve(length: length)
    }

    @Test func singleRangesResolveWithinTheObject() throws {
        #expect(try resolve("bytes=0-99") == ByteRange(0, 100))
        #expect(try resolve("bytes=900-") == ByteRange(900, 1000))
        #expect(try resolve("bytes=-100") == ByteRange(900, 1000))
        #expect(try resolve("bytes=990-5000") == ByteRange(990, 1000))
        #expect(try resolve(nil) == nil)
        #expect(try resolve("bytes=0-9,20-29") == nil, "several ranges get the whole object")
        #expect(try resolve("bytes=9-0") == nil, "a backwards range is malformed: the whole object")
        // Empty elements of the list are no ranges (RFC 9110 5.6.1).
        #expect(try resolve("bytes=0-9,") == ByteRange(0, 10))
        #expect(try resolve("bytes=, 0-9") == ByteRange(0, 10))
        #expect(try resolve("bytes=,") == nil)
    }

    @Test func nothingThatExistsIsUnsatisfiable() {
        #expect(throws: RangeRequest.Unsatisfiable.self) { try resolve("bytes=1000-") }
        #expect(throws: RangeRequest.Unsatisfiable.self) { try resolve("bytes=-0") }
    }

    /// Numbers of 19 digits and more (past Int64) are valid HTTP: a first byte that far
    /// is past the end (416), a last byte or suffix that large means "to the end".
    @Test func numbersPastInt64Saturate() throws {
        let huge = "99999999999999999999999"
        #expect(throws: RangeRequest.Unsatisfiable.self) { try resolve("bytes=\(huge)-") }
        #expect(throws: RangeRequest.Unsatisfiable.self) { try resolve("bytes=\(huge)-\(huge)") }
        #expect(try resolve("bytes=10-\(huge)") == ByteRange(10, 1000))
        #expect(try resolve("bytes=-\(huge)") == ByteRange(0, 1000))
        #expect(try resolve("bytes=0-9223372036854775807") == ByteRange(0, 1000))
        #expect(try resolve("bytes=10-00000000000000000000019") == ByteRange(10, 20))
    }
}
