import Foundation
import Testing
@testable import MediaCacheKit

/// The loop knows its thread, so the checks of confinement (`preconditionOnLoop`) can
/// tell loop-owned state touched from elsewhere.
@Suite("TransferLoop")
struct TransferLoopTests {
    @Test func theLoopThreadIsKnownOnceItRuns() {
        let loop = TransferLoop(maxConnectionsPerHost: 1, maxConnections: 1)
        #expect(!loop.isLoopThread, "no thread runs the loop yet")
        let seen = Observed()
        let ended = DispatchSemaphore(value: 0)
        let thread = Thread {
            loop.run()
            ended.signal()
        }
        thread.start()
        loop.post {
            seen.set(loop.isLoopThread)
            loop.stop()
        }
        #expect(ended.wait(timeout: .now() + 10) == .success)
        #expect(seen.value == true, "posted work runs on the loop thread")
        #expect(!loop.isLoopThread, "the test's thread is not the loop's")
    }
}

/// Confinement is checked in release builds too: touching loop-owned state from another
/// thread stops the process instead of racing.
@Suite("Loop confinement")
struct LoopConfinementTests {
    @Test func loopBoundStateTrapsOffTheLoop() async {
        await #expect(processExitsWith: .failure) {
            let loop = TransferLoop(maxConnectionsPerHost: 1, maxConnections: 1)
            let bound = LoopBound(0, loop: loop)
            bound.value += 1
        }
    }

    @Test func aReadersWantsAreTheLoopsOnly() async {
        await #expect(processExitsWith: .failure) {
            let loop = TransferLoop(maxConnectionsPerHost: 1, maxConnections: 1)
            let download = Download(
                key: CacheKey(identity: "http://127.0.0.1/a"),
                request: JobRequest(entry: ListEntry(urls: ["http://127.0.0.1/a"])), priority: .normal, loop: loop)
            download.demands[1] = ByteRange(0, 1)
        }
    }

    @Test func blockingWorkTrapsOnTheLoop() async {
        await #expect(processExitsWith: .failure) {
            let loop = TransferLoop(maxConnectionsPerHost: 1, maxConnections: 1)
            loop.post {
                LoopThreads.preconditionOff("a test's blocking work")
                loop.stop()
            }
            loop.run()
        }
    }

    // What may wait for the disk traps on the loop: each call below would stall every
    // transfer for as long as the disk takes. (The set-up is checked to work off the
    // loop by `offTheLoopTheDiskWorkRuns`, so only the check can end these processes.)

    @Test func syncingDataTrapsOnTheLoop() async {
        await #expect(processExitsWith: .failure) {
            let file = DataFile.unnamed(in: NSTemporaryDirectory(), path: "data")!
            LoopConfinementTests.onALoop { try? file.syncData() }
        }
    }

    @Test func reservingSpaceTrapsOnTheLoop() async {
        await #expect(processExitsWith: .failure) {
            let file = DataFile.unnamed(in: NSTemporaryDirectory(), path: "data")!
            LoopConfinementTests.onALoop { try? file.preallocate(length: 4096) }
        }
    }

    @Test func readingARangeInBlocksTrapsOnTheLoop() async {
        await #expect(processExitsWith: .failure) {
            let file = DataFile.unnamed(in: NSTemporaryDirectory(), path: "data")!
            try! file.write([1, 2, 3], at: 0)
            LoopConfinementTests.onALoop { try? file.forEachBlock(length: 3) { _ in } }
        }
    }

    @Test func syncingADirectoryTrapsOnTheLoop() async {
        await #expect(processExitsWith: .failure) {
            LoopConfinementTests.onALoop { try? FileSystem.syncDirectory(NSTemporaryDirectory()) }
        }
    }

    @Test func removingATreeTrapsOnTheLoop() async {
        await #expect(processExitsWith: .failure) {
            LoopConfinementTests.onALoop { FileSystem.removeTree(NSTemporaryDirectory() + "/mediacache-no-such-tree") }
        }
    }

    @Test func anIndexQueryTrapsOnTheLoop() async {
        await #expect(processExitsWith: .failure) {
            let cache = CacheDirectory(root: NSTemporaryDirectory() + "/mediacache-loop-\(getpid())")
            try! cache.prepare()
            let index = try! CacheIndex(directory: cache)
            LoopConfinementTests.onALoop { _ = try? index.object(key: CacheKey(identity: "http://127.0.0.1/a")) }
        }
    }

    /// Off the loop the same calls pass: the checks name the thread, not the call.
    @Test func offTheLoopTheDiskWorkRuns() throws {
        let file = try #require(DataFile.unnamed(in: NSTemporaryDirectory(), path: "data"))
        try file.preallocate(length: 4096)
        try file.syncData()
        try FileSystem.syncDirectory(NSTemporaryDirectory())
        var blocks = 0
        try file.forEachBlock(length: 4096) { _ in blocks += 1 }
        #expect(blocks == 1)
        let cache = CacheDirectory(root: NSTemporaryDirectory() + "/mediacache-loop-\(getpid())")
        try cache.prepare()
        #expect(try CacheIndex(directory: cache).object(key: CacheKey(identity: "http://127.0.0.1/a")) == nil)
        FileSystem.removeTree(cache.root)
        #expect(!FileSystem.exists(cache.root))
    }

    /// Runs `work` on a transfer loop's thread, then stops that loop.
    static func onALoop(_ work: @escaping @Sendable () -> Void) {
        let loop = TransferLoop(maxConnectionsPerHost: 1, maxConnections: 1)
        loop.post {
            work()
            loop.stop()
        }
        loop.run()
    }

    @Test func onTheLoopEveryCheckPasses() {
        let running = RunningLoop()
        let loop = running.loop
        let bound = LoopBound(0, loop: loop)
        let seen = Observed()
        loop.post {
            bound.value += 41
            bound.value += 1
            seen.set(bound.value == 42)
            loop.stop()
        }
        #expect(running.stopped())
        #expect(seen.value == true)
    }
}

private final class Observed: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Bool?
    var value: Bool? { lock.withLock { stored } }
    func set(_ value: Bool) { lock.withLock { stored = value } }
}
