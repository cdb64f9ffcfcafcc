import CCurl
import Foundation
import Synchronization
import Testing
import TestSupport
@testable import MediaCacheKit

/// A streaming title's whole life (playlist, segments, retries, checkpoints, resume,
/// commit) driven by scripted transfers: the real service, title download, writers and
/// cache, no socket and no process.
@Suite("TitleDownload, scripted")
struct TitleDownloadTests {
    static let url = "http://origin.test/t/index.m3u8"

    /// A VOD media playlist over `segments`, served as `origin.test/t/seg<i>.ts`.
    struct ScriptedTitle: Sendable {
        let segments: [[UInt8]]

        init(sizes: [Int], seed: UInt64) {
            segments = sizes.enumerated().map { index, size in
                var generator = SeededGenerator(seed: seed &+ UInt64(index))
                // TS packets start with 0x47; the rest is noise.
                return (0..<size).map { $0 % 188 == 0 ? 0x47 : UInt8.random(in: 0...255, using: &generator) }
            }
        }

        var playlist: [UInt8] {
            let lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:2", "#EXT-X-PLAYLIST-TYPE:VOD"]
                + segments.indices.flatMap { ["#EXTINF:2.0,", "seg\($0).ts"] } + ["#EXT-X-ENDLIST", ""]
            return Array(lines.joined(separator: "\n").utf8)
        }

        /// The segment a request asks for, if it asks for one.
        static func segment(of request: HTTPRequest) -> Int? {
            guard let name = request.url.split(separator: "/").last, name.hasPrefix("seg"), name.hasSuffix(".ts") else {
                return nil
            }
            return Int(name.dropFirst(3).dropLast(3))
        }

        /// The origin's answer: the playlist, a segment (in 16 KiB pieces, as libcurl
        /// hands them over), or 404.
        func answer(_ request: HTTPRequest) -> [ScriptedTransfers.Step] {
            if request.url == TitleDownloadTests.url {
                return ScriptedFile(bytes: playlist, etag: nil, contentType: "application/vnd.apple.mpegurl").answer(request)
            }
            guard let index = Self.segment(of: request), segments.indices.contains(index) else {
                return [.head(status: 404, headers: [("Content-Length", "0")]), .end(CURLE_OK)]
            }
            return ScriptedFile(bytes: segments[index], etag: "\"s\(index)\"", contentType: "video/mp2t", chunk: 16 << 10)
                .answer(request)
        }
    }

    /// A service on `cache` whose transfers `answer` scripts; events are counted.
    final class Scripted: Sendable {
        let transfers: ScriptedTransfers
        let service: DownloadService
        init(
            cache: String, configure: (inout PrefetchOptions) -> Void = { _ in },
            answer: @escaping @Sendable (HTTPRequest) -> [ScriptedTransfers.Step]
        ) throws {
            transfers = ScriptedTransfers(answer: answer)
            var options = PrefetchOptions()
            options.retryBaseDelay = 0.01
            options.maxRetryDelay = 0.05
            configure(&options)
            let retried = RetryCount()
            service = try DownloadService(
                cache: CacheDirectory(root: cache), options: options,
                events: { event in if case .retry = event { retried.count.add(1, ordering: .relaxed) } },
                committed: nil, tier: nil, executor: transfers)
            self.retried = retried
        }

        final class RetryCount: Sendable { let count = Atomic<Int>(0) }
        private let retried: RetryCount
        var retries: Int { retried.count.load(ordering: .relaxed) }

        deinit { service.shutdown() }

        func download() async -> DownloadResult {
            await service.submit(JobRequest(entry: ListEntry(urls: [TitleDownloadTests.url]))).result()
        }

        /// How often each segment was asked for.
        var segmentRequests: [Int: Int] {
            transfers.requests.withLock { requests in
                requests.compactMap(ScriptedTitle.segment(of:)).reduce(into: [:]) { $0[$1, default: 0] += 1 }
            }
        }
    }

