import CCurl
import Foundation
import Synchronization
import Testing
import TestSupport
@testable import MediaCacheKit

/// A title whose master lists its variant twice, on `a.test` and `b.test` (a backup
/// stream): what fails on the copy in use comes from the next one. Scripted transfers
/// drive the real service and title download.
@Suite("Title copies, scripted")
struct TitleCopiesTests {
    static let master = "http://origin.test/master.m3u8"
    static let segments = (0..<3).map { DownloadJobTests.file(20_000, seed: 70 + UInt64($0)) }

    /// A copy's own encode: other bytes for every segment and init section.
    static let otherSegments = (0..<3).map { DownloadJobTests.file(20_000, seed: 90 + UInt64($0)) }
    static let initSection = DownloadJobTests.file(900, seed: 80)
    static let otherInitSection = DownloadJobTests.file(900, seed: 81)

    static func playlist(_ count: Int, map: Bool = false) -> [UInt8] {
        Array(
            ("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n" + (map ? "#EXT-X-MAP:URI=\"init.mp4\"\n" : "")
                + (0..<count).map { "#EXTINF:2,\ns\($0).ts\n" }.joined() + "#EXT-X-ENDLIST\n").utf8)
    }

    /// Requests asked, by host and name (`a.test/s1.ts`).
    final class Asked: Sendable {
        private let counts = Mutex<[String: Int]>([:])
        func note(_ name: String) -> Int { counts.withLock { $0[name, default: 0] += 1; return $0[name]! } }
        subscript(_ name: String) -> Int { counts.withLock { $0[name] ?? 0 } }
    }

    /// The master, each copy's playlist (`b.test`'s of `backupSegments`), and each
    /// segment as `segment` answers it (nil: the segment's bytes).
    /// `map`: the playlists name an init section; `otherEncode`: `b.test`'s files are
    /// another encode of the title (other bytes, init section included); `copies`: 3
    /// adds `c.test`. `answer` answers first what it has an answer for.
    static func origin(
        backupSegments: Int = 3, map: Bool = false, otherEncode: Bool = false, copies: Int = 2, cache: String? = nil,
        asked: Asked, segment: @escaping @Sendable (_ name: String, _ count: Int) -> [ScriptedTransfers.Step]?
    ) throws -> DownloadJobTests.Scripted {
        try DownloadJobTests.Scripted(cache: cache) { request in
            let parts = request.url.split(separator: "/")
            let name = "\(parts[1])/\(parts.last ?? "")"
            let count = asked.note(name)
            if let scripted = segment(name, count) { return scripted }
            let type = ("Content-Type", "application/vnd.apple.mpegurl")
            func ok(_ body: [UInt8], _ headers: [(String, String)] = []) -> [ScriptedTransfers.Step] {
                [.head(status: 200, headers: headers + [("Content-Length", "\(body.count)")]), .body(body), .end(CURLE_OK)]
            }
            switch name {
            case "origin.test/master.m3u8":
                let inf = "#EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360"
                let hosts = ["a.test", "b.test", "c.test"].prefix(copies)
                return ok(Array(("#EXTM3U\n" + hosts.map { "\(inf)\nhttp://\($0)/v.m3u8\n" }.joined()).utf8), [type])
            case "a.test/v.m3u8", "c.test/v.m3u8": return ok(playlist(3, map: map), [type])
            case "b.test/v.m3u8": return ok(playlist(backupSegments, map: map), [type])
            case "a.test/init.mp4": return ok(initSection)
            case "b.test/init.mp4": return ok(otherEncode ? otherInitSection : initSection)
            default:
                let index = Int(name.split(separator: "/").last?.dropFirst().prefix { $0.isNumber } ?? "") ?? 0
                let other = otherEncode && name.hasPrefix("b.test/")
                return ok(other ? otherSegments[index] : segments[index])
            }
        }
    }

    static let missing: [ScriptedTransfers.Step] = [.head(status: 404, headers: [("Content-Length", "0")]), .end(CURLE_OK)]

