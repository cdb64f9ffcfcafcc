import Testing

@testable import mediacache

@Suite("Run tally")
struct RunTallyTests {
    static func file(_ done: Int64, of length: Int64?, rate: Double = 1_000) -> RunTally.File {
        RunTally.File(name: "f", done: done, length: length, rate: rate, connections: 2)
    }

    /// The total never goes backwards when a file finishes, and files count k of N.
    @Test func bytesOnlyGrowAndFilesCountKOfN() {
        var tally = RunTally(expected: 4)
        tally.update(url: "a", Self.file(600, of: 1_000))
        tally.update(url: "b", Self.file(400, of: 1_000))
        #expect(tally.bytes == 1_000)
        tally.finish(url: "a", fetched: 1_000)
        #expect(tally.bytes == 1_400)
        #expect(tally.summary.hasPrefix("1 active, 1 of 4 files done, "), "\(tally.summary)")
        // A file that failed keeps what it fetched in the total.
        tally.finish(url: "b")
        #expect(tally.bytes == 1_400 && tally.finished == 2 && tally.active.isEmpty)
    }

    /// ETA: what the active files lack, plus the files not started at the average size.
    @Test func timeLeftCountsFilesNotStartedAtTheAverageSize() throws {
        var tally = RunTally(expected: 2)
        tally.update(url: "a", Self.file(500, of: 1_000, rate: 500))
        // 500 left of a, and 1 file not started at the average 1 000 bytes: 1 500 / 500.
        #expect(try #require(tally.secondsLeft) == 3)
        tally.finish(url: "a", fetched: 1_000)
        #expect(tally.secondsLeft == nil, "nothing active, no rate")
        // Without a file count, files not started are unknown: no guess at them.
        var open = RunTally()
        open.update(url: "a", Self.file(500, of: 1_000, rate: 500))
        #expect(try #require(open.secondsLeft) == 1)
    }
}