    /// The committed title's segments in playlist order, read as a player reads them:
    /// the local playlist's URIs, relative to it.
    static func playedSegments(of result: DownloadResult, in cache: CacheDirectory) throws -> [[UInt8]] {
        guard case .committed(let object) = result else {
            Issue.record("not committed: \(result)")
            return []
        }
        var entry = cache.absolute(object.path)
        if FileSystem.entryType(entry) == S_IFDIR { entry += "/" + TitleLayout.hlsEntry }
        let folder = (entry as NSString).deletingLastPathComponent
        let playlist = String(decoding: try #require(FileManager.default.contents(atPath: entry)), as: UTF8.self)
        return try playlist.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { uri in
            Array(try #require(FileManager.default.contents(atPath: folder + "/" + uri), "\(uri)"))
        }
    }

    @Test func aTitleArrivesWholeEachSegmentAskedForOnce() async throws {
        let temporary = try TemporaryDirectory("mediacache-title")
        defer { temporary.remove() }
        // Sizes around the writers' 256 KiB block and a piece of 16 KiB, and an empty one.
        let title = ScriptedTitle(sizes: [200_000, 262_144, 262_145, 16_384, 1, 700_000, 0, 90_000], seed: 1)
        let scripted = try Scripted(cache: temporary.path) { title.answer($0) }
        let result = await scripted.download()
        #expect(try Self.playedSegments(of: result, in: scripted.service.cache) == title.segments)
        #expect(scripted.segmentRequests == Dictionary(uniqueKeysWithValues: title.segments.indices.map { ($0, 1) }))
        // Nothing taken twice: every segment once, and the playlist as often as it was read.
        let playlistReads = scripted.transfers.requests.withLock { $0.filter { $0.url == Self.url }.count }
        let total = title.segments.reduce(0) { $0 + $1.count } + playlistReads * title.playlist.count
        #expect(scripted.transfers.bytesTaken.load(ordering: .relaxed) == total)
    }

    /// A segment whose response breaks is asked for again; the title is whole and none
    /// of the other segments is fetched twice.
    @Test func aBrokenSegmentIsFetchedAgainAndTheTitleIsWhole() async throws {
        let temporary = try TemporaryDirectory("mediacache-title")
        defer { temporary.remove() }
        let title = ScriptedTitle(sizes: Array(repeating: 300_000, count: 6), seed: 2)
        let broken = Atomic<Bool>(false)
        let scripted = try Scripted(cache: temporary.path) { request in
            var steps = title.answer(request)
            // Segment 3's first response: its head and 5 pieces, then the connection drops.
            if ScriptedTitle.segment(of: request) == 3, !broken.exchange(true, ordering: .relaxed) {
                steps = Array(steps.prefix(6)) + [.end(CURLE_RECV_ERROR)]
            }
            return steps
        }
        let result = await scripted.download()
        #expect(try Self.playedSegments(of: result, in: scripted.service.cache) == title.segments)
        #expect(scripted.retries >= 1)
        var once = Dictionary(uniqueKeysWithValues: title.segments.indices.map { ($0, 1) })
        once[3] = 2
        #expect(scripted.segmentRequests == once)
    }

    /// A segment's response breaks, and the request for the rest is answered with the
    /// rest of another version (a server that ignores `If-Range`, or another copy of the
    /// title): it is fetched whole again, never spliced from two versions.
    @Test func theRestOfAnotherVersionIsNeverSpliced() async throws {
        let temporary = try TemporaryDirectory("mediacache-title")
        defer { temporary.remove() }
        let title = ScriptedTitle(sizes: Array(repeating: 300_000, count: 3), seed: 4)
        let other = ScriptedTitle(sizes: [300_000, 300_000], seed: 40).segments[1]
        let asked = Atomic<Int>(0)
        let scripted = try Scripted(cache: temporary.path) { request in
            guard ScriptedTitle.segment(of: request) == 1 else { return title.answer(request) }
            switch asked.add(1, ordering: .relaxed).newValue {
            case 1:
                // Its head and 5 pieces, then the connection drops.
                return Array(title.answer(request).prefix(6)) + [.end(CURLE_RECV_ERROR)]
            default:
                // Another version from here on, whatever If-Range says.
                var ignoring = request
                ignoring.headers.removeAll { $0.lowercased().hasPrefix("if-range:") }
                return ScriptedFile(bytes: other, etag: "\"other\"", contentType: "video/mp2t", chunk: 16 << 10)
                    .answer(ignoring)
            }
        }
        let result = await scripted.download()
        let played = try Self.playedSegments(of: result, in: scripted.service.cache)
        let whole = played == [title.segments[0], other, title.segments[2]]
        #expect(whole, "segment 1 is not the second version whole (\(played.map(\.count)) bytes)")
        let ranges = scripted.transfers.requests.withLock { requests in
            requests.filter { ScriptedTitle.segment(of: $0) == 1 }.map { ScriptedFile.header("Range", in: $0) }
        }
        #expect(ranges.count == 3 && ranges[1] != nil && ranges[2] == nil, "\(ranges)")
    }

    /// Stopped while half its segments are held (their responses never come), the title
    /// resumes in a new service: only the missing segments are asked for.
    @Test func aStoppedTitleResumesAskingOnlyForWhatItLacks() async throws {
        let temporary = try TemporaryDirectory("mediacache-title")
        defer { temporary.remove() }
        let title = ScriptedTitle(sizes: Array(repeating: 120_000, count: 10), seed: 3)
        let first = try Scripted(cache: temporary.path) { request in
            (ScriptedTitle.segment(of: request) ?? 0) >= 5 ? [.silence] : title.answer(request)
        }
        let handle = first.service.submit(JobRequest(entry: ListEntry(urls: [Self.url])))
        let staging = TitleLayout.staging(key: CacheKey(identity: Self.url), in: first.service.cache)
        func segmentsHeld() -> [String] { TitleProgress.load(staging: staging).held.keys.filter { $0.hasSuffix(".ts") }.sorted() }
        let saved = await Self.eventually(seconds: 10) { segmentsHeld().count == 5 }
        #expect(saved, "no checkpoint of the 5 segments held: \(segmentsHeld())")
        first.service.shutdown()
        let stopped = await handle.result()
        guard case .interrupted = stopped else {
            Issue.record("not interrupted: \(stopped)")
            return
        }

        let second = try Scripted(cache: temporary.path) { title.answer($0) }
        let result = await second.download()
        #expect(try Self.playedSegments(of: result, in: second.service.cache) == title.segments)
        #expect(second.segmentRequests == Dictionary(uniqueKeysWithValues: (5..<10).map { ($0, 1) }))
    }

    /// An HTML page for a segment is no segment: the title fails and says which.
    @Test func anErrorPageForASegmentFailsTheTitleNamingIt() async throws {
        let temporary = try TemporaryDirectory("mediacache-title")
        defer { temporary.remove() }
        let title = ScriptedTitle(sizes: Array(repeating: 50_000, count: 4), seed: 4)
        let scripted = try Scripted(cache: temporary.path) { request in
            guard ScriptedTitle.segment(of: request) == 2 else { return title.answer(request) }
            return ScriptedFile(bytes: Array("<!DOCTYPE html><html>Sign in</html>".utf8), etag: nil, contentType: "video/mp2t")
                .answer(request)
        }
        let result = await scripted.download()
        let failure = try #require(Self.failure(of: result), "not failed: \(result)")
        #expect(failure.message.contains("seg2.ts") && failure.message.contains("HTML"), "\(failure.message)")
    }

    /// A segment answered with two Content-Length values cannot be framed: the title
    /// fails naming it, and nothing of a shorter body stands in for the segment.
    @Test func aSegmentWithConflictingLengthsFailsTheTitleNamingIt() async throws {
        let temporary = try TemporaryDirectory("mediacache-title")
        defer { temporary.remove() }
        let title = ScriptedTitle(sizes: Array(repeating: 50_000, count: 4), seed: 5)
        let scripted = try Scripted(cache: temporary.path) { request in
            guard ScriptedTitle.segment(of: request) == 1 else { return title.answer(request) }
            return [
                .head(status: 200, headers: [("Content-Type", "video/mp2t"), ("Content-Length", "50000"), ("Content-Length", "49000")]),
                .body(Array(title.segments[1].prefix(49_000))), .end(CURLE_OK),
            ]
        }
        let result = await scripted.download()
        let failure = try #require(Self.failure(of: result), "not failed: \(result)")
        #expect(failure.message.contains("seg1.ts") && failure.message.contains("conflicting Content-Length values (50000, 49000)"), "\(failure.message)")
    }

    /// Why the download failed; nil when it did not.
    static func failure(of result: DownloadResult) -> JobFailure? {
        if case .failed(let failure) = result { return failure }
        return nil
    }

    /// Polls `condition` every 20 ms for up to `seconds`.
    static func eventually(seconds: Double, _ condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }
}
