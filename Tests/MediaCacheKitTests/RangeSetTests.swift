import Testing
import TestSupport
@testable import MediaCacheKit

@Suite("RangeSet")
struct RangeSetTests {
    // MARK: insert

    @Test func insertIntoEmptySet() {
        var set = RangeSet()
        set.insert(r(10, 20))
        #expect(set.ranges == [r(10, 20)])
    }

    @Test func insertEmptyRangeIsIgnored() {
        var set = RangeSet([r(0, 10)])
        set.insert(r(50, 50))
        #expect(set.ranges == [r(0, 10)])
    }

    @Test func insertOverlappingMerges() {
        var set = RangeSet([r(0, 10)])
        set.insert(r(5, 15))
        #expect(set.ranges == [r(0, 15)])
    }

    @Test func insertAdjacentMerges() {
        var set = RangeSet([r(0, 10)])
        set.insert(r(10, 20))
        #expect(set.ranges == [r(0, 20)])
        set.insert(r(20, 30))
        #expect(set.ranges == [r(0, 30)])
    }

    @Test func insertAdjacentBeforeMerges() {
        var set = RangeSet([r(10, 20)])
        set.insert(r(5, 10))
        #expect(set.ranges == [r(5, 20)])
    }

    @Test func insertOutOfOrderKeepsSortedDisjoint() {
        var set = RangeSet()
        set.insert(r(50, 60))
        set.insert(r(10, 20))
        set.insert(r(30, 40))
        #expect(set.ranges == [r(10, 20), r(30, 40), r(50, 60)])
    }

    @Test func insertInsideExistingChangesNothing() {
        var set = RangeSet([r(0, 100)])
        set.insert(r(20, 30))
        #expect(set.ranges == [r(0, 100)])
    }

    @Test func insertInsideLastRangeStartingAfterItsStart() {
        var set = RangeSet([r(0, 10), r(20, 100)])
        set.insert(r(30, 40))
        #expect(set.ranges == [r(0, 10), r(20, 100)])
    }

    @Test func insertSpanningManyMergesThemAll() {
        var set = RangeSet([r(0, 5), r(10, 15), r(20, 25), r(30, 35), r(50, 60)])
        set.insert(r(3, 31))
        #expect(set.ranges == [r(0, 35), r(50, 60)])
    }

    @Test func insertCoveringEverythingLeavesOneRange() {
        var set = RangeSet([r(10, 15), r(20, 25), r(30, 35)])
        set.insert(r(0, 100))
        #expect(set.ranges == [r(0, 100)])
    }

    @Test func insertFillingGapBetweenTwoMergesThree() {
        var set = RangeSet([r(0, 10), r(20, 30)])
        set.insert(r(10, 20))
        #expect(set.ranges == [r(0, 30)])
    }

    @Test func initFromUnsortedOverlappingRangesNormalises() {
        let set = RangeSet([r(40, 50), r(0, 10), r(5, 20), r(20, 25), r(45, 60)])
        #expect(set.ranges == [r(0, 25), r(40, 60)])
    }

    // MARK: remove

    @Test func removeFromMiddleSplits() {
        var set = RangeSet([r(0, 100)])
        set.remove(r(40, 60))
        #expect(set.ranges == [r(0, 40), r(60, 100)])
    }

    @Test func removeTrimsEdges() {
        var set = RangeSet([r(0, 50), r(60, 100)])
        set.remove(r(40, 70))
        #expect(set.ranges == [r(0, 40), r(70, 100)])
    }

    @Test func removeWholeRangesAndBeyond() {
        var set = RangeSet([r(10, 20), r(30, 40), r(50, 60)])
        set.remove(r(5, 45))
        #expect(set.ranges == [r(50, 60)])
    }

    @Test func removeOfBytesNotHeldChangesNothing() {
        var set = RangeSet([r(10, 20)])
        set.remove(r(20, 30))
        set.remove(r(0, 10))
        set.remove(r(15, 15))
        #expect(set.ranges == [r(10, 20)])
    }

    // MARK: queries

    @Test func containsWholeRangesOnly() {
        let set = RangeSet([r(10, 20), r(30, 40)])
        #expect(set.contains(r(10, 20)))
        #expect(set.contains(r(12, 18)))
        #expect(set.contains(r(30, 31)))
        #expect(set.contains(r(39, 40)))
        #expect(set.contains(r(25, 25)))  // empty
        #expect(!set.contains(r(9, 11)))
        #expect(!set.contains(r(15, 35)))  // spans a gap
        #expect(!set.contains(r(19, 21)))
        #expect(!set.contains(r(20, 21)))
        #expect(!set.contains(r(40, 41)))
        #expect(!RangeSet().contains(r(0, 1)))
    }

    @Test func gapsWithinBounds() {
        let set = RangeSet([r(10, 20), r(30, 40)])
        #expect(set.gaps(within: r(0, 50)) == [r(0, 10), r(20, 30), r(40, 50)])
        #expect(set.gaps(within: r(15, 35)) == [r(20, 30)])
        #expect(set.gaps(within: r(10, 40)) == [r(20, 30)])
        #expect(set.gaps(within: r(12, 18)) == [])
        #expect(set.gaps(within: r(0, 5)) == [r(0, 5)])
        #expect(set.gaps(within: r(45, 50)) == [r(45, 50)])
        #expect(RangeSet().gaps(within: r(0, 100)) == [r(0, 100)])
    }

