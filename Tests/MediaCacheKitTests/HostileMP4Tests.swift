import Foundation
import Testing
@testable import MediaCacheKit

/// MP4 bytes that lie: every walker either refuses them with an `MP4Error` or leaves
/// the file alone; none traps, loops or reads past the end.
@Suite("MP4, hostile input")
struct HostileMP4Tests {
    private func planAndCheck(_ bytes: [UInt8]) -> (plan: Result<FaststartDecision, Error>, check: Error?) {
        let source = MemoryBytes(bytes)
        let length = Int64(bytes.count)
        let plan = Result { try FaststartPlanner.plan(source, length: length) }
        var checkError: Error?
        do { try MP4StructureCheck.check(source, length: length) } catch { checkError = error }
        var locator = MoovLocator(length: length)
        let step = locator.advance(isHeld: { _ in true }, read: { Array(bytes[Int($0.start)..<Int($0.end)]) })
        #expect(step == .finished)
        return (plan, checkError)
    }

    private func bytes(base64: String) throws -> [UInt8] { Array(try #require(Data(base64Encoded: base64))) }

    /// Found by FuzzMP4: a 64-bit size near Int64.max made `offset + size` overflow
    /// while the error for it was built (a trap on any download with such a header).
    @Test func fuzzRegressionLargesizeOverflow() throws {
        let file = try bytes(
            base64:
                "AAAAIGZ0cHlpc29tAAACAGlzb21pc28yYXZjMW1wNDEAAAAgZnR5cGlzb20AAAIAaXNvAAAAAAAAAGMxbXA0MQAAAAhmcmVlAAAAAW1kYXN//////////2UAAAD////8AAAw"
        )
        #expect(throws: MP4Error.pastEnd(type: "mdas", offset: 72, end: .max, limit: Int64(file.count))) {
            try TopLevelBoxes.scan(MemoryBytes(file), length: Int64(file.count))
        }
        // Its first box is not `ftyp`, so the planner leaves it alone; the check refuses it.
        let outcome = planAndCheck(file)
        #expect(try outcome.plan.get() == .notMP4)
        #expect(outcome.check is MP4Error)

        let mp4 = Boxes.ftyp + BigEndian.bytes(UInt32(1)) + Array("mdat".utf8) + BigEndian.bytes(UInt64(Int64.max)) + [1]
        #expect(throws: MP4Error.pastEnd(type: "mdat", offset: 32, end: .max, limit: Int64(mp4.count))) {
            try planAndCheck(mp4).plan.get()
        }
    }

    /// Found by FuzzMP4: a co64 entry with bit 63 set trapped the rewriter when it was
    /// asked to move it (the planner never asks: such offsets lie outside mdat).
    @Test func fuzzRegressionCo64WithTheTopBitSet() throws {
        let moov = try bytes(
            base64:
                "AAAAAGNvNjRiGwAAAAAAIGZ0eXBpc29tAAACAGlzb21pc28yYXZjMf///z0AAAAIZnJlZQAAAEhtZHNraXA+XXybutn4FzZVdJOy0fAPLk1si6rJ6AcmRWSDosHg/x49XHuaudj3FjVUc5Kx0AAA7w4tTGuKqcjnBiVEY4KhAAAAoG1vb3YAAAAgbXZoZAcHb20AAAIAaXNvbWlzbzJhdmMxbXA0MQAAAAhmcmVlAGNvNjRkc2tpcD5dfJu62fgXNlV0k7LR8A8uTWyLqsnoByZFZIMHBwcHBwcHBwcHBwcHBwcHAAcHBwcHBwAAAHh0cmFrAAAAHHRraGQBAQEBAQEBAQEBAQEBAQEBAAEBAQEAAABUbWRpYQAAAExtaW5mAAAABHN0YgAAbAAMc3RzZABjbzY0AAAwY282NAIAAAAAAAAEAAAAAAAAADAAAAAAAAAAQAAAAAAAAABQAAAAAAAAAGA="
        )
        let rewriter = MoovRewriter(moov: moov)
        let offsets = try rewriter.summary().allOffsets
        #expect(offsets.contains { $0 < 0 })
        let moved = try rewriter.rewritten(shift: 4096, widen: true)
        #expect(try MoovRewriter(moov: moved).summary().allOffsets == offsets.map { $0 &+ 4096 })

        let file = Boxes.ftyp + Boxes.box("mdat", [UInt8](repeating: 1, count: 64))
            + Boxes.moov([Boxes.box("co64", [0, 0, 0, 0] + BigEndian.bytes(UInt32(1)) + BigEndian.bytes(UInt64.max - 255))])
        #expect(try planAndCheck(file).plan.get() == .skipped("chunk offsets outside mdat"))
    }

