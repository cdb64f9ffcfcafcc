import Foundation
import Testing
import TestSupport
@testable import MediaCacheKit

/// Builds ISO BMFF bytes for tests.
enum Boxes {
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        BigEndian.bytes(UInt32(payload.count + 8)) + Array(type.utf8) + payload
    }

    static func largeBox(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        BigEndian.bytes(UInt32(1)) + Array(type.utf8) + BigEndian.bytes(UInt64(payload.count + 16)) + payload
    }

    static func stco(_ offsets: [Int64]) -> [UInt8] {
        box("stco", [0, 0, 0, 0] + BigEndian.bytes(UInt32(offsets.count)) + offsets.flatMap { BigEndian.bytes(UInt32($0)) })
    }

    static func co64(_ offsets: [Int64]) -> [UInt8] {
        box("co64", [0, 0, 0, 0] + BigEndian.bytes(UInt32(offsets.count)) + offsets.flatMap { BigEndian.bytes(UInt64($0)) })
    }

    static func track(_ table: [UInt8]) -> [UInt8] {
        box("trak", box("tkhd", [UInt8](repeating: 1, count: 20)) + box("mdia", box("minf", box("stbl", box("stsd", [0, 0, 0, 0]) + table))))
    }

    static func moov(_ tracks: [[UInt8]], extra: [UInt8] = []) -> [UInt8] {
        box("moov", box("mvhd", [UInt8](repeating: 7, count: 24)) + tracks.flatMap { track($0) } + extra)
    }

    static let ftyp = box("ftyp", Array("isom".utf8) + [0, 0, 2, 0] + Array("isomiso2avc1mp41".utf8))

    /// ftyp, free, mdat (chunks of recognisable bytes), then moov with offsets into mdat.
    static func lateMoovFile(tracks: Int = 1, chunks: Int = 4) -> (bytes: [UInt8], chunkOffsets: [[Int64]]) {
        let head = ftyp + box("free", [])
        let mdatPayload = (0..<(tracks * chunks * 100)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let mdatStart = Int64(head.count + 8)
        let offsets = (0..<tracks).map { track in
            (0..<chunks).map { mdatStart + Int64((track * chunks + $0) * 100) }
        }
        let bytes = head + box("mdat", mdatPayload) + moov(offsets.map { stco($0) })
        return (bytes, offsets)
    }
}

@Suite struct BoxHeaderTests {
    @Test func parses32BitSize() throws {
        let box = try BoxHeader.parse(Boxes.box("free", [1, 2, 3]), at: 0, limit: 11)
        #expect(box == BoxHeader(type: "free", offset: 0, size: 11, headerSize: 8))
    }

    @Test func parses64BitLargesize() throws {
        let box = try BoxHeader.parse(Boxes.largeBox("mdat", [9, 9]), at: 100, limit: 118)
        #expect(box.size == 18 && box.headerSize == 16 && box.end == 118)
    }

    @Test func sizeZeroRunsToTheEndOfTheContainer() throws {
        let bytes: [UInt8] = [0, 0, 0, 0] + Array("mdat".utf8)
        let box = try BoxHeader.parse(bytes, at: 40, limit: 5000)
        #expect(box.end == 5000)
    }

    @Test func uuidBoxesHaveAnExtendedType() throws {
        let box = try BoxHeader.parse(Boxes.box("uuid", [UInt8](repeating: 0xAB, count: 20)), at: 0, limit: 28)
        #expect(box.headerSize == 24)
    }

    @Test func hostileSizesAreRefused() {
        #expect(throws: MP4Error.badSize(type: "free", offset: 0, size: 4)) {
            try BoxHeader.parse([0, 0, 0, 4] + Array("free".utf8), at: 0, limit: 100)
        }
        #expect(throws: MP4Error.pastEnd(type: "mdat", offset: 0, end: 1000, limit: 100)) {
            try BoxHeader.parse(BigEndian.bytes(UInt32(1000)) + Array("mdat".utf8), at: 0, limit: 100)
        }
        #expect(throws: MP4Error.truncatedHeader(offset: 0)) {
            try BoxHeader.parse([0, 0, 0, 1] + Array("mdat".utf8) + [0, 0], at: 0, limit: 100)
        }
        #expect(throws: MP4Error.badType(offset: 0)) {
            try BoxHeader.parse([0, 0, 0, 8, 0, 1, 2, 3], at: 0, limit: 100)
        }
    }

    @Test func topLevelBoxesTileTheFile() throws {
        let file = Boxes.lateMoovFile().bytes
        let boxes = try TopLevelBoxes.scan(MemoryBytes(file), length: Int64(file.count))
        #expect(boxes.map(\.type) == ["ftyp", "free", "mdat", "moov"])
        #expect(boxes.last?.end == Int64(file.count))
    }

    @Test func trailingGarbageIsReported() {
        let file = Boxes.lateMoovFile().bytes + [1, 2, 3]
        #expect(throws: MP4Error.self) { try TopLevelBoxes.scan(MemoryBytes(file), length: Int64(file.count)) }
    }

    @Test func randomBytesNeverCrashOrLoop() {
        var generator = SeededGenerator(seed: 77)
        for _ in 0..<300 {
            let count = Int(generator.next() % 200)
            let bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            _ = try? TopLevelBoxes.scan(MemoryBytes(bytes), length: Int64(bytes.count))
            _ = try? FaststartPlanner.plan(MemoryBytes(Boxes.ftyp + bytes), length: Int64(Boxes.ftyp.count + bytes.count))
        }
    }
}

