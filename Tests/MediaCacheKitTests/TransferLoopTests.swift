import Foundation
import Testing
@testable import MediaCacheKit

/// The loop knows its thread, so the debug checks of confinement (`assertOnLoop`) can
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

private final class Observed: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Bool?
    var value: Bool? { lock.withLock { stored } }
    func set(_ value: Bool) { lock.withLock { stored = value } }
}
