import Foundation
import Testing
@testable import MediaCacheKit

/// A title arriving from a bundle or the tier is checked by `TitleAssembly`: its
/// `title.json` against what the sender vouched for, each member against `title.json`.
@Suite("TitleAssembly")
struct TitleAssemblyTests {
    static func manifest(_ members: [(String, [UInt8])], entry: String = TitleLayout.hlsEntry) -> TitleManifest {
        TitleManifest(
            format: .hls, url: "https://a.example/t.m3u8", entry: entry, renditions: [],
            members: members.map { .init(path: $0.0, size: Int64($0.1.count), sha256: Digest.sha256Hex($0.1)) })
    }

    static let files: [(String, [UInt8])] = [
        (TitleLayout.hlsEntry, Array("#EXTM3U\n".utf8)), ("variant-0/s0.ts", [1, 2, 3]), ("keys/k0.key", [9]),
    ]

    static func assembly(_ manifest: TitleManifest, size: Int64? = nil) throws(TitleAssembly.Problem) -> TitleAssembly {
        let bytes = manifest.encoded()
        return try TitleAssembly(
            manifestBytes: bytes, sha256: Digest.sha256Hex(bytes), size: size ?? manifest.totalSize(manifestBytes: bytes.count))
    }

    @Test func everyListedMemberArrivingIntactCompletesTheTitle() throws {
        var assembly = try Self.assembly(Self.manifest(Self.files))
        #expect(assembly.firstMissing == TitleLayout.hlsEntry)
        for (path, bytes) in Self.files {
            let listed = try assembly.begin(path)
            try TitleAssembly.check(listed, size: Int64(bytes.count), sha256: Digest.sha256Hex(bytes))
        }
        #expect(assembly.firstMissing == nil)
    }

    @Test func aManifestOtherThanTheOneVouchedForIsRefused() throws {
        let bytes = Self.manifest(Self.files).encoded()
        #expect(throws: TitleAssembly.Problem.manifestHash(actual: Digest.sha256Hex(bytes), expected: String(repeating: "0", count: 64))) {
            _ = try TitleAssembly(manifestBytes: bytes, sha256: String(repeating: "0", count: 64), size: 1)
        }
        #expect(throws: TitleAssembly.Problem.self) { _ = try Self.assembly(Self.manifest(Self.files), size: 5) }
        #expect(throws: TitleAssembly.Problem.self) {
            _ = try TitleAssembly(manifestBytes: Array("{}".utf8), sha256: Digest.sha256Hex(Array("{}".utf8)), size: 2)
        }
    }

    @Test(arguments: ["../escape.ts", "/etc/passwd", "a//b.ts", "./s.ts", "a/../../b", "", "title.json", "a/\u{7}.ts"])
    func aMemberPathOutsideTheTitleIsRefused(path: String) throws {
        #expect(throws: TitleAssembly.Problem.unsafePath(path)) {
            _ = try Self.assembly(Self.manifest(Self.files + [(path, [0])]))
        }
    }

    @Test func listingsThatCannotBeLaidOutAreRefused() throws {
        #expect(throws: TitleAssembly.Problem.duplicatePath("variant-0/s0.ts")) {
            _ = try Self.assembly(Self.manifest(Self.files + [("variant-0/s0.ts", [4])]))
        }
        #expect(throws: TitleAssembly.Problem.pathConflict("keys/k0.key/x")) {
            _ = try Self.assembly(Self.manifest(Self.files + [("keys/k0.key/x", [4])]))
        }
        #expect(throws: TitleAssembly.Problem.entryNotListed("other.m3u8")) {
            _ = try Self.assembly(Self.manifest(Self.files, entry: "other.m3u8"))
        }
    }

    @Test func extraTwiceAndAlteredMembersAreNamed() throws {
        var assembly = try Self.assembly(Self.manifest(Self.files))
        #expect(throws: TitleAssembly.Problem.notListed("variant-0/extra.ts")) { _ = try assembly.begin("variant-0/extra.ts") }
        let listed = try assembly.begin("variant-0/s0.ts")
        #expect(throws: TitleAssembly.Problem.receivedTwice("variant-0/s0.ts")) { _ = try assembly.begin("variant-0/s0.ts") }
        #expect(throws: TitleAssembly.Problem.memberSize("variant-0/s0.ts", actual: 2, listed: 3)) {
            try TitleAssembly.check(listed, size: 2, sha256: Digest.sha256Hex([1, 2]))
        }
        let wrong = Digest.sha256Hex([1, 2, 4])
        #expect(throws: TitleAssembly.Problem.memberHash("variant-0/s0.ts", actual: wrong, listed: listed.sha256)) {
            try TitleAssembly.check(listed, size: 3, sha256: wrong)
        }
        #expect("\(TitleAssembly.Problem.missing("variant-0/s1.ts"))".contains("variant-0/s1.ts"))
    }
}