@Suite struct FaststartTests {
    func relocate(_ bytes: [UInt8]) throws -> (plan: RelocationPlan, output: [UInt8]) {
        let directory = NSTemporaryDirectory() + "mp4-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let source = try DataFile(path: directory + "/in", mode: .readWrite)
        try source.write(bytes, at: 0)
        guard case .relocate(let plan) = try FaststartPlanner.plan(source, length: Int64(bytes.count)) else {
            throw MP4Error.badTable(type: "test", reason: "expected a relocation")
        }
        let output = try DataFile(path: directory + "/out", mode: .readWrite)
        try MoovRelocator.write(plan, from: source, to: output)
        return (plan, try output.read(count: Int(try output.size()), at: 0))
    }

    @Test(arguments: [1, 3])
    func lateMoovIsMovedFrontAndEveryChunkOffsetFollowsItsBytes(tracks: Int) throws {
        let (bytes, offsets) = Boxes.lateMoovFile(tracks: tracks)
        let (plan, output) = try relocate(bytes)
        #expect(output.count == bytes.count)
        let boxes = try TopLevelBoxes.scan(MemoryBytes(output), length: Int64(output.count))
        #expect(boxes.map(\.type) == ["ftyp", "free", "moov", "mdat"])
        let moov = boxes[2]
        let summary = try MoovRewriter(moov: Array(output[Int(moov.offset)..<Int(moov.end)])).summary()
        #expect(summary.tables.count == tracks)
        #expect(summary.allOffsets == offsets.flatMap { $0 }.map { $0 + plan.shift })
        for (old, new) in zip(offsets.flatMap { $0 }, summary.allOffsets) {
            #expect(output[Int(new)..<Int(new) + 100] == bytes[Int(old)..<Int(old) + 100])
        }
        try MP4StructureCheck.check(MemoryBytes(output), length: Int64(output.count))
    }

    @Test func relocatedDigestFromOriginBytesEqualsTheDigestOfTheOutput() throws {
        let (bytes, _) = Boxes.lateMoovFile(tracks: 2, chunks: 50)
        let (plan, output) = try relocate(bytes)
        // Fed in uneven blocks, as the file reader would.
        let digest = RelocatedDigest(plan: plan)
        var offset = 0
        for size in [7, 100, 1, 4096, 33, Int.max] where offset < bytes.count {
            let end = min(bytes.count, offset + min(size, bytes.count))
            bytes[offset..<end].withUnsafeBytes { digest.update(at: Int64(offset), $0) }
            offset = end
        }
        let expected = Digest(.sha256)
        expected.update(output)
        #expect(digest.finalizeHex() == expected.finalizeHex())
    }

    @Test func offsetsNearFourGigabytesWidenStcoToCo64() throws {
        // A moov whose offsets would pass 2^32 after the shift, without a 4 GiB file.
        let near = Int64(UInt32.max) - 40
        let moov = Boxes.moov([Boxes.stco([near - 10, near])])
        let rewriter = MoovRewriter(moov: moov)
        let narrow = try rewriter.rewritten(shift: 100, widen: false)
        let wide = try rewriter.rewritten(shift: 100, widen: true)
        #expect(wide.count == narrow.count + 2 * 4)
        let summary = try MoovRewriter(moov: wide).summary()
        #expect(summary.tables.count == 1 && summary.tables[0].isWide)
        #expect(summary.allOffsets == [near + 90, near + 100])
    }

    @Test func plannerWidensWhenTheShiftCrossesFourGigabytes() throws {
        // mdat with a 64-bit size whose last chunk sits just under 2^32; a sparse source.
        let head = Boxes.ftyp
        let mdatStart = Int64(head.count)
        let mdatSize = Int64(UInt32.max) - mdatStart + 4096
        let lastChunk = Int64(UInt32.max) - 100
        let moov = Boxes.moov([Boxes.stco([mdatStart + 16, lastChunk])])
        let source = SparseSource(
            head: head + BigEndian.bytes(UInt32(1)) + Array("mdat".utf8) + BigEndian.bytes(UInt64(mdatSize)),
            tail: moov, tailOffset: mdatStart + mdatSize)
        let decision = try FaststartPlanner.plan(source, length: source.length)
        guard case .relocate(let plan) = decision else {
            Issue.record("expected a relocation, got \(decision)")
            return
        }
        let summary = try MoovRewriter(moov: plan.newMoov).summary()
        #expect(summary.tables.allSatisfy { $0.isWide })
        #expect(plan.shift == Int64(moov.count + 8), "the shift is the final, widened moov size")
        #expect(summary.allOffsets == [mdatStart + 16 + plan.shift, lastChunk + plan.shift])
    }

