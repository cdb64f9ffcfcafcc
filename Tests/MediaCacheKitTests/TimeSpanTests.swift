import Testing
@testable import MediaCacheKit

@Suite("TimeSpan")
struct TimeSpanTests {
    @Test(arguments: [("90s", 90.0), ("30m", 1800), ("12h", 43_200), ("7d", 604_800), ("2w", 1_209_600), ("0d", 0)])
    func parsesACountAndOneUnit(text: String, seconds: Double) {
        #expect(TimeSpan.parse(text) == seconds)
    }

    @Test(arguments: ["", "d", "7", "7x", "1.5h", "-1h", "7 d", "d7", "99999999999d"])
    func refusesAnythingElse(text: String) {
        #expect(TimeSpan.parse(text) == nil)
    }
}
