import Foundation
@testable import MediaCacheKit

/// Simulates what power loss may leave of a partial download: the bytes its durable
/// state lists are on disk, every other byte of the data file is garbage.
enum PowerLoss {
    static func garbleBytesNotInState(job: String) throws {
        let state = try durableState(job: job)
        var data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: job + "/data")))
        let garbage = TestBytes.make(data.count, seed: 0xDEAD)
        for gap in state.completed.gaps(within: ByteRange(0, Int64(data.count))) {
            for offset in Int(gap.start)..<Int(gap.end) { data[offset] = garbage[offset] ^ 0x5A }
        }
        try Data(data).write(to: URL(fileURLWithPath: job + "/data"))
    }

    /// Bytes the job's journal vouches for (in this boot) beyond what its durable state
    /// lists: what a resume after `kill -9` keeps and one after power loss must not.
    static func journalBeyondState(job: String) throws -> Int64 {
        let state = try durableState(job: job)
        guard let epoch = state.epoch else { return 0 }
        var held = state.completed
        for range in ProgressJournal.recorded(path: job + "/journal", epoch: epoch) { held.insert(range) }
        return held.byteCount - state.completed.byteCount
    }

    private static func durableState(job: String) throws -> JobState {
        try JobStateCodec.decode(try FileSystem.readAll(job + "/state"), path: job + "/state")
    }
}
