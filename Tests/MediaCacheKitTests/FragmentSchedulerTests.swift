import Testing
@testable import MediaCacheKit

private let KiB: Int64 = 1024
private let MiB: Int64 = 1024 * 1024

private typealias InFlight = FragmentScheduler.InFlight
private typealias Demand = FragmentScheduler.Demand
private typealias Action = FragmentScheduler.Action

/// A running range that delivers bytes (its head was accepted).
private func running(_ next: Int64, _ end: Int64, rate: Double? = nil, compareUntil: Int64? = nil) -> InFlight {
    InFlight(
        next: next, end: end, compareUntil: compareUntil ?? next, accepted: true, isPriority: false, bytesPerSecond: rate)
}

@Suite("FragmentScheduler")
struct FragmentSchedulerTests {
    let scheduler = FragmentScheduler(planner: FragmentPlanner(minFragment: 1 * MiB), connections: 4)

    private func plan(
        length: Int64 = 64 * MiB, held: [ByteRange] = [], inFlight: [InFlight] = [], demands: [Demand] = [],
        holding: Bool = false, rateLimited: Bool = false
    ) -> FragmentScheduler.Plan {
        scheduler.plan(
            FragmentScheduler.Situation(
                length: length, held: RangeSet(held), inFlight: inFlight, demands: demands, holding: holding,
                rateLimited: rateLimited, requestSeconds: 0.1))
    }

