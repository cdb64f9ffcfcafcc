import Testing
@testable import MediaCacheKit

@Suite("PlaylistURI")
struct PlaylistURITests {
    static let bases = [
        "http://127.0.0.1:8080/title/index.m3u8",
        "https://cdn.example.com/a/b/c/media.m3u8?token=abc&exp=123",
        "https://cdn.example.com/a/b/c/media.m3u8#frag",
        "http://host.example",
        "http://host.example?x=1",
        "http://host.example/",
        "https://HOST.Example:443/dir/",
        "https://cdn.example.com/a/../b/media.m3u8",
        "https://cdn.example.com/a/./b/media.m3u8",
        "https://cdn.example.com/%7Euser/media.m3u8",
        "https://user:pw@cdn.example.com/dir/media.m3u8",
        "HTTP://cdn.example.com/dir/media.m3u8",
        "https://[::1]:8443/dir/media.m3u8",
        "https://cdn.example.com/dir;v=1/x,y/media.m3u8",
        "https://cdn.example.com/dir/media.m3u8?q=a%2Fb",
        "http://h.example:8080", "http://h.example:65535/x/y.m3u8",
    ]

    static let references = [
        "s00000.ts", "seg-1_a~b.m4s", "video/720p/seg1.ts", "seg.ts?token=xyz&sig=a+b",
        "seg.ts?x=/a:b@c?d", "../seg.ts", "./seg.ts", "a/./b.ts", "a/../b.ts", "..", ".", "a//b.ts",
        "/abs/seg.ts", "//other.example/seg.ts", "https://other.example/seg.ts", "seg.ts#t=1",
        "seg%20one.ts", "seg one.ts", "ü.ts", "seg.ts?", "?only=query", "a:b/seg.ts", "seg.ts?q=%41",
        "...", "a/.../b.ts", "~/x.ts",
    ]

    /// Wherever the plain join answers, it answers what Foundation's resolution does.
    @Test(arguments: bases)
    func thePlainJoinAgreesWithFoundation(base: String) {
        for reference in Self.references {
            guard let joined = PlaylistURI.joinedPlainly(reference, to: base) else { continue }
            let general = try? PlaylistURI.resolvedByFoundation(reference, against: base)
            #expect(joined == general, "\(reference) against \(base)")
        }
    }

    /// The plain join is what a segment line usually is; without it a 1,000-segment
    /// playlist costs the loop thread a tenth of a second.
    @Test func segmentLinesOfPlainPlaylistsTakeThePlainJoin() {
        #expect(PlaylistURI.joinedPlainly("s00000.ts", to: Self.bases[0]) == "http://127.0.0.1:8080/title/s00000.ts")
        #expect(
            PlaylistURI.joinedPlainly("720p/seg1.ts?token=xyz", to: Self.bases[1])
                == "https://cdn.example.com/a/b/c/720p/seg1.ts?token=xyz")
        #expect(PlaylistURI.joinedPlainly("seg.ts", to: "http://host.example?x=1") == "http://host.example/seg.ts")
        for unusual in ["../seg.ts", "./seg.ts", "/abs/seg.ts", "seg.ts#t=1", "seg%20one.ts", "ü.ts", "a//b.ts"] {
            #expect(PlaylistURI.joinedPlainly(unusual, to: Self.bases[0]) == nil, "\(unusual)")
        }
        for base in [
            "https://cdn.example.com/a/../b/m.m3u8", "HTTP://h.example/m.m3u8", "https://u@h.example/m.m3u8",
            "http://h.example:/m.m3u8", "http://h.example:99999/m.m3u8", "http://h.example:0/m.m3u8",
        ] {
            #expect(PlaylistURI.joinedPlainly("seg.ts", to: base) == nil, "\(base)")
        }
    }

    @Test func controlCharactersAreRefusedAndNamed() {
        #expect(throws: PlaylistSyntaxError.self) { try PlaylistURI.resolve("seg\u{7}.ts", against: Self.bases[0]) }
        #expect(throws: PlaylistSyntaxError.self) { try PlaylistURI.resolve("seg\u{85}.ts", against: Self.bases[0]) }
        #expect((try? PlaylistURI.resolve("seg\u{A0}.ts", against: Self.bases[0])) != nil)
    }

    @Test func controlCharactersAreTheUnicodeCcCategory() {
        for value in 0...0x2FF {
            let scalar = Unicode.Scalar(UInt32(value))!
            let text = "a\(scalar)b"
            #expect(ControlCharacters.occur(in: text) == (scalar.properties.generalCategory == .control), "U+\(value)")
        }
        #expect(!ControlCharacters.occur(in: "a\tb", allowingTab: true))
        #expect(ControlCharacters.occur(in: "a\tb"))
        #expect(ControlCharacters.occur(in: "a\u{C2}\u{85}", allowingTab: true))
        #expect(!ControlCharacters.occur(in: "\u{C2}\u{A0}é€😀"))
    }
}
