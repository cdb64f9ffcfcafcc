import Testing
import TestSupport
@testable import MediaCacheKit

private let KiB: Int64 = 1024
private let MiB: Int64 = 1024 * 1024

/// Checks every documented guarantee of `plan` and returns a failure message, or nil.
private func planViolation(
    _ planner: FragmentPlanner, unassigned: [ByteRange], slots: Int
) -> String? {
    let pieces = planner.plan(unassigned: unassigned, slots: slots)
    let context = "plan(\(unassigned), slots: \(slots)) = \(pieces)"
    if pieces.count > max(0, slots) { return "more pieces than slots: \(context)" }
    if pieces.contains(where: \.isEmpty) { return "empty piece: \(context)" }
    let sorted = pieces.sorted { $0.start < $1.start }
    for (a, b) in zip(sorted, sorted.dropFirst()) where a.end > b.start {
        return "overlapping pieces \(a) \(b): \(context)"
    }
    let source = RangeSet(unassigned)
    for piece in pieces {
        guard source.contains(piece) else { return "piece \(piece) outside the unassigned bytes: \(context)" }
        let origin = source.ranges.first { $0.contains(piece.start) }!
        if piece.count < planner.minFragment && origin.count >= planner.minFragment {
            return "piece \(piece) shorter than minFragment \(planner.minFragment) (source \(origin)): \(context)"
        }
    }
    let nonEmptySources = unassigned.filter { !$0.isEmpty }.count
    if slots > 0 && nonEmptySources <= slots && RangeSet(pieces) != source {
        return "pieces do not cover the unassigned bytes exactly: \(context)"
    }
    return nil
}

@Suite("FragmentPlanner")
struct FragmentPlannerTests {
    @Test func oneLargeRangeIntoEightSlotsGivesEightNearEqualPieces() {
        let planner = FragmentPlanner(minFragment: 1 * MiB)
        let length = 100 * MiB + 12345
        let pieces = planner.plan(unassigned: [r(0, length)], slots: 8)
        #expect(pieces.count == 8)
        #expect(RangeSet(pieces) == RangeSet([r(0, length)]))
        #expect(pieces == pieces.sorted { $0.start < $1.start })
        let ideal = length / 8
        for piece in pieces {
            #expect(abs(piece.count - ideal) <= planner.alignment, "piece \(piece) vs ideal \(ideal)")
        }
    }

    @Test func evenSplitOfAlignedRangeIsExact() {
        let planner = FragmentPlanner(minFragment: 1 * MiB)
        let pieces = planner.plan(unassigned: [r(0, 64 * MiB)], slots: 8)
        #expect(pieces == (0..<8).map { r(Int64($0) * 8 * MiB, Int64($0 + 1) * 8 * MiB) })
    }

    @Test func splitPointsAreAligned() {
        let planner = FragmentPlanner(minFragment: 1 * MiB, alignment: 64 * KiB)
        let pieces = planner.plan(unassigned: [r(0, 10 * MiB + 777)], slots: 3)
        #expect(pieces.count == 3)
        for piece in pieces.dropFirst() {
            #expect(piece.start % (64 * KiB) == 0)
        }
    }

    @Test func zeroSlotsPlansNothing() {
        let planner = FragmentPlanner(minFragment: 100)
        #expect(planner.plan(unassigned: [r(0, 10_000)], slots: 0) == [])
    }

    @Test func nothingUnassignedPlansNothing() {
        let planner = FragmentPlanner(minFragment: 100)
        #expect(planner.plan(unassigned: [], slots: 4) == [])
        #expect(planner.plan(unassigned: [r(5, 5)], slots: 4) == [])
    }

    @Test func rangeShorterThanTwoMinFragmentsIsNotSplit() {
        let planner = FragmentPlanner(minFragment: 1 * MiB)
        #expect(planner.plan(unassigned: [r(0, 2 * MiB - 1)], slots: 4) == [r(0, 2 * MiB - 1)])
    }

    @Test func smallRangeIsKeptWhole() {
        let planner = FragmentPlanner(minFragment: 1 * MiB)
        #expect(planner.plan(unassigned: [r(0, 1000)], slots: 8) == [r(0, 1000)])
    }

