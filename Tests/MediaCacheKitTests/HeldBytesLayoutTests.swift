import Testing
@testable import MediaCacheKit

/// Whether a commit may store another layout than the one readers were given: a player
/// that read an MP4's moov where the origin put it seeks later without If-Range.
@Suite("Held bytes: the layout readers saw")
struct HeldBytesLayoutTests {
    private func published() throws -> (HeldBytes, TemporaryDirectory) {
        let directory = try TemporaryDirectory()
        let file = try DataFile(path: directory.path + "/data", mode: .readWrite)
        try file.write(Array(repeating: 7, count: 100), at: 0)
        var completed = RangeSet()
        completed.insert(ByteRange(0, 100))
        let held = HeldBytes()
        held.publish(
            file: file, completed: completed, about: DownloadData(length: 100, contentType: "video/mp4", originVersion: nil))
        return (held, directory)
    }

    @Test func aLayoutNoReaderReadIsSealedAndNewReadersWaitForTheEnd() async throws {
        let (held, directory) = try published()
        defer { directory.remove() }
        // Asking what the data is (a HEAD) reads no bytes of it.
        _ = try await held.available(from: -1, reading: nil)
        #expect(held.sealLayout())
        // A reader arriving now is not started on the origin's layout: it waits for the
        // download's end, and reads the stored object after it.
        let waiting = Task { try await held.available(from: 0, reading: nil) }
        try await Task.sleep(nanoseconds: 100_000_000)
        held.finish(.interrupted)
        await #expect(throws: ReaderError.self) { _ = try await waiting.value }
    }

    /// The origin's file changed mid-download: the version readers read is gone, and the
    /// new one, which no reader has read, may be relocated.
    @Test func aStartOverForgetsTheReadersOfTheVersionBefore() async throws {
        let (held, directory) = try published()
        defer { directory.remove() }
        _ = try await held.available(from: 0, reading: nil)
        held.startOver()
        let file = try DataFile(path: directory.path + "/data", mode: .readWrite)
        held.publish(file: file, completed: RangeSet(), about: DownloadData(length: 100, contentType: "video/mp4", originVersion: "b"))
        #expect(held.sealLayout())
    }

    @Test func aLayoutAReaderReadIsKept() async throws {
        let (held, directory) = try published()
        defer { directory.remove() }
        let read = try await held.available(from: 10, reading: nil)
        #expect(read.range == ByteRange(10, 100))
        #expect(!held.sealLayout())
        // The data file stays readable by new readers.
        #expect(try await held.available(from: 0, reading: nil).range == ByteRange(0, 100))
    }
}
