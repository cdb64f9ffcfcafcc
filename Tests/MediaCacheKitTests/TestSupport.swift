import Foundation
@testable import MediaCacheKit

/// A small deterministic generator (SplitMix64) so randomized tests are reproducible.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A fresh directory under the system temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    let path: String

    init(_ label: String = "mediacache-unit") throws {
        path = FileManager.default.temporaryDirectory.path + "/\(label)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// A prepared cache directory in a fresh temporary folder, removed by `remove()`.
struct TemporaryCache {
    let temporary: TemporaryDirectory
    let directory: CacheDirectory

    init(_ label: String) throws {
        temporary = try TemporaryDirectory(label)
        directory = CacheDirectory(root: temporary.path + "/cache")
        try directory.prepare()
    }

    func remove() { temporary.remove() }
}

/// `ByteRange` shorthand for tables of expectations.
func r(_ start: Int64, _ end: Int64) -> ByteRange { ByteRange(start, end) }
