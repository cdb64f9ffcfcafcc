import Testing
@testable import MediaCacheKit

/// A gzipped playlist is decoded, within a bound: what inflates past it is refused.
@Suite("Gzip bodies")
struct GzipBodyTests {
    /// `#EXTM3U\n`, gzipped.
    let playlist: [UInt8] = [31, 139, 8, 0, 0, 0, 0, 0, 2, 3, 83, 118, 141, 8, 241, 53, 14, 229, 2, 0, 181, 152, 236, 65, 8, 0, 0, 0]

    @Test func aGzippedBodyDecodes() throws {
        #expect(try GzipBody.decode(playlist, limit: 100) == Array("#EXTM3U\n".utf8))
    }

    /// 132 bytes that inflate to 100,000: stopped at the limit, not decoded whole.
    @Test func aBodyInflatingPastItsLimitIsRefused() {
        let zeros: [UInt8] = [31, 139, 8, 0, 0, 0, 0, 0, 2, 3, 237, 193, 49, 1, 0, 0, 0, 194, 160, 245, 79, 109, 13, 15, 160]
            + [UInt8](repeating: 0, count: 96) + [128, 87, 3, 125, 149, 17, 212, 160, 134, 1, 0]
        #expect(throws: GzipBody.Failure.self) { try GzipBody.decode(zeros, limit: 10_000) }
        #expect((try? GzipBody.decode(zeros, limit: 100_000))?.count == 100_000)
    }

    @Test func bytesThatAreNotGzipAreRefused() {
        #expect(throws: GzipBody.Failure.self) { try GzipBody.decode(Array("#EXTM3U\n".utf8), limit: 100) }
        #expect(throws: GzipBody.Failure.self) { try GzipBody.decode(Array(playlist.prefix(12)), limit: 100) }
    }
}
