import Testing
@testable import MediaCacheKit

@Suite("Rate limits")
struct RateLimitTests {
    // MARK: TokenBucket

    @Test func aBucketAllowsItsRateOverTimePlusWhatItSavedUp() {
        let bucket = TokenBucket(bytesPerSecond: 1 << 20, now: 0)
        #expect(bucket.capacity == Double(1 << 17))
        // Receives of 16 KiB, each taken as soon as the bucket allows it, for 10 s.
        var now = 0.0
        var taken = 0
        while now < 10 {
            now += bucket.secondsUntilTokens(now: now)
            guard now < 10 else { break }
            bucket.take(16 << 10, now: now)
            taken += 16 << 10
        }
        let allowed = 10.0 * Double(1 << 20) + bucket.capacity
        #expect(Double(taken) <= allowed + Double(16 << 10))
        #expect(Double(taken) >= 10.0 * Double(1 << 20))
    }

    @Test func anIdleBucketSavesNoMoreThanItsCapacity() {
        let bucket = TokenBucket(bytesPerSecond: 8 << 10, now: 0)
        bucket.take(Int(bucket.capacity), now: 0)
        #expect(!bucket.hasTokens(now: 0))
        // An hour idle: only the capacity is saved, so one receive of it empties the bucket.
        #expect(bucket.hasTokens(now: 3600))
        bucket.take(Int(bucket.capacity), now: 3600)
        #expect(!bucket.hasTokens(now: 3600))
    }

    @Test func debtIsPaidBeforeTheBucketAllowsMore() {
        let bucket = TokenBucket(bytesPerSecond: 1000, now: 0)
        bucket.take(Int(bucket.capacity) + 3000, now: 0)
        #expect(abs(bucket.secondsUntilTokens(now: 0) - 3.001) < 1e-9)
        #expect(!bucket.hasTokens(now: 2.9))
        #expect(bucket.hasTokens(now: 3.01))
    }

    @Test func theLimitSetsThePaceOnlyWhenCloseToItsRateWasTaken() {
        let bucket = TokenBucket(bytesPerSecond: 300_000, now: 0)
        #expect(!bucket.setsThePace(now: 0))
        // An origin at 100 KB/s in bursts of a second's worth: each burst empties the
        // bucket, and yet the limit is not what holds the download back.
        for second in 0..<3 { bucket.take(100_000, now: Double(second) + 0.01) }
        #expect(!bucket.hasTokens(now: 2.01))
        #expect(!bucket.setsThePace(now: 2.5))
        // Faster than the rate, held to it: it does, for the second after.
        for tenth in 30..<40 { bucket.take(40_000, now: Double(tenth) / 10) }
        #expect(bucket.setsThePace(now: 4.2))
        // Idle since: no longer.
        #expect(!bucket.setsThePace(now: 6))
        // From the first moments of a fast start, before a whole second has passed.
        let fresh = TokenBucket(bytesPerSecond: 300_000, now: 0)
        fresh.take(200_000, now: 0.1)
        #expect(fresh.setsThePace(now: 0.2))
    }

    // MARK: ReceiveBuffers

    @Test func buffersAreAFractionOfASecondOfTheRateWithinBounds() {
        func sizes(_ rate: Int64) -> [Int] {
            let buffers = ReceiveBuffers(bytesPerSecond: rate)
            return [buffers.chunkBytes, buffers.socketBytes]
        }
        #expect(sizes(1 << 20) == [16 << 10, 128 << 10])
        // libcurl takes no buffer under 1 KiB; the kernel needs a few KiB to keep a window open.
        #expect(sizes(100) == [1024, 4096])
        // Fast limits keep libcurl's usual buffer and cap the socket's.
        #expect(sizes(1 << 40) == [256 << 10, 4 << 20])
    }

    /// Transfers without a limit share one budget: what they hold together stays near
    /// 1 MiB however many run, until each is down to 64 KiB.
    @Test func unlimitedTransfersShareOneBudgetOfBuffers() {
        let sizes = [1, 4, 8, 16, 64].map { ReceiveBuffers.unlimitedChunkBytes(transfers: $0) }
        #expect(sizes == [256 << 10, 256 << 10, 128 << 10, 64 << 10, 64 << 10])
    }

    // MARK: max-download-limit=

    @Test(arguments: [("512K", Int64(512 << 10)), ("2M", Int64(2 << 20)), ("0", Int64(0)), ("1500", Int64(1500))])
    func entryLimitIsParsedLikeTheSizeOptions(value: String, bytes: Int64) throws {
        let list = ListParser.parse("https://a.example/x.mp4\n  max-download-limit=\(value)\n", file: "list.txt")
        #expect(list.diagnostics.isEmpty)
        #expect(try #require(list.entries.first).maxDownloadLimit == bytes)
    }

    @Test func entryWithoutTheKeyHasNoLimitOfItsOwn() throws {
        let list = ListParser.parse("https://a.example/x.mp4\n", file: "list.txt")
        #expect(try #require(list.entries.first).maxDownloadLimit == nil)
    }

    @Test(arguments: ["fast", "-1", "1Q", ""])
    func badEntryLimitIsThatEntrysErrorNamingTheLine(value: String) throws {
        let list = ListParser.parse(
            "https://a.example/x.mp4\n  max-download-limit=\(value)\nhttps://a.example/y.mp4\n", file: "list.txt")
        let error = try #require(list.errors.first)
        #expect(list.errors.count == 1)
        #expect(error.description.hasPrefix("list.txt:2: max-download-limit must be a size per second"))
        #expect(list.entries.map(\.url) == ["https://a.example/y.mp4"])
    }
}
