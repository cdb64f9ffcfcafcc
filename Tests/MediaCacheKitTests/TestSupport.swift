import Foundation
@testable import MediaCacheKit

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
