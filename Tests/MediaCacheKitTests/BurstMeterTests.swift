import Testing
@testable import MediaCacheKit

/// How a connection delivers (`BurstMeter`): a throttling server's bursts are told from
/// a steady stream by the pauses between them, and a burst is the most that came
/// between two pauses.
@Suite struct BurstMeterTests {
    @Test func aSteadyConnectionHasNoBurst() {
        var meter = BurstMeter()
        #expect(meter.burst(now: 0) == nil)
        for step in 0..<50 { meter.note(16 << 10, now: Double(step) * 0.01) }
        #expect(meter.burst(now: 0.5) == nil)
        #expect(meter.lastByteAt == 0.49)
    }

    @Test func burstsAreWhatComesBetweenPauses() {
        var meter = BurstMeter()
        // 4 chunks at once, then nothing for a second: a burst of 64 KiB, known once the
        // pause has lasted long enough to be one.
        for _ in 0..<4 { meter.note(16 << 10, now: 1.0) }
        #expect(meter.burst(now: 1.05) == nil)
        #expect(meter.burst(now: 1.2) == 64 << 10)
        // A larger one after the pause; the largest seen counts.
        for _ in 0..<6 { meter.note(16 << 10, now: 2.0) }
        #expect(meter.burst(now: 2.01) == 96 << 10)
        meter.note(16 << 10, now: 3.0)
        #expect(meter.burst(now: 3.01) == 96 << 10)
    }
}