    @Test func splitIsLimitedByMinFragment() {
        let planner = FragmentPlanner(minFragment: 1 * MiB)
        let pieces = planner.plan(unassigned: [r(0, 3 * MiB)], slots: 8)
        #expect(pieces == [r(0, 1 * MiB), r(1 * MiB, 2 * MiB), r(2 * MiB, 3 * MiB)])
    }

    @Test func moreRangesThanSlotsTakesTheLargest() {
        let planner = FragmentPlanner(minFragment: 100)
        let pieces = planner.plan(unassigned: [r(0, 10), r(100, 400), r(500, 520), r(600, 1000)], slots: 2)
        #expect(Set(pieces) == [r(100, 400), r(600, 1000)])
    }

    @Test func freeSlotsGoToTheLargestRanges() {
        let planner = FragmentPlanner(minFragment: 100, alignment: 1)
        let pieces = planner.plan(unassigned: [r(0, 50), r(1000, 2000)], slots: 3)
        #expect(pieces == [r(0, 50), r(1000, 1500), r(1500, 2000)])
    }

    @Test func piecesFromUnalignedRangeAreAtLeastMinFragment() {
        // A gap left by a stolen fragment starts anywhere; alignment must not make a
        // piece shorter than minFragment.
        let planner = FragmentPlanner(minFragment: 1 * MiB, alignment: 64 * KiB)
        let unassigned = [r(100, 100 + 2 * MiB)]
        let pieces = planner.plan(unassigned: unassigned, slots: 2)
        #expect(pieces.allSatisfy { $0.count >= 1 * MiB }, "\(pieces)")
        #expect(planViolation(planner, unassigned: unassigned, slots: 2) == nil)
    }

    @Test func piecesAreAtLeastMinFragmentWhenItIsNotAMultipleOfAlignment() {
        let planner = FragmentPlanner(minFragment: 100, alignment: 64)
        let unassigned = [r(0, 300)]
        let pieces = planner.plan(unassigned: unassigned, slots: 3)
        #expect(pieces.allSatisfy { $0.count >= 100 }, "\(pieces)")
        #expect(planViolation(planner, unassigned: unassigned, slots: 3) == nil)
    }

    /// Random inputs with alignment 1, so only the splitting logic is exercised.
    @Test func randomPlansKeepTheirGuaranteesWithoutAlignment() {
        var generator = SeededGenerator(seed: 0xF4A6_0001)
        for _ in 0..<300 {
            let minFragment = Int64.random(in: 1...500, using: &generator)
            let planner = FragmentPlanner(minFragment: minFragment, alignment: 1)
            let (unassigned, slots) = Self.randomInput(using: &generator)
            if let violation = planViolation(planner, unassigned: unassigned, slots: slots) {
                Issue.record("minFragment \(minFragment): \(violation)")
                return
            }
        }
    }

    /// Random inputs where every range start is aligned and minFragment is a multiple of
    /// the alignment: rounding can then never shorten a piece.
    @Test func randomAlignedPlansKeepTheirGuarantees() {
        var generator = SeededGenerator(seed: 0xF4A6_0002)
        for _ in 0..<300 {
            let alignment = Int64([1, 2, 8, 64].randomElement(using: &generator)!)
            let minFragment = alignment * Int64.random(in: 1...8, using: &generator)
            let planner = FragmentPlanner(minFragment: minFragment, alignment: alignment)
            let (raw, slots) = Self.randomInput(using: &generator)
            let unassigned = RangeSet(raw.map { r($0.start * alignment, $0.end * alignment) }).ranges
            if let violation = planViolation(planner, unassigned: unassigned, slots: slots) {
                Issue.record("minFragment \(minFragment) alignment \(alignment): \(violation)")
                return
            }
        }
    }

    /// Random inputs with arbitrary (unaligned) gaps and the default-like alignment.
    @Test func randomUnalignedPlansKeepTheirGuarantees() {
        var generator = SeededGenerator(seed: 0xF4A6_0003)
        for _ in 0..<300 {
            let planner = FragmentPlanner(minFragment: 64, alignment: 16)
            let (unassigned, slots) = Self.randomInput(using: &generator)
            if let violation = planViolation(planner, unassigned: unassigned, slots: slots) {
                Issue.record(Comment(rawValue: violation))
                return
            }
        }
    }

