import Foundation
import Synchronization
import Testing
@testable import MediaCacheKit

/// A title resource's bytes reach its file and its hash off the loop, in order, and a
/// player is told only of bytes already on disk.
@Suite("ResourceSink")
struct ResourceSinkTests {
    /// Runs `body` on a running loop's thread and returns what the sink finished with.
    private func finish(
        _ body: @escaping @Sendable (TransferLoop, @escaping @Sendable (Result<String?, SystemError>) -> Void) -> Void
    ) throws -> Result<String?, SystemError> {
        let running = RunningLoop()
        let loop = running.loop
        let outcome = Mutex<Result<String?, SystemError>?>(nil)
        loop.post {
            body(loop) { result in
                outcome.withLock { $0 = result }
                loop.stop()
            }
        }
        #expect(running.stopped())
        return try #require(outcome.withLock { $0 })
    }

    /// A file `segment.ts` in `directory` holding `bytes` (an earlier run's), opened.
    private func existingFile(
        _ bytes: [UInt8], in directory: TemporaryDirectory, mode: DataFile.Mode = .readWrite
    ) throws -> (path: String, file: DataFile) {
        let path = directory.path + "/segment.ts"
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        return (path, try DataFile(path: path, mode: mode))
    }

    /// Blocks of `count` bytes, each different.
    private func blocks(_ count: Int, of size: Int) -> [[UInt8]] {
        (0..<count).map { index in (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) } }
    }

    @Test func bytesAppendedOverManyPassesAreWrittenInOrderAndHashed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/segment.ts"
        // More than a block in one pass, and small pieces over later passes.
        let pieces = blocks(3, of: WriteBlocks.size / 2 + 7) + blocks(40, of: 16 << 10)
        let notes = Mutex<[TitleInProgress.ArrivalNote]>([])
        let result = try finish { loop, done in
            let sink = ResourceSink(creating: path, blocks: WriteBlocks(), on: loop) { note in
                notes.withLock { $0.append(note) }
            }
            sink.note(.accepted(length: nil))
            for piece in pieces.prefix(3) { piece.withUnsafeBytes { sink.append($0) } }
            var rest = pieces.dropFirst(3)[...]
            func next() {
                guard let piece = rest.popFirst() else { return sink.finish { done($0) } }
                piece.withUnsafeBytes { sink.append($0) }
                _ = loop.after(0.001) { next() }  // a later pass
            }
            next()
        }
        let whole = pieces.flatMap { $0 }
        #expect(try result.get() == Digest.sha256Hex(whole))
        #expect(FileManager.default.contents(atPath: path) == Data(whole))
        let told = notes.withLock { $0 }
        guard case .accepted = told.first else {
            Issue.record("the first note is not `accepted`: \(told)")
            return
        }
        let upTo = told.dropFirst().compactMap { note -> Int64? in
            if case .wrote(let bytes) = note { bytes } else { nil }
        }
        #expect(upTo.count == told.count - 1, "only writes after it")
        #expect(upTo == upTo.sorted() && Set(upTo).count == upTo.count, "rising")
        #expect(upTo.last == Int64(whole.count))
        #expect(upTo.count > 2 && upTo.count < pieces.count, "pieces of one pass are written together")
    }

    @Test func heldBytesAreHashedBeforeWhatFollowsThem() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let held = Array("bytes an earlier run kept ".utf8)
        let (path, file) = try existingFile(held, in: directory)
        let rest = Array("and the rest of them".utf8)
        let result = try finish { loop, done in
            let sink = ResourceSink(continuing: file, held: Int64(held.count), blocks: WriteBlocks(), on: loop, notes: nil)
            rest.withUnsafeBytes { sink.append($0) }
            sink.finish { done($0) }
        }
        #expect(try result.get() == Digest.sha256Hex(held + rest))
        #expect(FileManager.default.contents(atPath: path) == Data(held + rest))
    }

    @Test func aRestartDropsWhatWasWrittenFromFileAndHash() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let old = Array("an old version, longer than the new one".utf8)
        let (path, file) = try existingFile(old, in: directory)
        let new = Array("the new version".utf8)
        let notes = Mutex<[TitleInProgress.ArrivalNote]>([])
        let onDisk = Mutex<[Int64]>([])
        let result = try finish { loop, done in
            let sink = ResourceSink(continuing: file, held: 12, blocks: WriteBlocks(), on: loop) { note in
                notes.withLock { $0.append(note) }
            }
            onDisk.withLock { $0.append(sink.bytesOnDisk) }
            sink.restart()
            // What a checkpoint would keep now, whether or not the queue truncated yet:
            // never the old version's bytes under the new version's validator.
            onDisk.withLock { $0.append(sink.bytesOnDisk) }
            new.withUnsafeBytes { sink.append($0) }
            sink.finish { done($0) }
        }
        #expect(try result.get() == Digest.sha256Hex(new))
        #expect(FileManager.default.contents(atPath: path) == Data(new))
        #expect(onDisk.withLock { $0 } == [12, 0])
        let told = notes.withLock { $0 }
        guard told.count == 2, case .from(0) = told[0], case .wrote(let bytes) = told[1] else {
            Issue.record("told \(told), not from 0 then the new bytes")
            return
        }
        #expect(bytes == Int64(new.count))
    }

    /// A whole answer after held bytes (another copy, a server that ignored the range,
    /// `held` of `old` bytes): compared with them, the file changes only where the new
    /// bytes differ; a player is told to start over only from there, and never when they
    /// agree throughout; the hash is the new bytes'.
    @Test(arguments: [
        // The same bytes, and more: nothing a player read changes.
        ("segment bytes held, and the rest", 13, "segment bytes held, and the rest", nil as Int64?),
        // Another version from byte 8 on.
        ("segment bytes held, and the rest", 20, "segment BYTES held, and more", 8),
        // The same first bytes, but shorter than those held: cut at its end.
        ("segment bytes held, and the rest", 20, "segment by", 10),
    ])
    func aWholeAnswerAfterHeldBytesIsComparedWithThem(old: String, held: Int, new: String, cutAt: Int64?) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (old, new) = (Array(old.utf8), Array(new.utf8))
        let (path, file) = try existingFile(Array(old.prefix(held)), in: directory)
        let notes = Mutex<[TitleInProgress.ArrivalNote]>([])
        let result = try finish { loop, done in
            let sink = ResourceSink(continuing: file, held: Int64(held), blocks: WriteBlocks(), on: loop) { note in
                notes.withLock { $0.append(note) }
            }
            sink.restartComparing()
            // In two passes, the first inside the held bytes.
            new.prefix(5).withUnsafeBytes { sink.append($0) }
            _ = loop.after(0.01) {
                new.dropFirst(5).withUnsafeBytes { sink.append($0) }
                sink.finish { done($0) }
            }
        }
        #expect(try result.get() == Digest.sha256Hex(new))
        #expect(FileManager.default.contents(atPath: path) == Data(new))
        let told = notes.withLock { $0 }
        let startsOver = told.compactMap { note -> Int64? in if case .from(let bytes) = note { bytes } else { nil } }
        #expect(startsOver == (cutAt.map { [$0] } ?? []), "\(told)")
        let wrote = told.compactMap { note -> Int64? in if case .wrote(let bytes) = note { bytes } else { nil } }
        // Bytes that agree with those held are no news; new ones are told as they land.
        if cutAt == nil { #expect(wrote.allSatisfy { $0 > Int64(held) }, "\(told)") }
        let newBytesFrom = cutAt ?? Int64(held)
        #expect(wrote.last == (Int64(new.count) > newBytesFrom ? Int64(new.count) : nil), "\(told)")
    }

    @Test func aFailedWriteIsReportedAndStopsTheRest() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // Read-only: every write fails (EBADF), as a full or failing disk's would.
        let file = try existingFile([], in: directory, mode: .readOnly).file
        let failedBeforeFinish = Mutex(false)
        let result = try finish { loop, done in
            let sink = ResourceSink(continuing: file, held: 0, blocks: WriteBlocks(), on: loop, notes: nil)
            Array(repeating: UInt8(7), count: 1000).withUnsafeBytes { sink.append($0) }
            // Its block goes to the queue before the loop waits, and fails there.
            _ = loop.after(0.2) {
                failedBeforeFinish.withLock { $0 = sink.hasFailed }
                sink.finish { done($0) }
            }
        }
        guard case .failure(let error) = result else {
            Issue.record("a failed write finished as \(result)")
            return
        }
        #expect(error.code == EBADF)
        #expect(failedBeforeFinish.withLock { $0 }, "the fetch can see it and stop its transfer")
    }

    @Test func aFileThatCannotBeMadeFailsTheResource() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try finish { loop, done in
            let sink = ResourceSink(creating: directory.path + "/gone/segment.ts", blocks: WriteBlocks(), on: loop, notes: nil)
            Array(repeating: UInt8(7), count: 1000).withUnsafeBytes { sink.append($0) }
            sink.finish { done($0) }
        }
        guard case .failure(let error) = result else {
            Issue.record("a file in a missing folder finished as \(result)")
            return
        }
        #expect(error.code == ENOENT)
    }
}