    @Test func aFileFillsFrontToBackInPiecesForEveryConnection() {
        let result = plan()
        // 64 MiB over 4 connections × 8: pieces of 2 MiB from byte 0.
        #expect(
            result.actions == [
                .start(r(0, 2 * MiB), priority: nil), .start(r(2 * MiB, 4 * MiB), priority: nil),
                .start(r(4 * MiB, 6 * MiB), priority: nil), .start(r(6 * MiB, 8 * MiB), priority: nil),
            ])
        #expect(result.idleConnections == 0)
    }

    /// A late moov is asked for before mdat's middle, and the others wait for its answer.
    @Test func theMoovTailComesFirstAndHoldsTheRest() {
        let result = plan(
            inFlight: [running(64 * KiB, 2 * MiB)], demands: [Demand(range: r(60 * MiB, 64 * MiB), priority: .layout)])
        #expect(result.actions == [.start(r(60 * MiB, 64 * MiB), priority: .layout)])
        #expect(result.holdOthers)
        #expect(result.satisfied.isEmpty)
    }

    /// Every connection busy: a reader's next bytes come over all of the file's
    /// connections, and the ranges far from it give theirs up at what has arrived.
    @Test func aReaderTakesTheFileConnectionsFromRangesFarFromIt() {
        var busy = (0..<4).map { running(Int64($0) * 16 * MiB, Int64($0 + 1) * 16 * MiB) }
        busy[3].arrived = 128 * KiB
        #expect(plan(inFlight: busy).actions.isEmpty)
        let reader = Demand(range: r(8 * MiB, 64 * MiB), priority: .reader)
        let served = plan(inFlight: busy, demands: [reader])
        let piece = FragmentScheduler.soon
        let pieces = (0..<4).map { Action.start(r(8 * MiB + Int64($0) * piece, 8 * MiB + Int64($0 + 1) * piece), priority: .reader) }
        #expect(Array(served.actions.prefix(5)) == [.trim(index: 0, at: 8 * MiB)] + pieces)
        // The farthest first; the one with bytes in its socket takes them.
        #expect(
            Array(served.actions.dropFirst(5)) == [
                .trim(index: 3, at: 48 * MiB + 128 * KiB), .trim(index: 2, at: 32 * MiB), .trim(index: 0, at: 0),
                .trim(index: 1, at: 16 * MiB),
            ])
        #expect(served.idleConnections == 0)
    }

    /// Pieces already asked for count: a reader never has more than the file's
    /// connections in flight, however often the plan is made.
    @Test func aReaderKeepsAtMostTheFileConnectionsInFlight() {
        let asked = (0..<4).map { InFlight.fresh(8 * MiB + Int64($0) * 256 * KiB, 8 * MiB + Int64($0 + 1) * 256 * KiB, isPriority: true) }
        let reader = Demand(range: r(8 * MiB, 64 * MiB), priority: .reader)
        #expect(plan(inFlight: asked, demands: [reader]).actions.isEmpty)
        // One piece done: one more, right after the others.
        let later = plan(held: [r(8 * MiB, 8 * MiB + 256 * KiB)], inFlight: Array(asked.dropFirst()), demands: [reader])
        #expect(later.actions == [.start(r(9 * MiB, 9 * MiB + 256 * KiB), priority: .reader)])
        // The reader sought elsewhere: the pieces it no longer wants take no share.
        let sought = Demand(range: r(40 * MiB, 64 * MiB), priority: .reader)
        let starts = plan(inFlight: asked, demands: [sought]).actions.filter {
            if case .start(_, .reader) = $0 { true } else { false }
        }
        #expect(starts.count == 4)
    }

    /// About a second of a connection's bytes per piece: fewer requests on a fast
    /// origin, quick pieces on a slow one.
    @Test func aReadersPiecesFollowTheConnectionsRate() {
        #expect(scheduler.readAheadPiece([]) == FragmentScheduler.soon)
        #expect(scheduler.readAheadPiece([running(0, MiB, rate: 1_100_000)]) == 1_048_576)
        #expect(scheduler.readAheadPiece([running(0, MiB, rate: 1e9), running(0, MiB, rate: 1e9)]) == 4 * MiB)
        #expect(scheduler.readAheadPiece([running(0, MiB, rate: 1000)]) == FragmentScheduler.soon)
    }

    @Test func aReaderOutranksTheMoovTail() {
        let demands = [
            Demand(range: r(60 * MiB, 64 * MiB), priority: .layout), Demand(range: r(10 * MiB, 11 * MiB), priority: .reader),
        ]
        let result = plan(inFlight: [running(64 * KiB, 2 * MiB)], demands: demands)
        let starts = result.actions.compactMap { action -> ByteRange? in
            if case .start(let range, _) = action { return range } else { return nil }
        }
        #expect(starts.first == r(10 * MiB, 10 * MiB + 256 * KiB))
        #expect(starts.last == r(60 * MiB, 64 * MiB))
    }

    /// A running range would bring the wanted byte only after megabytes: it stops there.
    @Test func aDemandFarInsideARunningRangeSplitsIt() {
        let result = plan(
            inFlight: [running(1 * MiB, 32 * MiB), running(32 * MiB, 64 * MiB)],
            demands: [Demand(range: r(20 * MiB, 64 * MiB), priority: .reader)], holding: true)
        #expect(
            Array(result.actions.prefix(2)) == [
                .trim(index: 0, at: 20 * MiB), .start(r(20 * MiB, 20 * MiB + 256 * KiB), priority: .reader),
            ])
    }

    @Test func aDemandArrivingSoonIsLeftToItsRange() {
        let demand = Demand(range: r(1 * MiB + 100 * KiB, 1 * MiB + 200 * KiB), priority: .reader)
        let result = plan(inFlight: [running(1 * MiB, 32 * MiB)], demands: [demand], holding: true)
        #expect(result.actions.isEmpty)
        #expect(result.satisfied.isEmpty)
        // What it would bring only later comes over other connections.
        let longer = Demand(range: r(1 * MiB + 100 * KiB, 2 * MiB), priority: .reader)
        let more = plan(inFlight: [running(1 * MiB, 32 * MiB)], demands: [longer], holding: true)
        #expect(
            Array(more.actions.prefix(2)) == [
                .trim(index: 0, at: 1 * MiB + 256 * KiB), .start(r(1 * MiB + 256 * KiB, 1 * MiB + 512 * KiB), priority: .reader),
            ])
        // A demand's own request covers all of it, answered or not.
        let asked = InFlight.fresh(40 * MiB, 44 * MiB, isPriority: true)
        let later = Demand(range: r(43 * MiB, 44 * MiB), priority: .reader)
        #expect(plan(inFlight: [asked], demands: [later], holding: true).actions.isEmpty)
    }

    /// On a slow connection "soon" is a second's worth: a player's seek 100 KiB past a
    /// range arriving at 16 KiB/s gets a request of its own, not a 6 s wait; at 1 MiB/s
    /// (or an unknown rate) it is left to the range.
    @Test func soonIsASecondsWorthOfARangesRate() {
        let demand = Demand(range: r(1 * MiB + 100 * KiB, 1 * MiB + 200 * KiB), priority: .reader)
        let slow = plan(inFlight: [running(1 * MiB, 32 * MiB, rate: 16_000)], demands: [demand], holding: true)
        #expect(
            Array(slow.actions.prefix(2)) == [
                .trim(index: 0, at: 1 * MiB + 100 * KiB),
                .start(r(1 * MiB + 100 * KiB, 1 * MiB + 200 * KiB), priority: .reader),
            ], "\(slow.actions)")
        let fast = plan(inFlight: [running(1 * MiB, 32 * MiB, rate: 1_000_000)], demands: [demand], holding: true)
        #expect(fast.actions.isEmpty, "\(fast.actions)")
        // Bytes already in its socket are its own whatever the rate: the cut falls past them.
        var holding = running(1 * MiB, 32 * MiB, rate: 16_000)
        holding.arrived = 150 * KiB
        #expect(
            Array(plan(inFlight: [holding], demands: [demand], holding: true).actions.prefix(1)) == [
                .trim(index: 0, at: 1 * MiB + 150 * KiB)
            ])
    }

    /// Bytes still compared with held ones (a resume without validators) cannot be cut.
    @Test func aRangeStillBeingComparedIsNotSplit() {
        let comparing = running(1 * MiB, 32 * MiB, compareUntil: 2 * MiB)
        let demand = Demand(range: r(20 * MiB, 21 * MiB), priority: .reader)
        let result = plan(inFlight: [comparing], demands: [demand], holding: true)
        #expect(result.actions.isEmpty)
    }

    @Test func aDemandWithoutARangeCarryingItStopsWhereTheNextOneRuns() {
        let result = plan(
            inFlight: [running(10 * MiB + 100 * KiB, 14 * MiB)],
            demands: [Demand(range: r(10 * MiB, 64 * MiB), priority: .reader)], holding: true)
        #expect(result.actions.first == .start(r(10 * MiB, 10 * MiB + 100 * KiB), priority: .reader))
    }

    @Test func demandsHeldOrPastTheEndAreSatisfied() {
        let demands = [
            Demand(range: r(0, 1 * MiB), priority: .reader), Demand(range: r(70 * MiB, 71 * MiB), priority: .reader),
            Demand(range: r(5 * MiB, 6 * MiB), priority: .layout),
        ]
        let result = plan(held: [r(0, 1 * MiB)], demands: demands, holding: true)
        #expect(result.satisfied.sorted() == [0, 1])
        #expect(result.actions == [.start(r(5 * MiB, 6 * MiB), priority: .layout)])
    }

    /// Nothing unassigned: a free connection takes the back half of the largest range.
    @Test func aFreeConnectionStealsHalfOfTheLargestRange() throws {
        let small = running(2 * MiB, 10 * MiB, rate: 1e6)
        let large = running(11 * MiB, 64 * MiB, rate: 2e6)
        let result = plan(held: [r(0, 2 * MiB), r(10 * MiB, 11 * MiB)], inFlight: [small, large])
        let cut = try #require(scheduler.planner.stealPoint(next: 11 * MiB, end: 64 * MiB))
        #expect(result.actions.first == .split(index: 1, at: cut, rate: 2e6, priority: nil))
        // The half just taken is not taken again: the next free connection halves the other.
        let second = try #require(scheduler.planner.stealPoint(next: 2 * MiB, end: 10 * MiB))
        let other = try #require(scheduler.planner.stealPoint(next: 11 * MiB, end: cut))
        let expectedSecond: FragmentScheduler.Action =
            (cut - 11 * MiB) > (10 * MiB - 2 * MiB)
            ? .split(index: 1, at: other, rate: 2e6, priority: nil) : .split(index: 0, at: second, rate: 1e6, priority: nil)
        #expect(result.actions.dropFirst().first == expectedSecond)
    }

    /// Bytes already in the victim's socket are its own: the cut falls past them, or
    /// they would be fetched twice (its connection is stopped at the cut).
    @Test func aCutFallsPastWhatHasArrivedAlready() throws {
        var victim = running(0, 16 * MiB, rate: 2e6)
        victim.arrived = 9 * MiB
        let result = plan(length: 16 * MiB, inFlight: [victim])
        let cut = try #require(scheduler.planner.stealPoint(next: 9 * MiB, end: 16 * MiB))
        #expect(result.actions.first == .split(index: 0, at: cut, rate: 2e6, priority: nil))
        #expect(cut >= 9 * MiB)

        var tail = running(0, 1 * MiB, rate: 64 * 1024)
        tail.arrived = 700 * KiB
        let endgame = plan(length: 1 * MiB, inFlight: [tail])
        let late = try #require(
            scheduler.planner.endgameCut(next: 700 * KiB, end: 1 * MiB, bytesPerSecond: 64 * 1024, requestSeconds: 0.1))
        #expect(endgame.actions.first == .split(index: 0, at: late, rate: 64 * 1024, priority: nil))
        #expect(late >= 700 * KiB)

        // All of what is left has arrived: nothing to take.
        var done = running(0, 4 * MiB, rate: 64 * 1024)
        done.arrived = 4 * MiB
        #expect(plan(length: 4 * MiB, inFlight: [done]).actions.isEmpty)
    }

    /// A connection that delivers in bursts (nginx's `limit_rate`: a second's worth at a
    /// time) is cut between two of them, at least one burst past what arrived: a cut
    /// inside one had the burst's rest, sent already, fetched twice.
    @Test func aBurstingRangeIsCutBetweenItsBursts() throws {
        var bursting = running(4 * MiB, 16 * MiB, rate: 2e6)
        bursting.burst = 2 * MiB
        bursting.arrived = 512 * KiB
        let result = plan(length: 16 * MiB, held: [r(0, 4 * MiB)], inFlight: [bursting])
        // Halving [4.5 MiB, 16 MiB) would cut at 10 MiB: three bursts on is 10.5 MiB.
        #expect(result.actions.first == .split(index: 0, at: 10 * MiB + 512 * KiB, rate: 2e6, priority: nil))

        // Its last burst brings the rest: a fresh request would not be sooner.
        var lastBurst = running(0, 2 * MiB, rate: 2e6)
        lastBurst.burst = 2 * MiB
        #expect(plan(length: 2 * MiB, inFlight: [lastBurst]).actions.isEmpty)
        // Two bursts left: the second goes to a fresh request.
        var twoLeft = running(0, 4 * MiB, rate: 2e6)
        twoLeft.burst = 2 * MiB
        #expect(plan(length: 4 * MiB, inFlight: [twoLeft]).actions.first == .split(index: 0, at: 2 * MiB, rate: 2e6, priority: nil))
        // A steady one is cut where its rate says.
        let steady = running(0, 4 * MiB, rate: 2e6)
        let cut = try #require(scheduler.planner.stealPoint(next: 0, end: 4 * MiB))
        #expect(plan(length: 4 * MiB, inFlight: [steady]).actions.first == .split(index: 0, at: cut, rate: 2e6, priority: nil))
    }

    /// The endgame: a slow range below two fragments still splits when a fresh request
    /// would finish its back sooner.
    @Test func theEndgameSplitsBelowMinFragment() throws {
        let slow = running(0, 1 * MiB, rate: 64 * 1024)
        let result = plan(length: 1 * MiB, inFlight: [slow])
        let cut = try #require(
            scheduler.planner.endgameCut(next: 0, end: 1 * MiB, bytesPerSecond: 64 * 1024, requestSeconds: 0.1))
        #expect(result.actions.first == .split(index: 0, at: cut, rate: 64 * 1024, priority: nil))
        #expect(cut < scheduler.planner.minFragment)
    }

    @Test func aFastRangeIsLeftToFinish() {
        let fast = running(0, 1 * MiB, rate: 100e6)
        let result = plan(length: 1 * MiB, inFlight: [fast])
        #expect(result.actions.isEmpty)
        #expect(result.idleConnections == 3)
    }

    /// Under a rate limit more connections fetch nothing sooner: nothing is cut.
    @Test func nothingIsSplitWhileARateLimitHoldsBytesBack() {
        let slow = running(0, 1 * MiB, rate: 64 * 1024)
        #expect(plan(length: 1 * MiB, inFlight: [slow], rateLimited: true).actions.isEmpty)
        let large = running(0, 64 * MiB, rate: 1e6)
        #expect(plan(inFlight: [large], rateLimited: true).actions.isEmpty)
    }

    /// While the others wait for a late moov's answer, only demands are served.
    @Test func holdingServesDemandsOnly() {
        #expect(plan(holding: true).actions.isEmpty)
        let result = plan(demands: [Demand(range: r(30 * MiB, 31 * MiB), priority: .reader)], holding: true)
        #expect(result.actions == (0..<4).map { .start(r(30 * MiB + Int64($0) * 256 * KiB, 30 * MiB + Int64($0 + 1) * 256 * KiB), priority: .reader) })
        #expect(!result.holdOthers)
    }

    /// A range with much left may pause (a throttling server's bursts), and so may a
    /// response that ends where the range does; a short tail of a response that goes on
    /// past it is asked for again after two request latencies.
    @Test func aStalledTailOfALongerResponseIsGivenUpSooner() {
        func seconds(_ remaining: Int64?, goesOn: Bool = true, latency: Double? = 0.01) -> Double {
            FragmentScheduler.stallSeconds(remaining: remaining, responseGoesOn: goesOn, requestSeconds: latency)
        }
        let soon = FragmentScheduler.soon
        #expect(seconds(8 * MiB) == 1.2)
        #expect(seconds(nil) == 1.2)
        #expect(seconds(8 * MiB, latency: 0.4) == 1.6)
        #expect(seconds(soon + 1) == 1.2)
        #expect(seconds(soon) == 0.05)
        #expect(seconds(soon, goesOn: false) == 1.2)
        #expect(seconds(1696, latency: nil) == 0.1)
        #expect(seconds(1696, latency: 0.2) == 0.4)
    }

    @Test func pieceSizeNeverFallsBelowMinFragment() {
        #expect(scheduler.pieceSize(of: 64 * MiB) == 2 * MiB)
        #expect(scheduler.pieceSize(of: 4 * MiB) == 1 * MiB)
    }
}
