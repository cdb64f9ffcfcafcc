import Foundation
import TestSupport

/// A temporary directory for one test: a cache, lists, expected files. Removed on deinit.
final class Scratch {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "mediacache-e2e-" + UUID().uuidString.prefix(8)
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    var cache: String { path + "/cache" }

    /// Writes `text` to a file in the scratch directory and returns its path.
    @discardableResult
    func write(_ name: String, _ text: String) -> String {
        let file = path + "/" + name
        FileManager.default.createFile(atPath: file, contents: Data(text.utf8))
        return file
    }

    func writeBytes(_ name: String, _ bytes: [UInt8]) -> String {
        let file = path + "/" + name
        FileManager.default.createFile(atPath: file, contents: Data(bytes))
        return file
    }

    /// Every regular file under the cache's `objects/`.
    var objectFiles: [String] {
        let root = cache + "/objects"
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        return walker.compactMap { $0 as? String }.filter {
            var isDirectory: ObjCBool = false
            FileManager.default.fileExists(atPath: root + "/" + $0, isDirectory: &isDirectory)
            return !isDirectory.boolValue
        }
    }
}

/// Reproducible pseudo-random bytes (the tests' one seeded generator), so failures can
/// be replayed.
enum TestBytes {
    static func make(_ count: Int, seed: UInt64) -> [UInt8] {
        var generator = SeededGenerator(seed: seed)
        var bytes = [UInt8](repeating: 0, count: count)
        var index = 0
        while index < count {
            var word = generator.next()
            for _ in 0..<8 where index < count {
                bytes[index] = UInt8(truncatingIfNeeded: word)
                word >>= 8
                index += 1
            }
        }
        return bytes
    }

    static func read(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { Array($0) }
    }
}
