import Foundation
import Testing
@testable import MediaCacheKit

@Suite("ProgressJournal")
struct ProgressJournalTests {
    let directory: TemporaryDirectory
    var path: String { directory.path + "/journal" }

    init() throws { directory = try TemporaryDirectory() }

    @Test func recordsWhatWasWrittenSinceTheLastRewrite() throws {
        defer { directory.remove() }
        let journal = try #require(ProgressJournal(path: path, epoch: 7, holding: [ByteRange(0, 100)]))
        try journal.record(ByteRange(100, 150), epoch: 7)
        try journal.record(ByteRange(4096, 8192), epoch: 7)
        #expect(ProgressJournal.recorded(path: path, epoch: 7) == [ByteRange(0, 100), ByteRange(100, 150), ByteRange(4096, 8192)])
        try journal.rewrite(epoch: 7, holding: [ByteRange(0, 150)])
        #expect(ProgressJournal.recorded(path: path, epoch: 7) == [ByteRange(0, 150)])
    }

    @Test func anotherEpochIsNeverTrusted() throws {
        defer { directory.remove() }
        let journal = try #require(ProgressJournal(path: path, epoch: 1, holding: [ByteRange(0, 100)]))
        try journal.record(ByteRange(100, 200), epoch: 1)
        #expect(ProgressJournal.recorded(path: path, epoch: 2).isEmpty)
        // Recording for a new epoch starts the journal over: nothing of epoch 1 remains.
        try journal.record(ByteRange(0, 10), epoch: 2)
        #expect(ProgressJournal.recorded(path: path, epoch: 1).isEmpty)
        #expect(ProgressJournal.recorded(path: path, epoch: 2) == [ByteRange(0, 10)])
    }

    @Test func aTornLastRecordAndGarbageAreIgnored() throws {
        defer { directory.remove() }
        let journal = try #require(ProgressJournal(path: path, epoch: 3, holding: []))
        try journal.record(ByteRange(0, 64), epoch: 3)
        var bytes = try FileSystem.readAll(path)
        bytes += [1, 2, 3, 4, 5]  // half a record: a write cut short
        try DataFile(path: path, mode: .readWrite).write(bytes, at: 0)
        #expect(ProgressJournal.recorded(path: path, epoch: 3) == [ByteRange(0, 64)])

        try DataFile(path: path, mode: .readWrite).write(Array("not a journal at all, just text".utf8), at: 0)
        #expect(ProgressJournal.recorded(path: path, epoch: 3).isEmpty)
        #expect(ProgressJournal.recorded(path: directory.path + "/missing", epoch: 3).isEmpty)
    }
}
