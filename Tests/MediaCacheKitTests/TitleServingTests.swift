import Foundation
import Testing
@testable import MediaCacheKit

/// What `serve` needs of a cached title, without a server: which request paths name a
/// file of it, the type each is sent with, and opening one that is there and whole.
@Suite("TitleServing")
struct TitleServingTests {
    let url = "https://a.example/show/master.m3u8"

    static func manifest(_ paths: [String], renditions: [(String, String)] = []) -> TitleManifest {
        TitleManifest(
            format: .hls, url: "https://a.example/m.m3u8", entry: "index.m3u8",
            renditions: renditions.map { .init(identity: $0.0, kind: $0.1, playlist: "\($0.0)/index.m3u8", segments: 1, duration: 2) },
            members: paths.map { .init(path: $0, size: 1, sha256: String(repeating: "0", count: 64)) })
    }

    @Test func onlyListedPathsAreMembers() {
        let members = TitleMembers(
            Self.manifest(["index.m3u8", "variant-0/index.m3u8", "variant-0/s1.ts", "audio-aud-English%20%28US%29/s1.m4s"]))
        #expect(members.entry?.path == "index.m3u8")
        #expect(members.member(requested: "variant-0/s1.ts")?.path == "variant-0/s1.ts")
        // A folder whose name has `%XX` in it (older versions escaped rendition names) matches as sent.
        #expect(members.member(requested: "audio-aud-English%20%28US%29/s1.m4s") != nil)
        // A client that encoded a character the playlist did not still finds the file.
        #expect(members.member(requested: "variant%2D0/s1.ts")?.path == "variant-0/s1.ts")
        for outside in [
            "title.json", "variant-0/s2.ts", "variant-0/../index.m3u8", "../index.m3u8", "/index.m3u8", "variant-0",
            "variant-0/", "", "variant-0/s1.ts/", "./index.m3u8", "%2E%2E/index.m3u8",
        ] {
            #expect(members.member(requested: outside) == nil, "\(outside)")
        }
    }

    @Test(arguments: [
        ("index.m3u8", nil, "application/vnd.apple.mpegurl"),
        ("variant-0/index.m3u8", "variant", "application/vnd.apple.mpegurl"),
        ("variant-0/s3.ts", "variant", "video/mp2t"),
        ("variant-0/key-1.key.ts", "variant", "application/octet-stream"),
        ("variant-0/key-12.key.ts", "variant", "application/octet-stream"),
        ("variant-0/monkey-1.key.ts", "variant", "video/mp2t"),
        ("variant-0/key-x.key.ts", "variant", "video/mp2t"),
        ("variant-0/init-0.mp4", "variant", "video/mp4"),
        ("variant-0/s3.m4s", "variant", "video/mp4"),
        ("audio-aac-en/init-0.mp4", "audio", "audio/mp4"),
        ("audio-aac-en/s3.m4s", "audio", "audio/mp4"),
        ("audio-aac-en/s3.aac", "audio", "audio/aac"),
        ("subtitles-subs-en/s3.vtt", "subtitles", "text/vtt"),
        ("text-en-subs~11f5549e105f/file.vtt.mp4", "text", "text/vtt"),
        ("index.mpd", nil, "application/dash+xml"),
        ("variant-0/file-1.bin", "variant", "application/octet-stream"),
        ("variant-0/noextension", "variant", "application/octet-stream"),
    ] as [(String, String?, String)])
    func contentTypes(path: String, kind: String?, expected: String) {
        #expect(TitleMemberType.contentType(of: path, renditionKind: kind) == expected)
    }

    @Test func aMembersTypeFollowsItsRendition() {
        let members = TitleMembers(
            Self.manifest(["audio-a-b/s1.m4s", "variant-0/s1.m4s"], renditions: [("audio-a-b", "audio"), ("variant-0", "variant")]))
        #expect(members.contentType(of: members.member(requested: "audio-a-b/s1.m4s")!) == "audio/mp4")
        #expect(members.contentType(of: members.member(requested: "variant-0/s1.m4s")!) == "video/mp4")
    }

    @Test func aWholeMemberOpensWithItsBytes() throws {
        let cache = try BundleTestCache("mediacache-title-serve")
        let title = try TitleFixture.write(url: url, in: cache.directory, index: cache.index)
        let store = try ObjectStore(directory: cache.directory)
        let intact = try #require(store.openIntact(key: title.key))
        let member = try #require(title.manifest.members.first { $0.path == "variant-0/s1.ts" })
        guard case .opened(let file) = store.openMember(member, of: intact) else {
            Issue.record("not opened")
            return
        }
        #expect(try file.read(count: Int(member.size), at: 0) == title.members["variant-0/s1.ts"])
    }

    @Test func aMissingShortOrLinkedMemberIsNamed() throws {
        let cache = try BundleTestCache("mediacache-title-serve")
        let title = try TitleFixture.write(url: url, in: cache.directory, index: cache.index)
        let store = try ObjectStore(directory: cache.directory)
        let intact = try #require(store.openIntact(key: title.key))
        func member(_ path: String) throws -> TitleManifest.Member { try #require(title.manifest.members.first { $0.path == path }) }
        func problem(_ path: String) throws -> ObjectVerifier.Problem? {
            if case .unusable(let problem) = store.openMember(try member(path), of: intact) { return problem }
            return nil
        }

        try FileManager.default.removeItem(atPath: title.directoryPath + "/variant-0/s0.ts")
        #expect(try problem("variant-0/s0.ts") == .member(title.relativePath(of: "variant-0/s0.ts"), .missing))

        let short = try DataFile(path: title.directoryPath + "/variant-0/s1.ts", mode: .readWrite)
        try short.truncate(length: 10)
        #expect(try problem("variant-0/s1.ts") == .member(title.relativePath(of: "variant-0/s1.ts"), .wrongSize(actual: 10, expected: 1_000)))

        // A folder swapped for a link is not followed.
        let elsewhere = cache.root + "/elsewhere"
        try FileSystem.rename(title.directoryPath + "/keys", to: elsewhere)
        try FileManager.default.createSymbolicLink(atPath: title.directoryPath + "/keys", withDestinationPath: elsewhere)
        #expect(try problem("keys/k0.key") == .member(title.relativePath(of: "keys"), .notADirectory))

        // A path from elsewhere than title.json never leaves the title.
        let outside = TitleManifest.Member(path: "../../../index.sqlite", size: 1, sha256: "")
        guard case .unusable(.notATitle) = store.openMember(outside, of: intact) else {
            Issue.record("a path outside the title was opened")
            return
        }
    }
}