    /// Disjoint gaps of a 10 000-byte file and a slot count from 1 to 10.
    static func randomInput(using generator: inout SeededGenerator) -> ([ByteRange], Int) {
        var set = RangeSet()
        for _ in 0..<Int.random(in: 1...6, using: &generator) {
            let start = Int64.random(in: 0..<10_000, using: &generator)
            set.insert(r(start, min(10_000, start + Int64.random(in: 1...3000, using: &generator))))
        }
        return (set.ranges.shuffled(using: &generator), Int.random(in: 1...10, using: &generator))
    }

    // MARK: endgameCut

    /// A 4 MiB range at 2 MiB/s needs 2 s; a fresh request answers in 40 ms. Split below
    /// the 4 MiB minimum, the front keeps what it delivers while the fresh request starts,
    /// and both ends finish together: front / r == latency + back / r.
    @Test func endgameCutBalancesBothEndsBelowMinFragment() throws {
        let planner = FragmentPlanner(minFragment: 4 * MiB)
        #expect(planner.stealPoint(next: 4 * MiB, end: 8 * MiB) == nil)
        let rate = 2.0 * Double(MiB)
        let cut = try #require(planner.endgameCut(next: 4 * MiB, end: 8 * MiB, bytesPerSecond: rate, requestSeconds: 0.04))
        let front = Double(cut - 4 * MiB) / rate
        let back = 0.04 + Double(8 * MiB - cut) / rate
        #expect(abs(front - back) < Double(64 * KiB) / rate, "front \(front) s, back \(back) s")
        #expect(cut % (64 * KiB) == 0)
    }

    @Test func endgameCutIsNilWhenAFreshRequestWouldNotFinishSooner() {
        let planner = FragmentPlanner(minFragment: 4 * MiB)
        // 1 MiB at 100 MiB/s is 10 ms: less than two requests' latency.
        #expect(planner.endgameCut(next: 0, end: 1 * MiB, bytesPerSecond: 100 * Double(MiB), requestSeconds: 0.04) == nil)
        // 0.4 s left with a 1 ms latency: under the floor, not worth a request.
        #expect(planner.endgameCut(next: 0, end: 4 * MiB, bytesPerSecond: 10 * Double(MiB), requestSeconds: 0.001) == nil)
        // Too small to share: both sides would be under the endgame piece.
        #expect(planner.endgameCut(next: 0, end: 200 * KiB, bytesPerSecond: 1024, requestSeconds: 0.04) == nil)
        #expect(planner.endgameCut(next: 0, end: 8 * MiB, bytesPerSecond: 0, requestSeconds: 0.04) == nil)
    }

    @Test func endgameCutLeavesAtLeastOnePieceOnEachSide() throws {
        let planner = FragmentPlanner(minFragment: 4 * MiB)
        let piece = FragmentPlanner.endgamePiece
        // A very slow connection with a long latency: the ideal cut is near the end.
        let late = try #require(planner.endgameCut(next: 0, end: 2 * piece + 10, bytesPerSecond: 100_000, requestSeconds: 1))
        #expect(late >= piece && (2 * piece + 10) - late >= piece, "\(late)")
        // Near-zero latency: the cut is in the middle.
        let middle = try #require(planner.endgameCut(next: 0, end: 16 * piece, bytesPerSecond: 100_000, requestSeconds: 0))
        #expect(middle == 8 * piece)
    }

    // MARK: stealPoint

    @Test func stealPointIsNilBelowTwoMinFragments() {
        let planner = FragmentPlanner(minFragment: 1 * MiB)
        #expect(planner.stealPoint(next: 0, end: 2 * MiB - 1) == nil)
        #expect(planner.stealPoint(next: 5 * MiB, end: 5 * MiB) == nil)
        #expect(planner.stealPoint(next: 5 * MiB, end: 6 * MiB) == nil)
    }

