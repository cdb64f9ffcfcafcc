import Testing
@testable import MediaCacheKit

private let url = "https://cdn.example/live/index.m3u8"

private func refusal(_ text: String) -> PresentationError? {
    refusal(Array(text.utf8))
}

private func refusal(_ bytes: [UInt8]) -> PresentationError? {
    do {
        _ = try HLSPlaylist(parsing: bytes, url: url)
        return nil
    } catch {
        return error
    }
}

@Suite("HLS refusals")
struct HLSRefusalTests {
    @Test(arguments: [
        "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-MEDIA-SEQUENCE:1200\n#EXTINF:6,\na.ts\n#EXTINF:6,\nb.ts\n",
        "#EXTM3U\n#EXT-X-PLAYLIST-TYPE:EVENT\n#EXTINF:6,\na.ts\n",
        "#EXTM3U\n#EXT-X-TARGETDURATION:6\n",
    ])
    func livePlaylistsAreRefusedAsLive(text: String) {
        let error = refusal(text)
        #expect(error == .live(url: url))
        #expect(error?.message == """
            \(url) is a live playlist (no #EXT-X-ENDLIST and not #EXT-X-PLAYLIST-TYPE:VOD); \
            only complete (VOD) titles are cached: try again when it has ended
            """)
    }

    @Test(arguments: [
        ("#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"skd://abc\",KEYFORMAT=\"com.apple.streamingkeydelivery\",KEYFORMATVERSIONS=\"1\"",
         "the key is a FairPlay skd:// key"),
        ("#EXT-X-KEY:METHOD=AES-128,URI=\"SKD://abc\"", "the key is a FairPlay skd:// key"),
        ("#EXT-X-KEY:METHOD=SAMPLE-AES-CTR,URI=\"data:text/plain;base64,AAAA\",KEYFORMAT=\"urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed\"",
         "SAMPLE-AES-CTR key with KEYFORMAT 'urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed'"),
        ("#EXT-X-KEY:METHOD=AES-128,URI=\"https://lic.example/k\",KEYFORMAT=\"com.microsoft.playready\"",
         "AES-128 key with KEYFORMAT 'com.microsoft.playready'"),
    ])
    func drmIsRefusedAsDRM(keyTag: String, reason: String) {
        let error = refusal("#EXTM3U\n#EXT-X-TARGETDURATION:6\n\(keyTag)\n#EXTINF:6,\na.ts\n#EXT-X-ENDLIST\n")
        #expect(error == .drm(url: url, line: 3, reason: reason))
        #expect(error?.message == "\(url) line 3: the title is DRM-protected (\(reason)); mediacache caches only titles without DRM")
    }

    @Test func sampleAESWithIdentityKeysIsNotDRM() throws {
        let playlist = try HLSMediaPlaylist(
            parsing: "#EXTM3U\n#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"k.bin\",KEYFORMAT=\"identity\"\n#EXTINF:6,\na.ts\n#EXT-X-ENDLIST\n",
            url: url)
        #expect(playlist.segments[0].key?.method == .sampleAES)
    }

    @Test func anUnknownKeyMethodIsNamed() {
        let error = refusal("#EXTM3U\n#EXT-X-KEY:METHOD=AES-256,URI=\"k\"\n#EXTINF:6,\na.ts\n#EXT-X-ENDLIST\n")
        #expect(error == .unknownKeyMethod(url: url, line: 2, method: "AES-256"))
        #expect(error?.message.contains("METHOD=AES-256 is not NONE, AES-128, SAMPLE-AES or SAMPLE-AES-CTR") == true)
    }

    @Test(arguments: [
        Array("<!doctype html><html>Sign in</html>".utf8),
        Array("#EXTM3U8\n#EXTINF:1,\na.ts\n".utf8),
        Array("# comment first\n#EXTM3U\n".utf8),
        [],
        [0x00, 0x00, 0x00, 0x18, 0x66, 0x74, 0x79, 0x70],
    ])
    func notAPlaylist(bytes: [UInt8]) {
        let error = refusal(bytes)
        #expect(error == .notAPlaylist(url: url))
        #expect(error?.message.hasPrefix("\(url) is not an HLS playlist") == true)
    }

    @Test(arguments: [
        ("#EXTINF:abc,\na.ts", 2, "malformed #EXTINF: the value must be a decimal number, found 'abc'"),
        ("#EXTINF:-1,\na.ts", 2, "malformed #EXTINF"),
        ("#EXTINF:1,\n#EXTINF:1,\na.ts", 3, "a second #EXTINF before the segment's URI line"),
        ("a.ts", 2, "a URI line without an #EXTINF before it"),
        ("#EXTINF:1,", 2, "malformed #EXTINF: no URI line follows it"),
        ("#EXTINF:1,\n#EXT-X-BYTERANGE:0@5\na.ts", 3, "malformed #EXT-X-BYTERANGE: the byte range '0@5' is empty"),
        ("#EXTINF:1,\n#EXT-X-BYTERANGE:10@x\na.ts", 3, "the byte range offset must be a decimal integer, found 'x'"),
        ("#EXT-X-MAP:BYTERANGE=\"1@0\"", 2, "malformed #EXT-X-MAP: URI is missing"),
        ("#EXT-X-KEY:URI=\"k\"", 2, "malformed #EXT-X-KEY: METHOD is missing"),
        ("#EXT-X-KEY:METHOD=AES-128", 2, "malformed #EXT-X-KEY: URI is missing"),
        ("#EXT-X-KEY:METHOD=AES-128,URI=\"k\",IV=0x0102030405060708090A0B0C0D0E0F1011", 2, "IV must be a 128-bit number"),
        ("#EXT-X-PLAYLIST-TYPE:LIVE", 2, "the type must be VOD or EVENT"),
        ("#EXTINF:1,\na.ts\n#EXT-X-MEDIA-SEQUENCE:5", 4, "must come before the first segment"),
        ("#EXTINF:1,\nftp://cdn.example/a.ts", 3, "unsupported scheme 'ftp'"),
        ("#EXTINF:1,\nhttp://[::1/a.ts", 3, "is not a valid URI reference"),
        ("#EXTINF:1,\na\u{1B}[31m.ts", 3, "the line contains control characters"),
        ("#EXT-X-TARGETDURATION:6", 3, "the playlist has no media segments"),
    ])
    func malformedInputNamesTheLine(body: String, line: Int, fragment: String) {
        let message = refusal("#EXTM3U\n\(body)\n#EXT-X-ENDLIST\n")?.message ?? ""
        #expect(message.hasPrefix("\(url) line \(line): "), "\(message)")
        #expect(message.contains(fragment), "\(message)")
        #expect(message.hasSuffix("the playlist does not follow RFC 8216 (ask its publisher, or check the URL)"))
    }

    /// `#EXTM3U` alone, or a master without variants, is empty, not live.
    @Test(arguments: ["#EXTM3U\n", "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-INDEPENDENT-SEGMENTS\n"])
    func anEmptyPlaylistIsNamedEmpty(text: String) {
        let message = refusal(text)?.message ?? ""
        #expect(message.contains("the playlist is empty: no media segments, no variants"), "\(message)")
    }

    @Test func aLineThatIsNotUTF8IsRefusedUnlessItIsAComment() throws {
        let latin1Comment: [UInt8] = Array("#EXTM3U\n# caf".utf8) + [0xE9] + Array("\n#EXTINF:1,\na.ts\n#EXT-X-ENDLIST\n".utf8)
        #expect(refusal(latin1Comment) == nil)
        let latin1URI: [UInt8] = Array("#EXTM3U\n#EXTINF:1,\ncaf".utf8) + [0xE9] + Array(".ts\n#EXT-X-ENDLIST\n".utf8)
        #expect(refusal(latin1URI) == .malformed(url: url, line: 3, tag: nil, reason: "the line is not UTF-8 text"))
    }

    @Test func oversizedPlaylistsAreRefusedUnread() {
        let bytes = Array("#EXTM3U\n".utf8) + [UInt8](repeating: UInt8(ascii: "#"), count: PlaylistText.maxBytes)
        #expect(refusal(bytes) == .tooLarge(url: url, bytes: bytes.count))
    }

    @Test func substitutionCannotInflateAPlaylistWithoutBound() {
        let value = String(repeating: "x", count: 1 << 20)
        var text = "#EXTM3U\n#EXT-X-DEFINE:NAME=\"v\",VALUE=\"\(value)\"\n#EXT-X-FUTURE:A=\""
        text += String(repeating: "{$v}", count: 70) + "\"\n"
        // Unknown tags are not read: a bounded reference count there costs nothing.
        #expect(refusal(text + "#EXTINF:1,\na.ts\n#EXT-X-ENDLIST\n") == nil)
        // Each key tag's quoted values are substituted (8 MiB), 9 of them pass 64 MiB.
        let keys = String(repeating: "#EXT-X-KEY:METHOD=NONE,KEYFORMATVERSIONS=\"\(String(repeating: "{$v}", count: 8))\"\n", count: 9)
        let error = refusal(text + keys + "#EXTINF:1,\na.ts\n#EXT-X-ENDLIST\n")
        #expect(error?.message.contains("variable substitution makes the playlist larger than") == true, "\(String(describing: error))")
    }

    @Test func anAES128KeyMustBeSixteenBytes() throws {
        try HLSKey.checkAES128Key(Array(repeating: 7, count: 16), uri: "https://keys.example/k1")
        let page = Array("<html>expired</html>".utf8)
        #expect(throws: PresentationError.badKeyLength(keyURI: "https://keys.example/k1", bytes: page.count)) {
            try HLSKey.checkAES128Key(page, uri: "https://keys.example/k1")
        }
        #expect(
            PresentationError.badKeyLength(keyURI: "https://keys.example/k1", bytes: 20).message
                == "the AES-128 key https://keys.example/k1 is 20 bytes, not 16 (an error page?); check the key URL and the headers it needs")
    }
}