    /// `a.test` lacks the second segment, and the third answers its 404 only after the
    /// playlists were read from `b.test`: the title moves to `b.test` once, the third
    /// segment is asked there with its fresh URL (not taken as a second copy failing),
    /// and the first is not fetched again.
    @Test func whatFailsOnTheFirstCopyComesFromTheNext() async throws {
        let asked = Asked()
        let scripted = try Self.origin(asked: asked) { name, _ in
            switch name {
            case "a.test/s1.ts": return Self.missing
            case "a.test/s2.ts": return [.until({ asked["b.test/v.m3u8"] > 0 })] + Self.missing
            default: return nil
            }
        }
        let result = await scripted.download([Self.master])
        guard case .committed(let object) = result else {
            Issue.record("the title failed: \(result)")
            return
        }
        #expect(object.isTitle)
        #expect(asked["a.test/s0.ts"] == 1 && asked["b.test/s0.ts"] == 0)
        #expect(asked["a.test/s1.ts"] == 1 && asked["b.test/s1.ts"] == 1)
        #expect(asked["a.test/s2.ts"] == 1 && asked["b.test/s2.ts"] == 1)
        #expect(asked["b.test/v.m3u8"] == 1)
        let switches = scripted.events.notices.filter { $0.contains("trying the title's copy 2 of 2") }
        #expect(switches.count == 1, "\(scripted.events.notices)")
        #expect(switches.first?.contains("segment 1 of variant-0") == true, "\(switches)")
    }

    /// `b.test` cuts the title into four segments: its parts would not fit those held,
    /// so it is not used, and the title fails with the first copy's failure.
    @Test func aCopyCutDifferentlyIsNotUsed() async throws {
        let asked = Asked()
        let scripted = try Self.origin(backupSegments: 4, asked: asked) { name, _ in
            name == "a.test/s1.ts" ? Self.missing : nil
        }
        let result = await scripted.download([Self.master])
        guard case .failed(let failure) = result else {
            Issue.record("the title did not fail: \(result)")
            return
        }
        #expect(failure.message.contains("HTTP 404 for segment 1 of variant-0"), "\(failure.message)")
        #expect(scripted.events.notices.contains { $0.contains("the title's copy 2 cannot be used: it is cut differently") })
        #expect(["b.test/s0.ts", "b.test/s1.ts", "b.test/s2.ts"].allSatisfy { asked[$0] == 0 })
    }

    /// Every stored file is `b.test`'s other encode: none of `a.test`'s under its init section.
    static func expectOtherEncode(
        _ files: [String: [UInt8]], notices: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let expected = ["init-0.mp4": otherInitSection, "s0.ts": otherSegments[0], "s1.ts": otherSegments[1],
            "s2.ts": otherSegments[2]]
        let same = files == expected
        #expect(same, "stored: \(files.mapValues(\.count)); \(notices)", sourceLocation: sourceLocation)
    }

    /// The stored files of the committed title `result`, by stored path.
    static func stored(_ result: DownloadResult, in cache: CacheDirectory) throws -> [String: [UInt8]] {
        guard case .committed(let object) = result else {
            Issue.record("the title failed: \(result)")
            return [:]
        }
        let folder = (cache.absolute(object.path) as NSString).deletingLastPathComponent + "/variant-0"
        var files: [String: [UInt8]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) where !name.hasSuffix(".m3u8") {
            files[name] = FileManager.default.contents(atPath: folder + "/" + name).map(Array.init)
        }
        return files
    }

    /// After the move to `b.test`, the init section held from `a.test` is fetched again
    /// there. It is another encode's: the segment held from `a.test` is fetched again
    /// too, and every stored file is `b.test`'s, never one copy's segments under the
    /// other's init section.
    @Test func partsHeldFromAnotherEncodeAreFetchedAgain() async throws {
        let asked = Asked()
        let scripted = try Self.origin(map: true, otherEncode: true, asked: asked) { name, _ in
            name == "a.test/s1.ts" ? Self.missing : nil
        }
        let files = try Self.stored(await scripted.download([Self.master]), in: scripted.service.cache)
        Self.expectOtherEncode(files, notices: scripted.events.notices)
        #expect(asked["a.test/s0.ts"] == 1 && asked["b.test/s0.ts"] == 1 && asked["b.test/init.mp4"] == 1)
        #expect(scripted.events.notices.contains { $0.contains("init section 0 of variant-0 is not the same on the title's copy 2") })
    }

