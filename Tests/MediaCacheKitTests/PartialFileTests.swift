import Foundation
import Synchronization
import Testing
@testable import MediaCacheKit

@Suite("PartialFile")
struct PartialFileTests {
    let temporary: TemporaryCache
    let key = CacheKey(identity: "https://o.example/a.mp4")
    var cache: CacheDirectory { temporary.directory }

    init() throws {
        temporary = try TemporaryCache("mediacache-partial")
    }

    /// A state for 4 KiB of which `held` is on disk.
    private func state(holding held: [ByteRange]) -> JobState {
        var state = JobState(entry: ListEntry(urls: ["https://o.example/a.mp4"]), commandHeaders: [])
        state.validators = Validators(etag: "\"v1\"", length: 4096)
        for range in held { state.completed.insert(range) }
        return state
    }

    /// Writes `count` bytes at `offset` as a response body would arrive.
    private func write(_ partial: PartialFile, _ count: Int, at offset: Int64, epoch: UInt64?) throws {
        try Array(repeating: UInt8(0x41), count: count).withUnsafeBytes {
            try partial.write(BodyChunk(bytes: $0), at: offset, epoch: epoch)
        }
    }

    /// Starts `partial` over as a job does: on its disk queue, waiting for the answer,
    /// unless `needsDisk` is false (a new small file), when none may come.
    private func startOver(_ partial: PartialFile, length: Int64?, needsDisk: Bool = true) throws {
        let answer = Mutex<Result<Void, DataFileRefusal>?>(nil)
        let answered = DispatchSemaphore(value: 0)
        let posted = partial.startOver(length: length) { result in
            answer.withLock { $0 = result }
            answered.signal()
        }
        #expect(posted == needsDisk)
        guard posted else { return }
        #expect(answered.wait(timeout: .now() + 10) == .success)
        try answer.withLock { $0 }?.mapError(\.error).get()
    }

    /// A kill after a checkpoint loses nothing the journal recorded since, in this boot.
    @Test func aResumeFindsTheCheckpointAndWhatTheJournalAddedSince() throws {
        defer { temporary.remove() }
        let partial = PartialFile(cache: cache, key: key)
        #expect(try partial.savedState() == nil)
        #expect(partial.openUnnamed(spares: nil))
        let state = state(holding: [r(0, 1024)])
        try startOver(partial, length: 4096, needsDisk: false)
        try write(partial, 1024, at: 0, epoch: state.epoch)
        partial.checkpoint(state) { Issue.record("checkpoint failed: \($0)") }
        partial.diskQueue.sync {}
        try write(partial, 1024, at: 1024, epoch: state.epoch)

        let resumed = PartialFile(cache: cache, key: key)
        let saved = try #require(try resumed.savedState())
        #expect(saved.validators == state.validators)
        #expect(saved.completed.ranges == [r(0, 2048)])
        #expect(try resumed.openNamed() == 4096)
    }

    /// New contents never pair with an old state's claims, even after a crash.
    @Test func startingOverRemovesTheSavedStateFirst() throws {
        defer { temporary.remove() }
        let partial = PartialFile(cache: cache, key: key)
        #expect(partial.openUnnamed(spares: nil))
        try startOver(partial, length: 4096)
        try write(partial, 1024, at: 0, epoch: 1)
        partial.checkpoint(state(holding: [r(0, 1024)])) { Issue.record("checkpoint failed: \($0)") }
        partial.diskQueue.sync {}
        #expect(FileSystem.exists(partial.statePath))

        try startOver(partial, length: 2048)
        #expect(!FileSystem.exists(partial.statePath))
        #expect(try PartialFile(cache: cache, key: key).savedState() == nil)
        #expect(try partial.dataFile?.size() == 2048)
    }

