import Foundation
import Synchronization
import Testing

@testable import MediaCacheKit

/// What `serve` reads of a title while it downloads: the local playlists at once, a
/// file once held (asking the download for it first), and the title's end.
@Suite struct TitleInProgressTests {
    /// The paths the download was asked to fetch first.
    final class Asked: Sendable {
        private let paths = Mutex<[String]>([])
        func append(_ path: String) { paths.withLock { $0.append(path) } }
        var all: [String] { paths.withLock { $0 } }
    }

    static func view(held: [String: TitleInProgress.Held] = [:], asked: Asked) throws -> TitleInProgress {
        let url = "https://cdn.example/t/index.m3u8"
        let playlist = try HLSMediaPlaylist(
            parsing: "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\na.ts?t=1\n#EXTINF:2,\nb.ts?t=1\n#EXT-X-ENDLIST\n",
            url: url)
        let plan = HLSTitlePlan(renditions: [(SelectedRendition(identity: "media", kind: .variant, uri: url), playlist)])
        return TitleInProgress(plan: plan, filesDirectory: "/cache/partial/x.title/files", held: held) { path, _ in
            asked.append(path)
        }
    }

    @Test func playlistsAreThereAtOnceAndUnknownPathsAreNot() async throws {
        let view = try Self.view(asked: Asked())
        guard case .playlist(let bytes, _) = try await view.member("index.m3u8") else {
            Issue.record("no entry playlist")
            return
        }
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("media/s0.ts") && !text.contains("cdn.example"), "\(text)")
        #expect(try await view.member("media/s9.ts") == nil)
        #expect(try await view.member("../title.json") == nil)
    }

    /// A file not held yet is asked for first; the asker gets it once it lands.
    @Test func aFileNotHeldJumpsTheQueueAndIsHandedOnOnceHeld() async throws {
        let asked = Asked()
        let view = try Self.view(held: ["media/s0.ts": TitleInProgress.Held(size: 10, sha256: "ab")], asked: asked)
        guard case .file(let path, let held) = try await view.member("media/s0.ts") else {
            Issue.record("s0 is held")
            return
        }
        #expect(path == "/cache/partial/x.title/files/media/s0.ts" && held.size == 10)
        #expect(asked.all.isEmpty)

        async let waited = view.member("media/s1.ts")
        while asked.all.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        #expect(asked.all == ["media/s1.ts"])
        view.didHold("media/s1.ts", TitleInProgress.Held(size: 20, sha256: "cd"))
        guard case .file(_, let second) = try await waited else {
            Issue.record("s1 was not handed on")
            return
        }
        #expect(second.size == 20)
    }

    /// A title pulled from the tier: its playlists are files of its pack like any other,
    /// asked for first and handed on once the pull has written and checked them.
    @Test func aPulledTitlesPlaylistsArriveAsItsOtherFilesDo() async throws {
        let asked = Asked()
        let manifest = TitleManifest(
            format: .hls, url: "https://cdn.example/t/index.m3u8", entry: "index.m3u8",
            renditions: [.init(identity: "media", kind: "variant", playlist: "media/index.m3u8", segments: 1, duration: 2)],
            members: [
                .init(path: "media/s0.ts", size: 10, sha256: "ab"), .init(path: "media/index.m3u8", size: 5, sha256: "cd"),
                .init(path: "index.m3u8", size: 4, sha256: "ef"),
            ])
        let view = TitleInProgress(
            manifest: manifest, filesDirectory: "/cache/partial/x.title/pull",
            held: ["media/s0.ts": .init(size: 10, sha256: "ab")]
        ) { path, _ in asked.append(path) }
        #expect(view.entry == "index.m3u8" && view.contains("media/index.m3u8") && !view.contains("title.json"))
        #expect(view.contentType(of: "media/s0.ts") == "video/mp2t")
        guard case .file(let path, _) = try await view.member("media/s0.ts") else {
            Issue.record("s0 is held")
            return
        }
        #expect(path == "/cache/partial/x.title/pull/media/s0.ts")

        async let entry = view.member(view.entry)
        while asked.all.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        #expect(asked.all == ["index.m3u8"])
        view.didHold("index.m3u8", .init(size: 4, sha256: "ef"))
        guard case .file(let entryPath, let held) = try await entry else {
            Issue.record("the entry was not handed on")
            return
        }
        #expect(entryPath == "/cache/partial/x.title/pull/index.m3u8" && held.sha256 == "ef")
    }

    /// A title that fails while a player waits hands on its failure; one committed
    /// meanwhile says where the object is.
    @Test func theTitlesEndEndsTheWait() async throws {
        let asked = Asked()
        let view = try Self.view(asked: asked)
        let waited = Task { try await view.member("media/s1.ts") }
        while asked.all.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        view.finish(DownloadResult.failed(JobFailure(.httpStatus, "HTTP 404 for segment 1 of media")))
        await #expect(throws: JobFailure.self) { try await waited.value }
        // After the end nothing is asked of the download.
        await #expect(throws: JobFailure.self) { try await view.member("media/s0.ts") }
        #expect(asked.all == ["media/s1.ts"])
    }
}

extension TitleInProgress.Member: Equatable {
    public static func == (a: Self, b: Self) -> Bool {
        switch (a, b) {
        case (.playlist(let x, _), .playlist(let y, _)): x == y
        case (.file(let x, let m), .file(let y, let n)): x == y && m == n
        default: false
        }
    }
}
