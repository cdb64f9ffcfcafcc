import Foundation
@testable import MediaCacheKit
import Testing
import TestOrigin

extension EndToEnd {
    /// The engine as a service, used in-process the way `serve` uses it: several clients
    /// of one download, readers that wait for bytes, shutdown in the middle.
    @Suite struct Service {
        let origin: TestOrigin
        let scratch = Scratch()

        init() throws { origin = try TestOrigin() }

        func makeService(jobs: Int = 4, connections: Int = 4, minFragment: Int64 = 1 << 20) throws -> DownloadService {
            var options = PrefetchOptions()
            options.jobs = jobs
            options.connectionsPerFile = connections
            options.minFragment = minFragment
            return try DownloadService(cache: CacheDirectory(root: scratch.cache), options: options, events: { _ in })
        }

        func request(_ url: String) -> JobRequest { JobRequest(entry: ListEntry(urls: [url])) }

        /// Reads `[offset, end)` through `reader`, waiting for bytes as they land.
        func read(_ reader: DownloadReader, from offset: Int64, to end: Int64) async throws -> [UInt8] {
            var bytes: [UInt8] = []
            var next = offset
            while next < end {
                let count = try await reader.available(from: next, upTo: end)
                guard count > 0 else { break }
                let chunk = try reader.read(at: next, count: Int(min(count, end - next)))
                bytes += chunk
                next += Int64(chunk.count)
            }
            return bytes
        }

        /// Interactive downloads start beyond `-j`, but a client that asks for many files
        /// at once gets `interactiveBeyondJobs` more, not one each: the rest wait their turn.
        @Test func interactiveDownloadsBeyondTheJobsAreBounded() async throws {
            let count = DownloadService.interactiveBeyondJobs + 3
            let files = (0..<count).map {
                origin.serveRandom("/seg\($0).ts", size: 192 << 10, seed: UInt64(720 + $0), bytesPerSecond: 256 << 10)
            }
            let service = try makeService(jobs: 1)
            defer { service.shutdown() }
            let handles = files.map { service.submit(request($0.url), priority: .interactive) }
            let limit = 1 + DownloadService.interactiveBeyondJobs
            var most = 0
            let deadline = Date().addingTimeInterval(30)
            while handles.contains(where: { $0.finished == nil }) && Date() < deadline {
                let running = files.indices.filter { index in
                    origin.requests(for: "/seg\(index).ts").contains { !$0.finished }
                }.count
                most = max(most, running)
                try await Task.sleep(nanoseconds: 20_000_000)
            }
            #expect(most == limit, "\(most) files were fetched at once")
            for (handle, file) in zip(handles, files) {
                guard case .committed(let object) = await handle.result() else {
                    Issue.record("\(file.url) did not commit: \(String(describing: handle.finished))")
                    continue
                }
                #expect(TestBytes.read(service.cache.absolute(object.path)) == file.bytes)
            }
        }

        @Test func twoSubmitsOfOneKeyShareOneDownload() async throws {
            let file = origin.serveRandom("/shared.bin", size: 6 << 20, seed: 700, bytesPerSecond: 4 << 20)
            let service = try makeService()
            defer { service.shutdown() }
            let first = service.submit(request(file.url))
            let second = service.submit(request(file.url), priority: .interactive)
            guard case .committed(let object) = await first.result() else {
                Issue.record("the first submit did not commit: \(String(describing: first.finished))")
                return
            }
            guard case .alreadyCached(let joined) = await second.result() else {
                Issue.record("the second submit did not join: \(String(describing: second.finished))")
                return
            }
            #expect(joined.path == object.path)
            #expect(TestBytes.read(service.cache.absolute(object.path)) == file.bytes)
            // One set of ranges: no byte asked for twice, one probe.
            let ranges = origin.requests(for: "/shared.bin").compactMap(\.range)
            #expect(Harness.bytesServed(origin, "/shared.bin") < file.bytes.count + file.bytes.count / 10, "\(ranges)")
            #expect(ranges.filter { $0.lowerBound == 0 }.count == 1, "\(ranges)")
        }

