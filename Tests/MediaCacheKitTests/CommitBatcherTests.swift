import Foundation
import Testing
@testable import MediaCacheKit

@Suite("CommitBatcher")
struct CommitBatcherTests {
    let temporary: TemporaryCache
    let index: CacheIndex
    var cache: CacheDirectory { temporary.directory }

    init() throws {
        temporary = try TemporaryCache("mediacache-commits")
        index = try CacheIndex(directory: temporary.directory)
    }

    /// A finished download of `bytes` under `partial/<key>/data`, ready to publish.
    func publication(_ name: String, _ bytes: [UInt8], unnamed: Bool = false) throws -> CommitBatcher.Publication {
        let key = CacheKey(identity: "https://o.example/\(name)")
        let relative = cache.relativeObjectPath(key: key, extension: "bin")
        var file: DataFile?
        if unnamed {
            file = try #require(DataFile.unnamed(in: cache.partialDirectory, path: cache.dataPath(key: key)))
            try file!.write(bytes, at: 0)
        } else {
            try FileSystem.makeDirectory(cache.jobDirectory(key: key))
            try DataFile(path: cache.dataPath(key: key), mode: .readWrite).write(bytes, at: 0)
        }
        let object = CachedObject(
            key: key, cacheKey: "https://o.example/\(name)", path: relative, size: Int64(bytes.count),
            sha256: String(repeating: "0", count: 64), faststart: .notMP4, url: "https://o.example/\(name)",
            addedAt: Date(), lastUsedAt: Date())
        return CommitBatcher.Publication(
            source: cache.dataPath(key: key), unnamed: file, durable: false, destination: cache.absolute(relative),
            object: object, aliases: [object.url], jobDirectory: cache.jobDirectory(key: key))
    }

    /// Publishes everything at once from many threads; returns each result by name.
    func publishAll(_ items: [(String, CommitBatcher.Publication)]) -> [String: Result<Void, CacheError>] {
        let batcher = CommitBatcher(index: index)
        let results = Results()
        let group = DispatchGroup()
        DispatchQueue.concurrentPerform(iterations: items.count) { i in
            group.enter()
            batcher.publish(items[i].1) { result in
                results.set(items[i].0, result)
                group.leave()
            }
        }
        #expect(group.wait(timeout: .now() + 30) == .success)
        return results.all
    }

    final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [String: Result<Void, CacheError>] = [:]
        func set(_ name: String, _ result: Result<Void, CacheError>) { lock.withLock { values[name] = result } }
        var all: [String: Result<Void, CacheError>] { lock.withLock { values } }
    }

    @Test func manyObjectsAtOnceAreAllPublishedWithTheirRows() throws {
        defer { temporary.remove() }
        var items: [(String, CommitBatcher.Publication)] = []
        for i in 0..<40 {
            items.append(("f\(i)", try publication("f\(i)", Array(repeating: UInt8(i), count: 1000 + i), unnamed: i % 2 == 0)))
        }
        let results = publishAll(items)
        #expect(results.count == 40)
        for (name, item) in items {
            #expect((try? results[name]?.get()) != nil, "\(name): \(String(describing: results[name]))")
            let i = Int(name.dropFirst())!
            #expect(TestFiles.read(item.destination) == Array(repeating: UInt8(i), count: 1000 + i))
            #expect(try index.lookup(item.object.url)?.path == item.object.path)
        }
        #expect(FileSystem.contentsOfDirectory(cache.partialDirectory).isEmpty, "every download is cleaned up")
    }

    @Test func oneMissingSourceFailsAloneAndNamesItsPath() throws {
        defer { temporary.remove() }
        var broken = try publication("broken", [1, 2, 3])
        broken.source += ".gone"
        let items = [("good", try publication("good", [4, 5, 6])), ("broken", broken)]
        let results = publishAll(items)
        #expect((try? results["good"]?.get()) != nil)
        guard case .failure(let failure)? = results["broken"] else {
            Issue.record("the missing source was published")
            return
        }
        // The system error is kept whole: what failed, on which path, and errno.
        guard case .io(let system) = failure else {
            Issue.record("not an I/O failure: \(failure)")
            return
        }
        #expect(system.operation == "rename")
        #expect(system.code == ENOENT)
        #expect(system.path?.contains(broken.source) == true, "\(failure)")
        #expect(try index.lookup("https://o.example/broken") == nil)
        #expect(try index.lookup("https://o.example/good") != nil)
    }
}

enum TestFiles {
    static func read(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }
}
