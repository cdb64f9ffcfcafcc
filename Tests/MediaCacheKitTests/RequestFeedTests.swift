import Foundation
import Synchronization
import Testing
@testable import MediaCacheKit

/// A run's list is read a little ahead on a queue of its own: every request comes, in
/// order; none is read on the transfer thread or two at once; a stop hands over the
/// rest in order.
@Suite struct RequestFeedTests {
    /// A list of `count` URLs read by `produce`, which notes where and how it ran.
    final class List: Sendable {
        struct Seen {
            var next = 0
            var onLoop = 0
            var running = 0
            var mostAtOnce = 0
        }

        let count: Int
        let delay: Double
        let seen = Mutex(Seen())
        let loop: TransferLoop

        init(count: Int, delay: Double = 0, loop: TransferLoop) {
            self.count = count
            self.delay = delay
            self.loop = loop
        }

        func produce() -> JobRequest? {
            let index = seen.withLock { seen in
                seen.running += 1
                seen.mostAtOnce = max(seen.mostAtOnce, seen.running)
                if loop.isLoopThread { seen.onLoop += 1 }
                defer { seen.next += 1 }
                return seen.next
            }
            if delay > 0 { Thread.sleep(forTimeInterval: delay) }
            seen.withLock { $0.running -= 1 }
            guard index < count else { return nil }
            return JobRequest(entry: ListEntry(urls: ["http://127.0.0.1/\(index)"]))
        }
    }

    /// A loop running on a thread of its own until `stop`.
    static func runningLoop() -> TransferLoop {
        let loop = TransferLoop(maxConnectionsPerHost: 1, maxConnections: 1)
        Thread { loop.run() }.start()
        return loop
    }

    /// Takes every request on the loop, as `PrefetchBatch` does: on `.wait`, again once
    /// the feed says one is there. The URLs in the order taken.
    static func takeAll(from list: List, ahead: Int) -> [String] {
        let taken = Mutex<[String]>([])
        let finished = DispatchSemaphore(value: 0)
        let feedBox = Mutex<RequestFeed?>(nil)
        @Sendable func drainReady() {
            guard let feed = feedBox.withLock({ $0 }) else { return }
            while true {
                switch feed.take() {
                case .request(let request): taken.withLock { $0.append(request.entry.url) }
                case .wait: return
                case .exhausted:
                    finished.signal()
                    return
                }
            }
        }
        list.loop.post {
            feedBox.withLock {
                $0 = RequestFeed(ahead: ahead, loop: list.loop, produce: { list.produce() }, available: { drainReady() })
            }
            drainReady()
        }
        #expect(finished.wait(timeout: .now() + 20) == .success, "the feed never said it was exhausted")
        return taken.withLock { $0 }
    }

    @Test func everyRequestComesInOrderReadOffTheLoopOneAtATime() {
        let loop = Self.runningLoop()
        defer { loop.post { loop.stop() } }
        let list = List(count: 500, loop: loop)
        let taken = Self.takeAll(from: list, ahead: 8)
        #expect(taken == (0..<500).map { "http://127.0.0.1/\($0)" })
        let seen = list.seen.withLock { $0 }
        #expect(seen.onLoop == 0 && seen.mostAtOnce == 1, "\(seen)")
        // Nothing is read once the list has said it ends.
        #expect(seen.next == 501)
    }

    @Test func aSlowListMakesTheLoopWaitAndWakesIt() {
        let loop = Self.runningLoop()
        defer { loop.post { loop.stop() } }
        let list = List(count: 20, delay: 0.01, loop: loop)
        #expect(Self.takeAll(from: list, ahead: 4).count == 20)
    }

    @Test func aStopHandsOverWhatWasNotTakenInOrder() {
        let loop = Self.runningLoop()
        defer { loop.post { loop.stop() } }
        let list = List(count: 2_500, loop: loop)
        let handed = Mutex<[String]>([])
        let drainedCount = Mutex(0)
        let done = DispatchSemaphore(value: 0)
        let firstTaken = Mutex<[String]>([])
        loop.post {
            let feed = RequestFeed(ahead: 8, loop: loop, produce: { list.produce() }, available: {})
            // Whatever is ready of the first ten.
            for _ in 0..<10 {
                if case .request(let request) = feed.take() { firstTaken.withLock { $0.append(request.entry.url) } }
            }
            feed.drain(
                each: { request in
                    #expect(!loop.isLoopThread)
                    handed.withLock { $0.append(request.entry.url) }
                },
                done: { count in
                    drainedCount.withLock { $0 = count }
                    done.signal()
                })
        }
        #expect(done.wait(timeout: .now() + 20) == .success)
        let first = firstTaken.withLock { $0 }
        let rest = handed.withLock { $0 }
        #expect(first + rest == (0..<2_500).map { "http://127.0.0.1/\($0)" })
        #expect(drainedCount.withLock { $0 } == rest.count)
    }
}