        /// One connection fills the file front to back at 1 MiB/s; a reader of the last
        /// megabyte gets it long before the middle has arrived.
        @Test func aReaderOfTheLastMegabyteIsServedBeforeTheMiddle() async throws {
            let size = 16 << 20
            let file = origin.serveRandom("/late.bin", size: size, seed: 701, bytesPerSecond: 1 << 20)
            let service = try makeService(connections: 1)
            defer { service.shutdown() }
            let handle = service.submit(request(file.url), priority: .interactive)
            let reader = handle.reader()
            let started = Date()
            let tail = try await read(reader, from: Int64(size - (1 << 20)), to: Int64(size))
            let seconds = Date().timeIntervalSince(started)
            #expect(tail == Array(file.bytes.suffix(1 << 20)))
            #expect(!handle.download.held.holds(Int64(size / 2)), "the middle arrived first")
            #expect(seconds < 6, "took \(seconds) s; the middle alone needs 8")
            #expect(try await reader.open().length == Int64(size))
        }

        @Test func aReadersWaitEndsWithTheDownloadsFailure() async throws {
            let service = try makeService()
            defer { service.shutdown() }
            let handle = service.submit(request(origin.url("/missing.bin")), priority: .interactive)
            let reader = handle.reader()
            do {
                _ = try await reader.available(from: 0, upTo: nil)
                Issue.record("the wait ended without the failure")
            } catch let failure as JobFailure {
                #expect(failure.code == .httpStatus)
                #expect(failure.message.contains("404"), "\(failure.message)")
            }
            guard case .failed = await handle.result() else {
                Issue.record("the handle did not see the failure: \(String(describing: handle.finished))")
                return
            }
        }

        /// Shutdown in the middle saves progress; a new service resumes where it stopped.
        @Test func shutdownDuringADownloadSavesProgress() async throws {
            let size = 8 << 20
            let file = origin.serveRandom("/stop.bin", size: size, seed: 702, bytesPerSecond: 1 << 20)
            let service = try makeService(connections: 2)
            let handle = service.submit(request(file.url))
            let reader = handle.reader()
            _ = try await read(reader, from: 0, to: 1 << 20)
            service.shutdown()
            guard case .interrupted = await handle.result() else {
                Issue.record("not interrupted: \(String(describing: handle.finished))")
                return
            }
            do {
                _ = try await reader.available(from: Int64(size - 1), upTo: nil)
                Issue.record("a reader's wait outlived the shutdown")
            } catch let error as ReaderError {
                #expect(error.description.contains("stopped"))
            }
            let told = LockedValue(false)
            let late = service.submit(request(file.url)) { result, _ in
                if case .interrupted = result { told.value = true }
            }
            #expect(told.value, "a refused submit never heard of its end")
            guard case .interrupted = await late.result() else {
                Issue.record("a submit after shutdown ran: \(String(describing: late.finished))")
                return
            }
            let saved = try JobStateCodec.decode(
                try FileSystem.readAll(service.cache.statePath(key: handle.key)), path: "state")
            #expect(saved.bytesDone >= 1 << 20)

            // The next service takes up what was saved.
            // Counted by request: the first service's responses may still be counting.
            let requestsBefore = origin.requests(for: "/stop.bin").count
            let again = try makeService(connections: 8)
            defer { again.shutdown() }
            guard case .committed(let object) = await again.submit(request(file.url)).result() else {
                Issue.record("the resumed download did not commit")
                return
            }
            #expect(TestBytes.read(again.cache.absolute(object.path)) == file.bytes)
            let resumed = origin.requests(for: "/stop.bin").dropFirst(requestsBefore)
            let servedAfter = resumed.reduce(0) { $0 + $1.bodyBytesSent }
            // Not from the start: what was saved is not fetched again (cut ranges cost a little).
            #expect(!resumed.contains { $0.range?.lowerBound == 0 }, "\(resumed.map(\.range))")
            #expect(servedAfter < size - Int(saved.bytesDone) + (256 << 10), "fetched \(servedAfter) bytes again")
        }
    }
}
