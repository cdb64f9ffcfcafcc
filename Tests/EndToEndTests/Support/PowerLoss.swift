import Foundation

/// Simulates what power loss may leave of a partial download: the bytes its durable
/// state lists are on disk, every other byte of the data file is garbage.
enum PowerLoss {
    struct State: Decodable {
        struct Ranges: Decodable { var ranges: [Range] }
        struct Range: Decodable { var start: Int; var end: Int }
        var completed: Ranges
    }

    static func garbleBytesNotInState(job: String) throws {
        let state = try JSONDecoder().decode(State.self, from: Data(contentsOf: URL(fileURLWithPath: job + "/state")))
        var data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: job + "/data")))
        var held = [Bool](repeating: false, count: data.count)
        for range in state.completed.ranges {
            for offset in range.start..<min(range.end, data.count) { held[offset] = true }
        }
        var garbage = TestBytes.make(data.count, seed: 0xDEAD)
        for offset in data.indices where !held[offset] {
            data[offset] = garbage[offset] ^ 0x5A
        }
        garbage = []
        try Data(data).write(to: URL(fileURLWithPath: job + "/data"))
    }
}