    @Test func stealPointAtExactlyTwoMinFragmentsSplitsInHalf() {
        let planner = FragmentPlanner(minFragment: 1 * MiB)
        #expect(planner.stealPoint(next: 0, end: 2 * MiB) == 1 * MiB)
        #expect(planner.stealPoint(next: 4 * MiB, end: 6 * MiB) == 5 * MiB)
    }

    @Test func stealPointTakesTheBackHalfAligned() throws {
        let planner = FragmentPlanner(minFragment: 1 * MiB, alignment: 64 * KiB)
        let cut = try #require(planner.stealPoint(next: 3 * MiB, end: 13 * MiB + 100))
        #expect(cut % (64 * KiB) == 0)
        #expect(abs(cut - (3 * MiB + (10 * MiB + 100) / 2)) < 64 * KiB)
    }

    @Test func stealPointOfUnalignedRemainderStillShares() throws {
        // A connection mid-way through a fragment is at an arbitrary offset.
        let planner = FragmentPlanner(minFragment: 100, alignment: 64)
        let cut = try #require(planner.stealPoint(next: 10, end: 210))
        #expect(cut - 10 >= 100 && 210 - cut >= 100)
    }

    @Test func randomStealPointsLeaveBothHalvesAtLeastMinFragment() {
        var generator = SeededGenerator(seed: 0x57EA_0001)
        for _ in 0..<1000 {
            let alignment = Int64([1, 4, 64].randomElement(using: &generator)!)
            let minFragment = alignment * Int64.random(in: 1...10, using: &generator)
            let planner = FragmentPlanner(minFragment: minFragment, alignment: alignment)
            // `next` aligned, as it is at the start of a planned fragment.
            let next = alignment * Int64.random(in: 0...1000, using: &generator)
            let end = next + Int64.random(in: 0...(5 * minFragment), using: &generator)
            let cut = planner.stealPoint(next: next, end: end)
            if end - next < 2 * minFragment {
                #expect(cut == nil, "stealPoint(\(next), \(end)) min \(minFragment)")
            } else if let cut {
                #expect(cut - next >= minFragment && end - cut >= minFragment,
                        "stealPoint(\(next), \(end)) = \(cut), min \(minFragment)")
                #expect(cut % alignment == 0)
            } else {
                Issue.record("stealPoint(\(next), \(end)) is nil although \(end - next) >= 2 × \(minFragment)")
            }
        }
    }

    @Test func alignmentIsClampedToMinFragment() {
        #expect(FragmentPlanner(minFragment: 1000, alignment: 64 * KiB).alignment == 1000)
        #expect(FragmentPlanner(minFragment: 1 * MiB, alignment: 0).alignment == 1)
        #expect(FragmentPlanner(minFragment: 1 * MiB).alignment == 64 * KiB)
    }
}

@Suite struct FragmentPlannerInOrderTests {
    let planner = FragmentPlanner(minFragment: 1 << 20)

    @Test func piecesComeFrontToBackAtMostPieceSize() {
        let pieces = planner.planInOrder(unassigned: [ByteRange(0, 100 << 20)], slots: 4, pieceSize: 8 << 20)
        #expect(pieces == [ByteRange(0, 8 << 20), ByteRange(8 << 20, 16 << 20), ByteRange(16 << 20, 24 << 20), ByteRange(24 << 20, 32 << 20)])
    }

    @Test func aSliverIsNeverLeftBehind() {
        let size: Int64 = (16 << 20) + (512 << 10)
        let pieces = planner.planInOrder(unassigned: [ByteRange(0, size), ByteRange(size + 10, 200 << 20)], slots: 2, pieceSize: 8 << 20)
        #expect(pieces == [ByteRange(0, 8 << 20), ByteRange(8 << 20, size)])
    }

    @Test func aSmallRemainderIsSplitEvenlyAcrossTheFreeConnections() {
        let pieces = planner.planInOrder(unassigned: [ByteRange(0, 8 << 20)], slots: 4, pieceSize: 8 << 20)
        #expect(pieces.count == 4)
        #expect(pieces.allSatisfy { $0.count == 2 << 20 })
    }
}