    @Test func coversLength() {
        #expect(RangeSet([r(0, 100)]).covers(length: 100))
        #expect(RangeSet([r(0, 100)]).covers(length: 50))
        #expect(!RangeSet([r(0, 100)]).covers(length: 101))
        #expect(!RangeSet([r(1, 100)]).covers(length: 100))
        #expect(!RangeSet([r(0, 40), r(50, 100)]).covers(length: 100))
        #expect(RangeSet().covers(length: 0))
        #expect(!RangeSet().covers(length: 1))
    }

    @Test func contiguousPrefix() {
        #expect(RangeSet().contiguousPrefix == 0)
        #expect(RangeSet([r(5, 100)]).contiguousPrefix == 0)
        #expect(RangeSet([r(0, 40), r(50, 100)]).contiguousPrefix == 40)
        #expect(RangeSet([r(0, 40), r(40, 100)]).contiguousPrefix == 100)
    }

    @Test func byteCountSumsRanges() {
        #expect(RangeSet().byteCount == 0)
        #expect(RangeSet([r(0, 10), r(20, 25), r(5, 12)]).byteCount == 17)
    }

    @Test func descriptionListsRanges() {
        #expect(RangeSet([r(0, 10), r(20, 25)]).description == "[0, 10) [20, 25)")
    }

    // MARK: ByteRange

    @Test func byteRangeBasics() {
        let range = r(100, 200)
        #expect(range.count == 100)
        #expect(range.httpRangeValue == "bytes=100-199")
        #expect(range.contains(100) && range.contains(199) && !range.contains(200))
        #expect(range.overlaps(r(199, 300)) && !range.overlaps(r(200, 300)))
        #expect(range.clamped(to: r(150, 400)) == r(150, 200))
        #expect(range.clamped(to: r(300, 400)).isEmpty)
    }

    // MARK: model-based property test

    /// Compares RangeSet against a Bool-per-byte model of a 1000-byte file.
    @Test func randomOperationsMatchABoolArrayModel() {
        let size = 1000
        var generator = SeededGenerator(seed: 0x5EED_0001)
        for iteration in 0..<200 {
            var model = [Bool](repeating: false, count: size)
            var set = RangeSet()
            for step in 0..<30 {
                let a = Int.random(in: 0...size, using: &generator)
                let maxLen = Bool.random(using: &generator) ? 20 : 400
                let b = min(size, a + Int.random(in: 0...maxLen, using: &generator))
                let range = r(Int64(a), Int64(b))
                let removing = Int.random(in: 0..<4, using: &generator) == 0
                if removing {
                    set.remove(range)
                } else {
                    set.insert(range)
                }
                for i in a..<b { model[i] = !removing }

                let expected = Self.runs(of: model, value: true)
                guard set.ranges == expected else {
                    Issue.record("iteration \(iteration) step \(step): \(removing ? "remove" : "insert") \(range) gave \(set) expected \(RangeSet(expected))")
                    return
                }
                #expect(set.byteCount == Int64(model.filter { $0 }.count))
                #expect(set.contiguousPrefix == Int64(model.firstIndex(of: false) ?? size))

                let qa = Int.random(in: 0...size, using: &generator)
                let qb = min(size, qa + Int.random(in: 0...100, using: &generator))
                let query = r(Int64(qa), Int64(qb))
                #expect(set.contains(query) == model[qa..<qb].allSatisfy { $0 }, "contains \(query) in \(set)")
                let gapModel = Self.runs(of: model, value: false).compactMap { gap -> ByteRange? in
                    let clamped = gap.clamped(to: query)
                    return clamped.isEmpty ? nil : clamped
                }
                #expect(set.gaps(within: query) == gapModel, "gaps within \(query) of \(set)")
                #expect(set.covers(length: Int64(size)) == model.allSatisfy { $0 }, "covers whole file: \(set)")
                let length = Int.random(in: 0...size, using: &generator)
                if !model[length...].contains(true) {  // a job never holds bytes past its length
                    #expect(
                        set.covers(length: Int64(length)) == model[0..<length].allSatisfy { $0 },
                        "covers(length: \(length)) of \(set)")
                }
            }
        }
    }

    /// A status page's picture of the held ranges: at most `limit` ranges, the smallest
    /// gaps filled first, the first byte and the last kept where they are.
    @Test func coarsenedFillsTheSmallestGapsFirst() {
        let ranges = [r(0, 10), r(12, 20), r(100, 110), r(111, 120), r(500, 600)]
        #expect(RangeSet.coarsened(ranges, to: 10) == ranges)
        #expect(RangeSet.coarsened(ranges, to: 3) == [r(0, 20), r(100, 120), r(500, 600)])
        #expect(RangeSet.coarsened(ranges, to: 1) == [r(0, 600)])
        #expect(RangeSet.coarsened([], to: 4).isEmpty)
    }

    /// Maximal runs of `value` in `model` as ranges.
    static func runs(of model: [Bool], value: Bool) -> [ByteRange] {
        var result: [ByteRange] = []
        var start: Int?
        for (index, bit) in model.enumerated() {
            if bit == value, start == nil { start = index }
            if bit != value, let s = start {
                result.append(r(Int64(s), Int64(index)))
                start = nil
            }
        }
        if let s = start { result.append(r(Int64(s), Int64(model.count))) }
        return result
    }
}