    /// What was on its way from `a.test` when the title moved arrives afterwards: a late
    /// init section is fetched again from `b.test` to compare, and a late segment is
    /// fetched again once `b.test`'s init section differs, before or after that is
    /// known (`afterTheCheck`). Every stored file is `b.test`'s.
    @Test(arguments: [
        (["a.test/init.mp4", "a.test/s0.ts"], false), (["a.test/init.mp4"], false), (["a.test/s0.ts"], false),
        (["a.test/s0.ts"], true),
    ])
    func partsArrivingFromTheCopyGivenUpAreCheckedToo(late: [String], afterTheCheck: Bool) async throws {
        let asked = Asked()
        let checked = Mutex<Double?>(nil)
        let scripted = try Self.origin(map: true, otherEncode: true, asked: asked) { name, _ in
            if name == "a.test/s1.ts" { return Self.missing }
            if name == "b.test/init.mp4" {
                let body = Self.otherInitSection
                return [.head(status: 200, headers: [("Content-Length", "\(body.count)")]), .body(body),
                    .until({ checked.withLock { $0 = $0 ?? Date().timeIntervalSinceReferenceDate }; return true }),
                    .end(CURLE_OK)]
            }
            guard late.contains(name) else { return nil }
            let gate: @Sendable () -> Bool = {
                guard asked["b.test/s1.ts"] > 0 else { return false }
                guard afterTheCheck else { return true }
                return checked.withLock { $0.map { Date().timeIntervalSinceReferenceDate - $0 > 0.3 } ?? false }
            }
            let body = name.hasSuffix("init.mp4") ? Self.initSection : Self.segments[0]
            return [.until(gate), .head(status: 200, headers: [("Content-Length", "\(body.count)")]), .body(body), .end(CURLE_OK)]
        }
        let files = try Self.stored(await scripted.download([Self.master]), in: scripted.service.cache)
        Self.expectOtherEncode(files, notices: scripted.events.notices)
        #expect(asked["a.test/s0.ts"] == 1 && asked["b.test/s0.ts"] == 1 && asked["b.test/init.mp4"] == 1)
    }

    /// `a.test` dies partway through a segment (its answer cut, then no answer at all):
    /// the bytes it sent are kept across both failures, and `b.test`, which has the same
    /// bytes under another ETag and sends them all again, is compared with them (a
    /// player reading the segment reads on); the segment is stored whole and right.
    @Test func bytesHeldFromACopyThatDiedAreKeptAndComparedWithTheNext() async throws {
        let asked = Asked()
        let bytes = Self.segments[1]
        let ok: @Sendable (String) -> [ScriptedTransfers.Step] = { etag in
            [.head(status: 200, headers: [("Content-Length", "\(bytes.count)"), ("ETag", etag)])]
        }
        let scripted = try Self.origin(asked: asked) { name, count in
            switch (name, count) {
            case ("a.test/s1.ts", 1): return ok("\"a\"") + [.body(Array(bytes.prefix(8_000))), .end(CURLE_RECV_ERROR)]
            case ("a.test/s1.ts", _): return [.end(CURLE_COULDNT_CONNECT)]
            case ("b.test/s1.ts", _): return ok("\"b\"") + [.body(bytes), .end(CURLE_OK)]
            default: return nil
            }
        }
        let result = await scripted.download([Self.master])
        let files = try Self.stored(result, in: scripted.service.cache)
        #expect(files["s1.ts"] == bytes, "\(files.mapValues(\.count))")
        #expect(asked["b.test/s1.ts"] == 1)
        let asks = scripted.transfers.requests.withLock { $0 }.filter { $0.url.hasSuffix("b.test/s1.ts") }
        #expect(asks.first?.headers.contains("Range: bytes=8000-") == true, "\(asks.map(\.headers))")
    }

    /// A run on a new cache (`/cache` in the folder returned) that `a.test`'s missing
    /// second segment stops, holding the init section and the other segments for the next.
    static func runStoppedByAMissingSegment() async throws -> TemporaryDirectory {
        let temporary = try TemporaryDirectory("mediacache-anew")
        let first = try Self.origin(map: true, copies: 1, cache: temporary.path + "/cache", asked: Asked()) { name, _ in
            name == "a.test/s1.ts" ? Self.missing : nil
        }
        if case .failed = await first.download([Self.master]) {} else { Issue.record("the first run did not fail") }
        first.service.shutdown()
        return temporary
    }

