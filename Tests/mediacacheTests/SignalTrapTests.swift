import Foundation
import Testing

@testable import mediacache

/// What a stop request means, given the one before it.
@Suite("Stop requests")
struct SignalTrapTests {
    let start = ContinuousClock.now

    @Test func theFirstRequestStopsAndASecondPressQuitsAtOnce() {
        #expect(SignalTrap.meaning(of: SIGINT, at: start, after: nil) == .stop)
        #expect(SignalTrap.meaning(of: SIGPIPE, at: start, after: nil) == .stop)
        #expect(SignalTrap.meaning(of: SIGINT, at: start + .seconds(1), after: (SIGINT, start)) == .quitNow)
        #expect(SignalTrap.meaning(of: SIGTERM, at: start + .milliseconds(10), after: (SIGINT, start)) == .quitNow)
    }

    /// `timeout -s INT` signals the command, then its own process group: the same signal
    /// twice within moments, which quit at once (and, through exit()'s handlers, now and
    /// then crashed) where one stop was asked for.
    @Test func oneRequestDeliveredTwiceAtOnceIsOneStop() {
        #expect(SignalTrap.meaning(of: SIGINT, at: start + .milliseconds(1), after: (SIGINT, start)) == .nothingMore)
        #expect(SignalTrap.meaning(of: SIGTERM, at: start + .milliseconds(300), after: (SIGTERM, start)) == .nothingMore)
        #expect(SignalTrap.meaning(of: SIGPIPE, at: start + .seconds(5), after: (SIGINT, start)) == .nothingMore)
    }
}
