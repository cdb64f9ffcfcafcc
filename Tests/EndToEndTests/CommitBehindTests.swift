import Foundation
@testable import MediaCacheKit
import Testing
import TestOrigin

extension EndToEnd {
    /// A download slot frees once a file's bytes are written: its commit runs behind the
    /// next downloads, within a bound on bytes not committed yet. A slow disk is played by
    /// a delay before every commit.
    @Suite struct CommitBehind {
        let origin: TestOrigin
        let scratch = Scratch()

        init() throws { origin = try TestOrigin() }

        func makeService(jobs: Int, commitDelay: Double, bound: Int64? = nil, events: @escaping @Sendable (PrefetchEvent) -> Void)
            throws -> DownloadService
        {
            var options = PrefetchOptions()
            options.jobs = jobs
            options.connectionsPerFile = 2
            options.minFragment = 1 << 20
            options.commitDelayForTesting = commitDelay
            if let bound { options.uncommittedBytesLimit = bound }
            return try DownloadService(cache: CacheDirectory(root: scratch.cache), options: options, events: events)
        }

        func request(_ url: String) -> JobRequest { JobRequest(entry: ListEntry(urls: [url])) }

        /// With `-j 1` and a commit that takes a second, the second file is asked of the
        /// origin before the first is reported committed, and still every file is reported
        /// done only once it is committed.
        @Test func theNextFileStartsBeforeTheFirstIsCommitted() throws {
            let first = origin.serveRandom("/first.bin", size: 512 << 10, seed: 800)
            let second = origin.serveRandom("/second.bin", size: 512 << 10, seed: 801)
            let origin = origin
            // What the origin had seen of the second file when the first was reported done.
            let seenAtFirstCommit = Locked<Int?>(nil)
            let committed = Locked<[String]>([])
            let reportedEarly = Locked<[String]>([])
            let service = try makeService(jobs: 1, commitDelay: 1.0) { event in
                guard case .committed(let url, _, let path, _, _) = event else { return }
                if !FileManager.default.fileExists(atPath: path) { reportedEarly.withLock { $0.append(url) } }
                committed.withLock { $0.append(url) }
                if url == first.url { seenAtFirstCommit.withLock { $0 = origin.requests(for: "/second.bin").count } }
            }
            let summary = PrefetchBatch(service: service).run([request(first.url), request(second.url)])
            service.shutdown()
            #expect(summary.committed == 2 && summary.failed.isEmpty && !summary.interrupted)
            // Commits run side by side, so either may be reported first.
            #expect(committed.withLock { $0 }.sorted() == [first.url, second.url].sorted())
            #expect(reportedEarly.withLock { $0 }.isEmpty, "reported done before the object was in place")
            let seen = try #require(seenAtFirstCommit.withLock { $0 })
            #expect(seen > 0, "the second file waited for the first one's commit")
            for file in [first, second] {
                let object = try #require(try service.index.object(key: request(file.url).key))
                #expect(TestBytes.read(service.cache.absolute(object.path)) == file.bytes)
            }
        }

        /// Commits behind never hold more bytes than the bound; a file bigger than the
        /// bound keeps its slot until committed, as before, and everything is cached.
        @Test func bytesCommittingBehindStayWithinTheBound() throws {
            var files = (0..<10).map { origin.serveRandom("/small\($0).bin", size: 1 << 20, seed: 810 + UInt64($0)) }
            files.insert(origin.serveRandom("/large.bin", size: 4 << 20, seed: 830), at: 3)
            let bound: Int64 = 3 << 20
            let service = try makeService(jobs: 4, commitDelay: 0.3, bound: bound) { _ in }
            let summary = PrefetchBatch(service: service).run(files.map { request($0.url) })
            service.shutdown()
            #expect(summary.committed == files.count && summary.failed.isEmpty)
            #expect(service.peakBytesBehind > 0, "no commit ran behind")
            #expect(service.peakBytesBehind <= bound, "\(service.peakBytesBehind) bytes behind, bound \(bound)")
            for file in files {
                let object = try #require(try service.index.object(key: request(file.url).key))
                #expect(TestBytes.read(service.cache.absolute(object.path)) == file.bytes)
            }
        }

        /// Shutdown while a commit runs behind waits for it and reports it committed.
        @Test func shutdownDuringACommitBehindFinishesIt() async throws {
            let file = origin.serveRandom("/behind.bin", size: 256 << 10, seed: 840)
            let service = try makeService(jobs: 1, commitDelay: 0.5) { _ in }
            let freed = DispatchSemaphore(value: 0)
            let handle = service.submit(request(file.url), onSlotFreed: { freed.signal() })
            #expect(freed.wait(timeout: .now() + 10) == .success)
            #expect(handle.finished == nil, "the slot freed only when the commit was done")
            service.shutdown()
            guard case .committed(let object) = await handle.result() else {
                Issue.record("the commit behind did not finish: \(String(describing: handle.finished))")
                return
            }
            #expect(TestBytes.read(service.cache.absolute(object.path)) == file.bytes)
        }
    }
}

/// A value shared with the transfer thread's callbacks.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.withLock { body(&value) }
    }
}