    @Test func moovLargerThanTheFileIsRefused() {
        let file = Boxes.ftyp + BigEndian.bytes(UInt32(1_000_000)) + Array("moov".utf8) + [UInt8](repeating: 0, count: 40)
        let outcome = planAndCheck(file)
        #expect(throws: MP4Error.pastEnd(type: "moov", offset: 32, end: 1_000_032, limit: Int64(file.count))) {
            try outcome.plan.get()
        }
        #expect(outcome.check is MP4Error)
    }

    @Test func childBoxLargerThanItsParentIsRefused() {
        let lyingTrak = BigEndian.bytes(UInt32(5000)) + Array("trak".utf8) + [UInt8](repeating: 0, count: 16)
        let file = Boxes.ftyp + Boxes.box("mdat", [1, 2, 3, 4]) + Boxes.box("moov", lyingTrak)
        #expect(throws: MP4Error.self) { try planAndCheck(file).plan.get() }
    }

    @Test(arguments: [UInt32(3), 0x1FFF_FFFF, UInt32.max])
    func chunkTableCountPastItsBoxIsRefused(count: UInt32) {
        let table = Boxes.box("stco", [0, 0, 0, 0] + BigEndian.bytes(count) + BigEndian.bytes(UInt32(40)))
        let file = Boxes.ftyp + Boxes.box("mdat", [UInt8](repeating: 9, count: 16)) + Boxes.moov([table])
        let outcome = planAndCheck(file)
        #expect(throws: MP4Error.self) { try outcome.plan.get() }
        #expect(outcome.check is MP4Error)
    }

    @Test func largesizeSmallerThanItsHeaderIsRefused() {
        for large in [UInt64(0), 8, 15, UInt64(Int64.max) + 1, .max] {
            let file = Boxes.ftyp + BigEndian.bytes(UInt32(1)) + Array("mdat".utf8) + BigEndian.bytes(large) + [0, 0]
            #expect(throws: MP4Error.self) { try TopLevelBoxes.scan(MemoryBytes(file), length: Int64(file.count)) }
            _ = planAndCheck(file)
        }
    }

    @Test func uuidBoxTooSmallForItsExtendedTypeIsRefused() {
        let file = Boxes.ftyp + BigEndian.bytes(UInt32(20)) + Array("uuid".utf8) + [UInt8](repeating: 0, count: 12)
        #expect(throws: MP4Error.badSize(type: "uuid", offset: 32, size: 20)) {
            try TopLevelBoxes.scan(MemoryBytes(file), length: Int64(file.count))
        }
    }

    /// 20,000 nested containers: the walk stops descending at a fixed depth (no stack
    /// overflow) and copies the rest byte for byte.
    @Test func deepNestingIsCopiedNotRecursed() throws {
        let inner = Boxes.stco([41])
        let levels = 20_000
        var nested: [UInt8] = []
        for level in 0..<levels {
            nested += BigEndian.bytes(UInt32((levels - level) * 8 + inner.count)) + Array("trak".utf8)
        }
        nested += inner
        let (late, _) = Boxes.lateMoovFile(tracks: 1, chunks: 2)
        let moovStart = late.count - Boxes.moov([Boxes.stco([0, 0])]).count
        let file = Array(late[..<moovStart]) + Boxes.box("moov", Array(late[(moovStart + 8)...]) + nested)
        guard case .relocate(let plan) = try planAndCheck(file).plan.get() else {
            Issue.record("expected a relocation")
            return
        }
        #expect(plan.newMoov.suffix(nested.count).elementsEqual(nested))
    }

    @Test func sizeZeroTopLevelBoxRunsToTheEndOnly() throws {
        // mdat with size 0 swallows the moov that follows: no moov, nothing to move.
        let file = Boxes.ftyp + [0, 0, 0, 0] + Array("mdat".utf8) + Boxes.moov([Boxes.stco([40])])
        #expect(try planAndCheck(file).plan.get() == .skipped("no moov"))
    }

    @Test func manyTinyBoxesAreBounded() {
        let file = Boxes.ftyp + (0..<150_000).flatMap { _ in Boxes.box("free", []) }
        #expect(throws: MP4Error.tooManyBoxes(100_000)) {
            try TopLevelBoxes.scan(MemoryBytes(file), length: Int64(file.count))
        }
    }
}