    /// Starting over is posted, not waited for: a checkpoint queued after it (with the
    /// new contents' claims) is written after the old state is gone, and stays.
    @Test func aCheckpointAfterStartingOverIsKept() throws {
        defer { temporary.remove() }
        let partial = PartialFile(cache: cache, key: key)
        #expect(partial.openUnnamed(spares: nil))
        try startOver(partial, length: 4096)
        try write(partial, 1024, at: 0, epoch: 1)
        partial.checkpoint(state(holding: [r(0, 1024)])) { Issue.record("checkpoint failed: \($0)") }
        #expect(partial.startOver(length: 4096) { _ in })
        partial.checkpoint(state(holding: [])) { Issue.record("checkpoint failed: \($0)") }
        partial.diskQueue.sync {}
        let saved = try #require(try PartialFile(cache: cache, key: key).savedState())
        #expect(saved.completed.isEmpty)
    }

    /// A new data file for a small file needs no disk work to start; if it is still
    /// running at its first checkpoint, it gets its full length then (a resume trusts
    /// only a data file of the file's length), and starting over later is disk work.
    @Test func aNewSmallFileStartsWithoutTheDiskAndGetsItsLengthAtTheFirstCheckpoint() throws {
        defer { temporary.remove() }
        let partial = PartialFile(cache: cache, key: key)
        #expect(try partial.savedState() == nil)
        #expect(partial.openUnnamed(spares: nil))
        #expect(!partial.startOver(length: 4096) { _ in Issue.record("answered") })
        try write(partial, 1024, at: 0, epoch: 1)
        #expect(try partial.dataFile?.size() == 1024)
        partial.checkpoint(state(holding: [r(0, 1024)])) { Issue.record("checkpoint failed: \($0)") }
        partial.diskQueue.sync {}
        let resumed = PartialFile(cache: cache, key: key)
        #expect(try resumed.savedState()?.completed.ranges == [r(0, 1024)])
        #expect(try resumed.openNamed() == 4096)
        #expect(try resumed.dataFile?.read(count: 1024, at: 0) == Array(repeating: 0x41, count: 1024))
        try startOver(partial, length: 2048)
        #expect(try partial.dataFile?.size() == 2048)
    }

    /// A new file of 1 MiB or more is reserved on the disk queue before a byte is written.
    @Test func aNewLargeFileIsReservedOnTheDiskQueue() throws {
        defer { temporary.remove() }
        let partial = PartialFile(cache: cache, key: key)
        #expect(try partial.savedState() == nil)
        #expect(partial.openUnnamed(spares: nil))
        let length = PartialFile.smallFileBytes
        let answered = DispatchSemaphore(value: 0)
        #expect(partial.startOver(length: length) { _ in answered.signal() })
        #expect(answered.wait(timeout: .now() + 10) == .success)
        #expect(try partial.dataFile?.size() == length)
    }

    /// Without a data file there is nothing to start over.
    @Test func startingOverWithoutADataFileIsNotPosted() {
        defer { temporary.remove() }
        #expect(!PartialFile(cache: cache, key: key).startOver(length: 10) { _ in Issue.record("answered") })
    }

    @Test func checkpointsComeByTimeOrByBytes() throws {
        defer { temporary.remove() }
        var options = PrefetchOptions()
        options.firstCheckpointInterval = 10
        options.checkpointInterval = 20
        options.checkpointBytes = 4096
        options.minCheckpointInterval = 1
        let partial = PartialFile(cache: cache, key: key)
        #expect(partial.openUnnamed(spares: nil))
        partial.restartCheckpointClock(at: 100)
        #expect(!partial.checkpointIsDue(now: 105, options: options, length: nil))
        #expect(partial.checkpointIsDue(now: 110, options: options, length: nil))
        try write(partial, 4096, at: 0, epoch: nil)
        #expect(!partial.checkpointIsDue(now: 100.5, options: options, length: nil))
        #expect(partial.checkpointIsDue(now: 101, options: options, length: nil))
        // A large file checkpoints every hundredth of it, not every `checkpointBytes`.
        #expect(!partial.checkpointIsDue(now: 101, options: options, length: 100 << 20))
    }
}