    /// A run stopped by a missing segment holds the init section and the other segments;
    /// before the next, the origin encodes the title anew under the same names and cut.
    /// The next run fetches the init section again to compare, finds it changed, and
    /// fetches the segments held again: never the old encode's under the new init.
    @Test func aTitleEncodedAnewSinceTheLastRunIsNotMixed() async throws {
        let temporary = try await Self.runStoppedByAMissingSegment()
        defer { temporary.remove() }
        let cache = temporary.path + "/cache"

        let asked = Asked()
        let second = try Self.origin(map: true, copies: 1, cache: cache, asked: asked) { name, _ in
            func ok(_ body: [UInt8]) -> [ScriptedTransfers.Step] {
                [.head(status: 200, headers: [("Content-Length", "\(body.count)")]), .body(body), .end(CURLE_OK)]
            }
            if name == "a.test/init.mp4" { return ok(Self.otherInitSection) }
            guard name.hasPrefix("a.test/s"), let index = Int(name.dropFirst("a.test/s".count).prefix { $0.isNumber }) else { return nil }
            return ok(Self.otherSegments[index])
        }
        let files = try Self.stored(await second.download([Self.master]), in: second.service.cache)
        Self.expectOtherEncode(files, notices: second.events.notices)
        #expect(asked["a.test/init.mp4"] == 1 && asked["a.test/s0.ts"] == 1 && asked["a.test/s2.ts"] == 1)
        #expect(second.events.notices.contains { $0.contains("changed on the origin since the last run: the 2 parts held") },
            "\(second.events.notices)")
    }

    /// The same encode: the init section is fetched again to compare, nothing else.
    @Test func aTitleUnchangedSinceTheLastRunFetchesOnlyItsInitSectionAgain() async throws {
        let temporary = try await Self.runStoppedByAMissingSegment()
        defer { temporary.remove() }
        let cache = temporary.path + "/cache"
        let asked = Asked()
        let second = try Self.origin(map: true, copies: 1, cache: cache, asked: asked) { _, _ in nil }
        let files = try Self.stored(await second.download([Self.master]), in: second.service.cache)
        #expect(files["s0.ts"] == Self.segments[0] && files["init-0.mp4"] == Self.initSection)
        #expect(asked["a.test/init.mp4"] == 1 && asked["a.test/s0.ts"] == 0 && asked["a.test/s1.ts"] == 1)
    }

    /// The same encode on both servers: the init section is fetched again to confirm it,
    /// and nothing held is fetched twice.
    @Test func partsHeldFromTheSameEncodeAreKept() async throws {
        let asked = Asked()
        let scripted = try Self.origin(map: true, asked: asked) { name, _ in
            name == "a.test/s1.ts" ? Self.missing : nil
        }
        let files = try Self.stored(await scripted.download([Self.master]), in: scripted.service.cache)
        let expected = ["init-0.mp4": Self.initSection, "s0.ts": Self.segments[0], "s1.ts": Self.segments[1],
            "s2.ts": Self.segments[2]]
        let same = files == expected
        #expect(same, "stored: \(files.mapValues(\.count))")
        #expect(asked["b.test/s0.ts"] == 0 && asked["b.test/init.mp4"] == 1)
    }

    /// The first copy's playlist is gone, so the title starts on the second; a segment
    /// the second lacks moves it to the third, not back to the second.
    @Test func aTitleStartedOnALaterCopyMovesOnFromThere() async throws {
        let asked = Asked()
        let scripted = try Self.origin(copies: 3, asked: asked) { name, _ in
            ["a.test/v.m3u8", "b.test/s1.ts"].contains(name) ? Self.missing : nil
        }
        let result = await scripted.download([Self.master])
        guard case .committed = result else {
            Issue.record("the title failed: \(result)")
            return
        }
        #expect(asked["b.test/v.m3u8"] == 1 && asked["c.test/v.m3u8"] == 1 && asked["b.test/s1.ts"] == 1)
        #expect(asked["a.test/s0.ts"] == 0 && asked["c.test/s1.ts"] == 1)
        let notices = scripted.events.notices
        #expect(notices.contains { $0.contains("using the copy at http://b.test/v.m3u8") }, "\(notices)")
        #expect(notices.contains { $0.contains("trying the title's copy 3 of 3") }, "\(notices)")
        #expect(!notices.contains { $0.contains("copy 2 of 3") }, "\(notices)")
    }

    /// The copy moved to has a playlist that keeps failing (503): after two failures, as
    /// for a segment, the next copy's is read, and the run says so.
    @Test func aCopyWhosePlaylistKeepsFailingIsPassedForTheNext() async throws {
        let asked = Asked()
        let busy: [ScriptedTransfers.Step] = [.head(status: 503, headers: [("Content-Length", "0")]), .end(CURLE_OK)]
        let scripted = try Self.origin(copies: 3, asked: asked) { name, _ in
            switch name {
            case "a.test/s1.ts": return Self.missing
            case "b.test/v.m3u8": return busy
            default: return nil
            }
        }
        let result = await scripted.download([Self.master])
        guard case .committed = result else {
            Issue.record("the title failed: \(result)")
            return
        }
        #expect(asked["b.test/v.m3u8"] == 2 && asked["c.test/s1.ts"] == 1)
        #expect(scripted.events.notices.contains { $0.contains("using the copy at http://c.test/v.m3u8") }, "\(scripted.events.notices)")
    }

    /// A run that moved to `b.test` is stopped; the next goes on from `b.test`, whose
    /// files it holds (another encode than `a.test`'s): nothing is asked of `a.test`, and
    /// every stored file is `b.test`'s.
    @Test func aResumedTitleGoesOnFromTheCopyItMovedTo() async throws {
        let temporary = try TemporaryDirectory("mediacache-copies")
        defer { temporary.remove() }
        let cache = temporary.path + "/cache"
        let firstAsked = Asked()
        let first = try Self.origin(map: true, otherEncode: true, cache: cache, asked: firstAsked) { name, _ in
            switch name {
            case "a.test/s1.ts": return Self.missing
            case "b.test/s2.ts": return [.silence]
            default: return nil
            }
        }
        let handle = first.service.submit(JobRequest(entry: ListEntry(urls: [Self.master])))
        let staging = TitleLayout.staging(key: CacheKey(identity: Self.master), in: first.service.cache)
        let saved = await TitleDownloadTests.eventually(seconds: 10) {
            let progress = TitleProgress.load(staging: staging)
            return progress.copy == 1 && progress.held["variant-0/s1.ts"] != nil && progress.held["variant-0/s0.ts"] != nil
        }
        #expect(saved, "no checkpoint on the second copy: \(first.events.notices)")
        first.service.shutdown()
        _ = await handle.result()

        let asked = Asked()
        let second = try Self.origin(map: true, otherEncode: true, cache: cache, asked: asked) { _, _ in nil }
        let files = try Self.stored(await second.download([Self.master]), in: second.service.cache)
        Self.expectOtherEncode(files, notices: second.events.notices)
        #expect(asked["a.test/v.m3u8"] == 0 && asked["a.test/s2.ts"] == 0 && asked["b.test/s2.ts"] == 1)
        #expect(second.events.notices.contains { $0.contains("going on from the title's copy 2") }, "\(second.events.notices)")
    }

    /// A server that fails with 503 is given up after two failures of one segment, not
    /// the whole retry budget (`--retries`).
    @Test func aServerThatKeepsFailingIsGivenUpAfterTwoFailures() async throws {
        let asked = Asked()
        let scripted = try Self.origin(asked: asked) { name, _ in
            name.hasPrefix("a.test/s") ? [.head(status: 503, headers: [("Content-Length", "0")]), .end(CURLE_OK)] : nil
        }
        let result = await scripted.download([Self.master])
        guard case .committed = result else {
            Issue.record("the title failed: \(result)")
            return
        }
        for index in 0..<3 {
            #expect(asked["a.test/s\(index).ts"] <= 2 && asked["b.test/s\(index).ts"] == 1, "s\(index)")
        }
    }
}