    @Test func alreadyFaststartIsKept() throws {
        let file = Boxes.ftyp + Boxes.moov([Boxes.stco([200])]) + Boxes.box("mdat", [UInt8](repeating: 1, count: 300))
        #expect(try FaststartPlanner.plan(MemoryBytes(file), length: Int64(file.count)) == .original)
    }

    @Test func fragmentedAndCompressedFilesAreSkippedWithAReason() throws {
        let (bytes, _) = Boxes.lateMoovFile()
        let fragmented = bytes + Boxes.box("moof", Boxes.box("mfhd", [0, 0, 0, 0, 0, 0, 0, 1]))
        #expect(try FaststartPlanner.plan(MemoryBytes(fragmented), length: Int64(fragmented.count)) == .skipped("fragmented"))
        let mvex = Boxes.ftyp + Boxes.box("mdat", [1, 2, 3]) + Boxes.moov([], extra: Boxes.box("mvex", []))
        #expect(try FaststartPlanner.plan(MemoryBytes(mvex), length: Int64(mvex.count)) == .skipped("fragmented"))
        let cmov = Boxes.ftyp + Boxes.box("mdat", [1, 2, 3]) + Boxes.box("moov", Boxes.box("cmov", [0, 0]))
        #expect(try FaststartPlanner.plan(MemoryBytes(cmov), length: Int64(cmov.count)) == .skipped("compressed moov"))
    }

    @Test func notMP4IsLeftAlone() throws {
        let bytes = Array("just some bytes, not a movie".utf8)
        #expect(try FaststartPlanner.plan(MemoryBytes(bytes), length: Int64(bytes.count)) == .notMP4)
    }

    @Test func chunkOffsetsOutsideMdatAreNotRelocated() throws {
        let head = Boxes.ftyp
        let file = head + Boxes.box("mdat", [UInt8](repeating: 0, count: 100)) + Boxes.moov([Boxes.stco([5])])
        #expect(try FaststartPlanner.plan(MemoryBytes(file), length: Int64(file.count)) == .skipped("chunk offsets outside mdat"))
    }
}

/// A huge file that is zeros except for a head and a tail, without the disk space.
struct SparseSource: ByteSource {
    var head: [UInt8]
    var tail: [UInt8]
    var tailOffset: Int64
    var length: Int64 { tailOffset + Int64(tail.count) }

    func bytes(at offset: Int64, count: Int) throws -> [UInt8] {
        (0..<Int64(count)).map { index -> UInt8 in
            let position = offset + index
            if position < Int64(head.count) { return head[Int(position)] }
            if position >= tailOffset && position < length { return tail[Int(position - tailOffset)] }
            return 0
        }.prefix(Int(max(0, length - offset))).map { $0 }
    }
}

@Suite struct MoovLocatorTests {
    @Test func findsALateMoovByWalkingHeaders() {
        let file = Boxes.lateMoovFile().bytes
        var locator = MoovLocator(length: Int64(file.count))
        let step = locator.advance(isHeld: { _ in true }, read: { Array(file[Int($0.start)..<Int($0.end)]) })
        #expect(step == .finished)
        #expect(locator.moov?.offset == locator.mdat?.end)
    }

    @Test func asksForTheHeaderAfterMdatWhenOnlyTheStartIsHeld() {
        let file = Boxes.lateMoovFile().bytes
        let held = RangeSet([ByteRange(0, 64)])
        var locator = MoovLocator(length: Int64(file.count))
        let step = locator.advance(
            isHeld: { held.contains($0) }, read: { Array(file[Int($0.start)..<Int($0.end)]) })
        let mdatEnd = locator.mdat?.end ?? -1
        #expect(step == .needs(ByteRange(mdatEnd, min(Int64(file.count), mdatEnd + 16))))
        #expect(locator.moov == nil && !locator.isFinished)
    }

    @Test func stopsOnBytesThatAreNotMP4() {
        let bytes = Array("<html><body>nope</body></html>".utf8)
        var locator = MoovLocator(length: Int64(bytes.count))
        #expect(locator.advance(isHeld: { _ in true }, read: { Array(bytes[Int($0.start)..<Int($0.end)]) }) == .finished)
        #expect(locator.moov == nil)
    }
}
