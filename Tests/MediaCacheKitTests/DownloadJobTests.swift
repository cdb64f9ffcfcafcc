import CCurl
import Foundation
import Synchronization
import Testing
import TestSupport
@testable import MediaCacheKit

/// A download's whole life (probe, ranges, retries, fallbacks, commit) driven by scripted
/// transfers: no socket, no process, the real job, scheduler, disk and index.
@Suite("DownloadJob, scripted")
struct DownloadJobTests {
    /// A service whose transfers `answer` scripts, on a fresh cache; events are kept.
    final class Scripted: Sendable {
        let temporary: TemporaryDirectory
        let transfers: ScriptedTransfers
        let service: DownloadService
        let events = EventLog()

        /// `cache`: a cache of the caller's (another service's before), not a fresh one.
        init(
            connections: Int = 4, minFragment: Int64 = 256 << 10, retries: Int = 5, tier: TierSource? = nil,
            cache: String? = nil, answer: @escaping @Sendable (HTTPRequest) -> [ScriptedTransfers.Step]
        ) throws {
            temporary = try TemporaryDirectory("mediacache-job")
            transfers = ScriptedTransfers(answer: answer)
            var options = PrefetchOptions()
            options.connectionsPerFile = connections
            options.minFragment = minFragment
            options.retries = retries
            options.retryBaseDelay = 0.01
            options.maxRetryDelay = 0.05
            let events = self.events
            service = try DownloadService(
                cache: CacheDirectory(root: cache ?? temporary.path + "/cache"), options: options,
                events: { event in events.append(event) }, committed: nil, tier: tier,
                executor: transfers)
        }

        deinit {
            service.shutdown()
            temporary.remove()
        }

        /// Downloads `urls` (the first, then mirrors) to its end.
        func download(_ urls: [String]) async -> DownloadResult {
            await service.submit(JobRequest(entry: ListEntry(urls: urls))).result()
        }

        func bytes(of result: DownloadResult) -> [UInt8]? {
            guard case .committed(let object) = result else { return nil }
            return FileManager.default.contents(atPath: service.cache.absolute(object.path)).map(Array.init)
        }
    }

    /// The events a service sent.
    final class EventLog: Sendable {
        private let events = Mutex<[PrefetchEvent]>([])

        func append(_ event: PrefetchEvent) { events.withLock { $0.append(event) } }

        var retries: Int { events.withLock { $0.filter { if case .retry = $0 { true } else { false } }.count } }

        /// The messages of the `notice` events, in order.
        var notices: [String] {
            events.withLock { $0.compactMap { if case .notice(_, let message) = $0 { message } else { nil } } }
        }

        /// The source each `started` event named, in order.
        var startedSources: [DownloadSource] {
            events.withLock { $0.compactMap { if case .started(_, _, _, _, _, let source, _) = $0 { source } else { nil } } }
        }
    }

