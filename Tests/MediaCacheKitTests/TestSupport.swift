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

/// A transfer loop running on a thread of its own.
struct RunningLoop {
    let loop = TransferLoop(maxConnectionsPerHost: 1, maxConnections: 1)
    private let ended = DispatchSemaphore(value: 0)

    init() {
        let (loop, ended) = (loop, ended)
        Thread {
            loop.run()
            ended.signal()
        }.start()
    }

    /// Whether the loop stopped (its `stop()` was called) within 10 seconds.
    func stopped() -> Bool { ended.wait(timeout: .now() + 10) == .success }
}
