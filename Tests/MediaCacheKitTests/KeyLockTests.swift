import Foundation
import Testing
@testable import MediaCacheKit

@Suite("KeyLock and spare data files")
struct KeyLockTests {
    @Test func oneHolderPerKeyUntilDroppedAndTheHolderIsNamed() throws {
        let temporary = try TemporaryCache("mediacache-keylock")
        defer { temporary.remove() }
        let cache = temporary.directory
        let a = CacheKey(identity: "https://a.example/a.mp4")
        let b = CacheKey(identity: "https://a.example/b.mp4")
        #expect(KeyLock.offset(of: a) != KeyLock.offset(of: b))

        var first = try KeyLock.tryAcquire(key: a, in: cache)
        #expect(first != nil)
        // A second job of this process is kept out, like another process would be.
        #expect(try KeyLock.tryAcquire(key: a, in: cache) == nil)
        // The same cache spelt another way shares the lock table.
        let respelt = CacheDirectory(root: temporary.temporary.path + "/./cache")
        #expect(try KeyLock.tryAcquire(key: a, in: respelt) == nil)
        #expect(KeyLock.holder(of: a, in: cache) == getpid())
        // Other keys are free.
        #expect(try KeyLock.tryAcquire(key: b, in: cache) != nil)
        #expect(KeyLock.holder(of: b, in: cache) == nil)

        withExtendedLifetime(first) {}
        first = nil
        #expect(KeyLock.holder(of: a, in: cache) == nil)
        #expect(try KeyLock.tryAcquire(key: a, in: cache) != nil)
        // One lock file for every key, not one per key.
        #expect(FileSystem.contentsOfDirectory(cache.locksDirectory) == ["keys"])
    }

    @Test func spareFilesAreUnnamedUntilLinkedAndCarryTheirFutureName() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let spares = SpareDataFiles(directory: temporary.path, target: 2)
        var file: DataFile?
        for _ in 0..<200 where file == nil {
            file = spares.take(path: temporary.path + "/data")
            if file == nil { Thread.sleep(forTimeInterval: 0.01) }
        }
        let taken = try #require(file)
        #expect(taken.path == temporary.path + "/data")
        #expect(!taken.isNamed)
        #expect(FileSystem.contentsOfDirectory(temporary.path).isEmpty)
        try taken.write(Array("media".utf8), at: 0)
        try taken.link(as: temporary.path + "/data")
        #expect(try FileSystem.readAll(temporary.path + "/data") == Array("media".utf8))

        // Where unnamed files cannot be made, there is simply none to take.
        let nowhere = SpareDataFiles(directory: temporary.path + "/missing", target: 2)
        Thread.sleep(forTimeInterval: 0.05)
        #expect(nowhere.take(path: temporary.path + "/x") == nil)
    }
}