    static func file(_ size: Int, seed: UInt64) -> [UInt8] {
        var generator = SeededGenerator(seed: seed)
        return (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    @Test func aFileArrivesOverSeveralRangesEachByteOnce() async throws {
        let file = ScriptedFile(bytes: Self.file(3 << 20, seed: 1))
        let scripted = try Scripted { file.answer($0) }
        let result = await scripted.download(["http://origin.test/a.mp4"])
        #expect(scripted.bytes(of: result) == file.bytes, "\(result)")
        #expect(scripted.transfers.requests.withLock { $0.count } > 1, "\(scripted.transfers.ranges)")
        #expect(scripted.transfers.bytesTaken.load(ordering: .relaxed) == file.bytes.count)
    }

    @Test func anOriginWithoutRangesIsReadAsOneStream() async throws {
        var file = ScriptedFile(bytes: Self.file(1 << 20, seed: 2))
        file.acceptsRanges = false
        let scripted = try Scripted { [file] in file.answer($0) }
        let result = await scripted.download(["http://origin.test/b.mp4"])
        #expect(scripted.bytes(of: result) == file.bytes, "\(result)")
        #expect(scripted.transfers.requests.withLock { $0.count } == 1, "\(scripted.transfers.ranges)")
    }

    /// A response that breaks is asked for again from where it broke: nothing it
    /// delivered is fetched twice.
    @Test func aBrokenResponseGoesOnFromWhereItBroke() async throws {
        let file = ScriptedFile(bytes: Self.file(2 << 20, seed: 3))
        let answered = Atomic<Int>(0)
        let scripted = try Scripted(connections: 1, minFragment: 1 << 20) { request in
            var steps = file.answer(request)
            // The second response (after the probe's 256 KiB, the rest) breaks 256 KiB in.
            if answered.add(1, ordering: .relaxed).oldValue == 1 { steps = Array(steps.prefix(5)) + [.end(CURLE_RECV_ERROR)] }
            return steps
        }
        let result = await scripted.download(["http://origin.test/c.mp4"])
        #expect(scripted.bytes(of: result) == file.bytes, "\(result)")
        let ranges = scripted.transfers.ranges
        #expect(ranges == ["Range: bytes=0-262143", "Range: bytes=262144-2097151", "Range: bytes=524288-2097151"], "\(ranges)")
        #expect(scripted.transfers.bytesTaken.load(ordering: .relaxed) == file.bytes.count)
    }

    /// A range cut for another connection (here the probe: it asks for two fragments, and
    /// keeps one once the file is known to be split) stops at its cut, so the origin is
    /// not left sending what another connection brings.
    @Test func aRangeCutForAnotherConnectionStopsAtItsCut() async throws {
        let file = ScriptedFile(bytes: Self.file(4 << 20, seed: 9))
        let scripted = try Scripted { file.answer($0) }
        let result = await scripted.download(["http://origin.test/cut.bin"])
        #expect(scripted.bytes(of: result) == file.bytes, "\(result)")
        let ranges = scripted.transfers.ranges
        #expect(ranges.first == "Range: bytes=0-524287", "\(ranges)")
        #expect(ranges.contains("Range: bytes=262144-524287"), "\(ranges)")
        #expect(scripted.transfers.bytesOffered.load(ordering: .relaxed) == file.bytes.count, "\(ranges)")
    }

    /// A 503 is tried again (after a backoff) and the download completes.
    @Test func aServerErrorIsTriedAgain() async throws {
        let file = ScriptedFile(bytes: Self.file(512 << 10, seed: 4))
        let failures = Atomic<Int>(0)
        let scripted = try Scripted { request in
            if failures.add(1, ordering: .relaxed).oldValue < 2 {
                return [.head(status: 503, headers: [("Content-Length", "0")]), .end(CURLE_OK)]
            }
            return file.answer(request)
        }
        let result = await scripted.download(["http://origin.test/d.mp4"])
        #expect(scripted.bytes(of: result) == file.bytes, "\(result)")
        scripted.service.shutdown()  // Every event delivered.
        #expect(scripted.events.retries == 2)
    }

    /// Three connections fail at once (an origin's brief outage): that is one failure,
    /// one backoff and one retry, not three of a budget of one.
    @Test func connectionsFailingTogetherCountAsOneFailure() async throws {
        let file = ScriptedFile(bytes: Self.file(2 << 20, seed: 10))
        let asked = Atomic<Int>(0)
        let scripted = try Scripted(retries: 1) { request in
            // After the probe, the three ranges asked for together.
            (1...3).contains(asked.add(1, ordering: .relaxed).oldValue)
                ? [.head(status: 503, headers: [("Content-Length", "0")]), .end(CURLE_OK)] : file.answer(request)
        }
        let result = await scripted.download(["http://origin.test/outage.mp4"])
        #expect(scripted.bytes(of: result) == file.bytes, "\(result)")
        scripted.service.shutdown()  // Every event delivered.
        #expect(scripted.events.retries == 1)
        #expect(scripted.transfers.requests.withLock(\.count) > 4)
    }

    /// A `Retry-After` that arrives while the file already backs off (another
    /// connection's failure) makes the backoff last that long: no request goes out before.
    @Test func aRetryAfterDuringABackoffLengthensIt() async throws {
        let file = ScriptedFile(bytes: Self.file(2 << 20, seed: 11))
        let asked = Mutex<[Double]>([])
        let scripted = try Scripted { request in
            let index = asked.withLock { times in
                times.append(TransferLoop.now())
                return times.count - 1
            }
            switch index {
            case 1: return [.head(status: 503, headers: [("Content-Length", "0")]), .end(CURLE_OK)]
            case 2: return [.head(status: 503, headers: [("Retry-After", "1"), ("Content-Length", "0")]), .end(CURLE_OK)]
            default: return file.answer(request)
            }
        }
        let result = await scripted.download(["http://origin.test/busy.mp4"])
        #expect(scripted.bytes(of: result) == file.bytes, "\(result)")
        let times = asked.withLock { $0 }
        // Requests 1 to 3 went out together; the next waited for the Retry-After.
        #expect(times.count > 4 && times[4] - times[2] >= 0.9, "\(times.map { $0 - times[0] })")
        scripted.service.shutdown()
        #expect(scripted.events.retries == 1)
    }

    /// The listed URL redirects to a signed link that serves two requests, then says 403
    /// (S3, a CDN, release assets): the ranges go back to the listed URL for fresh links,
    /// and the file arrives whole. A link that refuses at once never worked (a login the
    /// redirect did not carry): the file fails without retries or fresh links.
    @Test(arguments: [2, 0])
    func aRedirectTargetThatExpiresIsAskedForAgainFromTheListedURL(usesPerLink: Int) async throws {
        let file = ScriptedFile(bytes: Self.file(3 << 20, seed: 12))
        let links = Mutex<[Int: Int]>([:])
        let scripted = try Scripted(minFragment: 256 << 10, retries: 3) { request in
            if request.url == "http://origin.test/a.mp4" {
                let link = links.withLock { links in
                    links[links.count] = 0
                    return links.count - 1
                }
                return [.head(status: 302, headers: [("Location", "http://cdn.test/a.mp4?link=\(link)"), ("Content-Length", "0")]), .end(CURLE_OK)]
            }
            let link = Int(request.url.split(separator: "=").last ?? "") ?? -1
            let used = links.withLock { links in
                links[link, default: 0] += 1
                return links[link]!
            }
            guard used <= usesPerLink else {
                return [.head(status: 403, headers: [("Content-Length", "0")]), .end(CURLE_OK)]
            }
            return file.answer(request)
        }
        let result = await scripted.download(["http://origin.test/a.mp4"])
        if usesPerLink > 0 {
            #expect(scripted.bytes(of: result) == file.bytes, "\(result)")
            #expect(links.withLock { $0.count } > 1, "no fresh link was asked for")
        } else {
            // A link that never worked is not an expired one: no retries.
            guard case .failed(let failure) = result else { Issue.record("\(result)"); return }
            #expect(failure.message.contains("403") && !failure.message.contains("retries"), "\(failure.message)")
            #expect(links.withLock { $0.count } == 1, "asked for fresh links though none ever worked")
        }
    }

    /// The first URL answers 404: the mirror after it serves the file.
    @Test func aMirrorTakesOverFromAMissingOrigin() async throws {
        let file = ScriptedFile(bytes: Self.file(512 << 10, seed: 5))
        let scripted = try Scripted { request in
            request.url.hasPrefix("http://gone.test/")
                ? [.head(status: 404, headers: [("Content-Length", "0")]), .end(CURLE_OK)] : file.answer(request)
        }
        let result = await scripted.download(["http://gone.test/e.mp4", "http://mirror.test/e.mp4"])
        #expect(scripted.bytes(of: result) == file.bytes, "\(result)")
        let urls = scripted.transfers.requests.withLock { $0.map(\.url) }
        #expect(urls.first == "http://gone.test/e.mp4" && urls.dropFirst().allSatisfy { $0 == "http://mirror.test/e.mp4" }, "\(urls)")
        // The mirror continues the origin's file: the download started once.
        #expect(scripted.events.startedSources == [.origin])
    }

    /// The file changes on the origin between two of its ranges (a new ETag): the
    /// download starts over and keeps only the new version, never a splice of both.
    @Test func aFileThatChangesMidwayStartsOverWithTheNewVersion() async throws {
        let old = ScriptedFile(bytes: Self.file(2 << 20, seed: 6))
        var new = ScriptedFile(bytes: Self.file(2 << 20, seed: 7))
        new.etag = "\"v2\""
        let answered = Atomic<Int>(0)
        let scripted = try Scripted(connections: 2) { [new] request in
            answered.add(1, ordering: .relaxed).oldValue < 2 ? old.answer(request) : new.answer(request)
        }
        let result = await scripted.download(["http://origin.test/f.mp4"])
        #expect(scripted.bytes(of: result) == new.bytes, "\(result)")
    }

    /// An MP4 whose moov follows its mdat: the tail is asked for before the middle of
    /// mdat (a player needs it first), and the stored file has the moov in front.
    @Test func aLateMoovIsFetchedBeforeTheMiddleAndStoredInFront() async throws {
        let (chunk, chunks) = (64 << 10, 32)
        let head = Boxes.ftyp + Boxes.box("free", [])
        let mdatStart = Int64(head.count + 8)
        let offsets = (0..<chunks).map { mdatStart + Int64($0 * chunk) }
        let movie = head + Boxes.box("mdat", Self.file(chunk * chunks, seed: 8)) + Boxes.moov([Boxes.stco(offsets)])
        let moovStart = Int(mdatStart) + chunk * chunks
        let file = ScriptedFile(bytes: movie)
        let scripted = try Scripted { file.answer($0) }
        let result = await scripted.download(["http://origin.test/late.mp4"])
        guard case .committed(let object) = result, let stored = scripted.bytes(of: result) else {
            Issue.record("not committed: \(result)")
            return
        }
        #expect(object.faststart == .relocated && stored.count == movie.count)
        let layout = try TopLevelBoxes.scan(MemoryBytes(stored), length: Int64(stored.count)).map(\.type)
        #expect(layout == ["ftyp", "free", "moov", "mdat"], "\(layout)")
        let starts = scripted.transfers.ranges.compactMap { $0.flatMap { Int($0.dropFirst("Range: bytes=".count).prefix { $0 != "-" }) } }
        let tail = try #require(starts.firstIndex(of: moovStart), "\(starts)")
        let middle = starts.firstIndex { $0 >= Int(mdatStart) + chunk * chunks / 2 && $0 != moovStart }
        #expect(tail < (middle ?? Int.max), "\(starts)")
    }

    /// With a tier, the key's record is looked up on the transfer loop, beside the
    /// downloads (here the script answers it, as it answers them), and the tier's copy
    /// is fetched and checked against the record; the origin is not asked.
    @Test func aTierRecordIsLookedUpOnTheLoopAndItsCopyFetched() async throws {
        let bytes = Self.file(512 << 10, seed: 9)
        let url = "http://origin.test/h.mp4"
        let tier = try ScriptedTier(url: url, recordOf: bytes)
        defer { tier.directory.remove() }
        let copy = ScriptedFile(bytes: bytes)
        let scripted = try Scripted(tier: tier.source) { request in
            tier.answer(request, copy: copy) ?? [.head(status: 500, headers: [("Content-Length", "0")]), .end(CURLE_OK)]
        }
        let result = await scripted.download([url])
        #expect(scripted.bytes(of: result) == bytes, "\(result)")
        let urls = scripted.transfers.requests.withLock { $0.map(\.url) }
        #expect(urls.first?.hasSuffix("/keys/\(CacheKey(identity: url).hex).json") == true, "\(urls)")
        #expect(urls.allSatisfy { $0.hasPrefix("http://tier.test/") }, "\(urls)")
        #expect(scripted.events.startedSources == [.tier])
    }

    /// The tier's copy is not the bytes its record names: none of it is kept, the origin
    /// gives the file, and the download says it started again, from the origin.
    @Test func aTierCopyWithOtherBytesGivesWayToTheOrigin() async throws {
        let bytes = Self.file(512 << 10, seed: 10)
        let url = "http://origin.test/i.mp4"
        let tier = try ScriptedTier(url: url, recordOf: bytes)
        defer { tier.directory.remove() }
        var damaged = bytes
        damaged[1000] ^= 0xFF
        let (copy, origin) = (ScriptedFile(bytes: damaged), ScriptedFile(bytes: bytes))
        let scripted = try Scripted(tier: tier.source) { request in tier.answer(request, copy: copy) ?? origin.answer(request) }
        let result = await scripted.download([url])
        #expect(scripted.bytes(of: result) == bytes, "\(result)")
        #expect(scripted.events.startedSources == [.tier, .origin])
        let urls = scripted.transfers.requests.withLock { $0.map(\.url) }
        #expect(urls.contains(url), "\(urls)")
    }

    /// A tier at `http://tier.test` holding a record of `bytes` for `url`.
    struct ScriptedTier {
        let directory: TemporaryDirectory
        let source: TierSource
        let record: TierRecord

        init(url: String, recordOf bytes: [UInt8]) throws {
            record = TierRecord(
                key: CacheKey(identity: url), sha256: Digest.sha256Hex(bytes), size: Int64(bytes.count),
                contentType: "video/mp4", faststart: .original, etag: "\"v1\"", lastModified: nil, url: url)
            directory = try TemporaryDirectory("mediacache-tier")
            let configuration = try S3Configuration(
                location: TierLocation(parsing: "s3://bucket/fleet"), endpoint: "http://tier.test", region: "us-east-1",
                credentials: S3Credentials(accessKeyID: "AKID", secretAccessKey: "secret"))
            source = TierSource(
                store: TierStore(client: S3Client(configuration: configuration), cacheRoot: directory.path),
                fallback: .origin(required: false), trouble: { _ in })
        }

        /// The tier's answer to `request` (its record, else `copy`); nil for another host.
        func answer(_ request: HTTPRequest, copy: ScriptedFile) -> [ScriptedTransfers.Step]? {
            guard request.url.hasPrefix("http://tier.test/") else { return nil }
            guard request.url.hasSuffix(".json") else { return copy.answer(request) }
            let json = record.encoded()
            return [
                .head(status: 200, headers: [("Content-Type", "application/json"), ("Content-Length", "\(json.count)")]),
                .body(json), .end(CURLE_OK),
            ]
        }
    }

    /// Tokens expire together: one segment's 403 has the playlists read again, and another
    /// segment's 403, for a request sent before that and answered after, is asked again
    /// with the fresh URL, not taken as the title's end.
    @Test func aForbiddenAnswerToAnOldURLAfterTheRereadIsAskedAgain() async throws {
        let playlist = Array(
            ("#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-PLAYLIST-TYPE:VOD\n"
                + (0..<3).map { "#EXTINF:1,\ns\($0).ts\n" }.joined() + "#EXT-X-ENDLIST\n").utf8)
        let segments = (0..<3).map { Self.file(20_000, seed: 20 + UInt64($0)) }
        let playlistReads = Atomic<Int>(0)
        let reread = Mutex<Double?>(nil)
        let asked = Mutex<[String: Int]>([:])
        let forbidden: [ScriptedTransfers.Step] = [.head(status: 403, headers: [("Content-Length", "0")])]
        let scripted = try Scripted { request in
            let name = String(request.url.split(separator: "/").last ?? "")
            if name == "title.m3u8" {
                if playlistReads.add(1, ordering: .relaxed).newValue == 2 { reread.withLock { $0 = TransferLoop.now() } }
                return [
                    .head(status: 200, headers: [("Content-Type", "application/vnd.apple.mpegurl"), ("Content-Length", "\(playlist.count)")]),
                    .body(playlist), .end(CURLE_OK),
                ]
            }
            let index = Int(name.dropFirst().prefix { $0.isNumber }) ?? 0
            let count = asked.withLock { $0[name, default: 0] += 1; return $0[name]! }
            switch (index, count) {
            case (0, 1): return forbidden + [.end(CURLE_OK)]
            case (1, 1):
                // Answered well after the playlists were read again.
                return forbidden + [.until({ reread.withLock { $0.map { TransferLoop.now() - $0 > 0.3 } ?? false } }), .end(CURLE_OK)]
            default:
                let body = segments[index]
                return [.head(status: 200, headers: [("Content-Length", "\(body.count)")]), .body(body), .end(CURLE_OK)]
            }
        }
        let result = await scripted.download(["http://origin.test/t/title.m3u8"])
        guard case .committed(let object) = result else {
            Issue.record("the title failed: \(result)")
            return
        }
        #expect(object.isTitle)
        #expect(playlistReads.load(ordering: .relaxed) == 2)
        #expect(asked.withLock { $0 } == ["s0.ts": 2, "s1.ts": 2, "s2.ts": 1])
    }

    /// An HTML page sent with 200 for a media URL is an error page, not the file.
    @Test func anErrorPageIsNotCachedAsMedia() async throws {
        let page = Array("<!doctype html><html><body>Please log in</body></html>".utf8)
        var file = ScriptedFile(bytes: page)
        file.contentType = "text/html"
        file.acceptsRanges = false
        let scripted = try Scripted { [file] in file.answer($0) }
        let result = await scripted.download(["http://origin.test/g.mp4"])
        guard case .failed(let failure) = result else {
            Issue.record("an error page was cached: \(result)")
            return
        }
        #expect(failure.code == .notMedia, "\(failure)")
        #expect(try CacheIndex(directory: scripted.service.cache).all().isEmpty)
    }
}
