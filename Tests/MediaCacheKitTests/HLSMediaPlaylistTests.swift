import Testing
@testable import MediaCacheKit

private let base = "https://cdn.example/vod/title/720p/index.m3u8"

private func media(_ text: String, url: String = base, imports: HLSVariables? = nil) throws -> HLSMediaPlaylist {
    try HLSMediaPlaylist(parsing: text, url: url, imports: imports)
}

@Suite("HLS media playlists")
struct HLSMediaPlaylistTests {
    /// The shape ffmpeg's hls muxer writes for fMP4 (`-hls_segment_type fmp4`).
    @Test func ffmpegFMP4Playlist() throws {
        let playlist = try media(
            """
            #EXTM3U
            #EXT-X-VERSION:6
            #EXT-X-TARGETDURATION:2
            #EXT-X-MEDIA-SEQUENCE:0
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-MAP:URI="init.mp4"
            #EXTINF:2.000000,
            out0.m4s
            #EXTINF:2.000000,
            out1.m4s
            #EXTINF:1.000000,
            out2.m4s
            #EXT-X-ENDLIST

            """)
        #expect(playlist.version == 6)
        #expect(playlist.targetDuration == 2)
        #expect(playlist.hasIndependentSegments)
        #expect(playlist.playlistType == nil)
        #expect(playlist.initSections == [HLSInitSection(uri: "https://cdn.example/vod/title/720p/init.mp4")])
        #expect(playlist.segments.map(\.uri) == (0..<3).map { "https://cdn.example/vod/title/720p/out\($0).m4s" })
        #expect(playlist.segments.map(\.duration) == [2, 2, 1])
        #expect(playlist.duration == 5)
        #expect(playlist.segments.map(\.mediaSequence) == [0, 1, 2])
        #expect(playlist.segments.allSatisfy { $0.initSection == 0 && $0.key == nil && !$0.isGap && $0.byteRange == nil })
        #expect(playlist.segments.map(\.line) == [8, 10, 12])
    }

    /// ffmpeg's `-hls_flags single_file`: one resource, explicit offsets; and the same
    /// file with implicit offsets after the first, which continue from the previous range.
    @Test(arguments: [
        "#EXT-X-BYTERANGE:7708@0\nsingle.ts\n#EXTINF:2.0,\n#EXT-X-BYTERANGE:6956@7708\nsingle.ts\n#EXTINF:1,\n#EXT-X-BYTERANGE:3572@14664",
        "#EXT-X-BYTERANGE:7708@0\nsingle.ts\n#EXTINF:2.0,\n#EXT-X-BYTERANGE:6956\nsingle.ts\n#EXTINF:1,\n#EXT-X-BYTERANGE:3572",
    ])
    func byteRangesOfOneFile(ranges: String) throws {
        let playlist = try media("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.000000,\n\(ranges)\nsingle.ts\n#EXT-X-ENDLIST\n")
        #expect(playlist.segments.map(\.byteRange) == [ByteRange(0, 7708), ByteRange(7708, 14664), ByteRange(14664, 18236)])
        #expect(Set(playlist.segments.map(\.uri)) == ["https://cdn.example/vod/title/720p/single.ts"])
    }

    @Test func anImplicitOffsetContinuesTheSameResourceNotTheLastSegment() throws {
        let playlist = try media(
            """
            #EXTM3U
            #EXTINF:1,
            #EXT-X-BYTERANGE:100@50
            a.ts
            #EXTINF:1,
            #EXT-X-BYTERANGE:10@0
            b.ts
            #EXTINF:1,
            #EXT-X-BYTERANGE:30
            a.ts
            #EXT-X-ENDLIST
            """)
        #expect(playlist.segments.map(\.byteRange) == [ByteRange(50, 150), ByteRange(0, 10), ByteRange(150, 180)])
    }

    @Test func anImplicitOffsetWithoutAnEarlierRangeOfThatURIIsRefused() {
        let text = "#EXTM3U\n#EXTINF:1,\n#EXT-X-BYTERANGE:100@0\na.ts\n#EXTINF:1,\n#EXT-X-BYTERANGE:100\nb.ts\n#EXT-X-ENDLIST\n"
        #expect(throws: PresentationError.malformed(
            url: base, line: 7, tag: nil,
            reason: "the byte range 100 has no @offset and no earlier byte range of the same URI to follow")) {
            try media(text)
        }
    }

    @Test func aByteRangePastTwoToTheSixtyThirdIsRefusedNotWrapped() {
        let text = "#EXTM3U\n#EXTINF:1,\n#EXT-X-BYTERANGE:2@9223372036854775807\na.ts\n#EXT-X-ENDLIST\n"
        #expect(throws: PresentationError.self) { try media(text) }
        let huge = "#EXTM3U\n#EXTINF:1,\n#EXT-X-BYTERANGE:99999999999999999999@0\na.ts\n#EXT-X-ENDLIST\n"
        #expect(throws: PresentationError.self) { try media(huge) }
    }

    /// A discontinuity with a second EXT-X-MAP: the segments after it use the new map
    /// (the case that breaks yt-dlp #4777 and N_m3u8DL-RE #501).
    @Test func twoMapsAcrossADiscontinuity() throws {
        let playlist = try media(
            """
            #EXTM3U
            #EXT-X-VERSION:6
            #EXT-X-TARGETDURATION:4
            #EXT-X-DISCONTINUITY-SEQUENCE:3
            #EXT-X-MAP:URI="main/init.mp4"
            #EXTINF:4,
            main/0.m4s
            #EXTINF:4,
            main/1.m4s
            #EXT-X-DISCONTINUITY
            #EXT-X-MAP:URI="ad/init.mp4",BYTERANGE="700@100"
            #EXTINF:3,
            ad/0.m4s
            #EXT-X-DISCONTINUITY
            #EXT-X-MAP:URI="main/init.mp4"
            #EXTINF:4,
            main/2.m4s
            #EXT-X-ENDLIST
            """)
        let folder = "https://cdn.example/vod/title/720p/"
        #expect(playlist.initSections == [
            HLSInitSection(uri: folder + "main/init.mp4"),
            HLSInitSection(uri: folder + "ad/init.mp4", byteRange: ByteRange(100, 800)),
        ])
        #expect(playlist.segments.map(\.initSection) == [0, 0, 1, 0])
        #expect(playlist.segments.map(\.discontinuitySequence) == [3, 3, 4, 5])
        #expect(playlist.initSection(of: playlist.segments[2])?.uri == folder + "ad/init.mp4")
    }

    @Test func keyRotationAndTheDefaultIV() throws {
        let playlist = try media(
            """
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-MEDIA-SEQUENCE:258
            #EXT-X-KEY:METHOD=AES-128,URI="keys/k1.bin"
            #EXTINF:6,
            s0.ts
            #EXTINF:6,
            s1.ts
            #EXT-X-KEY:METHOD=AES-128,URI="/keys/k2.bin",IV=0x000102030405060708090A0B0C0D0E0F,KEYFORMAT="identity"
            #EXTINF:6,
            s2.ts
            #EXT-X-KEY:METHOD=NONE
            #EXTINF:6,
            s3.ts
            #EXT-X-ENDLIST
            """)
        let segments = playlist.segments
        #expect(segments.map(\.key?.uri) == [
            "https://cdn.example/vod/title/720p/keys/k1.bin", "https://cdn.example/vod/title/720p/keys/k1.bin",
            "https://cdn.example/keys/k2.bin", nil,
        ])
        #expect(segments[0].key?.method == .aes128)
        // 258 = 0x0102, big-endian in 16 bytes.
        #expect(segments[0].initializationVector == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x02])
        #expect(segments[1].initializationVector == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x03])
        #expect(segments[2].initializationVector == Array(0...15))
        #expect(segments[3].initializationVector == nil)
    }

    @Test func aShortIVIsAOneHundredTwentyEightBitNumber() throws {
        let playlist = try media("#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI=\"k\",IV=0x1\n#EXTINF:1,\na.ts\n#EXT-X-ENDLIST\n")
        #expect(playlist.segments[0].initializationVector == Array(repeating: 0, count: 15) + [1])
    }

    @Test func gapSegmentsAreMarkedAndKeepTheirPlace() throws {
        let playlist = try media(
            "#EXTM3U\n#EXTINF:4,\na.ts\n#EXT-X-GAP\n#EXTINF:4,\nmissing.ts\n#EXTINF:4,\nc.ts\n#EXT-X-ENDLIST\n")
        #expect(playlist.segments.map(\.isGap) == [false, true, false])
        #expect(playlist.segments.map(\.mediaSequence) == [0, 1, 2])
    }

    /// Relative references against the final URL after a redirect, not the one asked for.
    @Test(arguments: [
        ("seg.ts", "https://edge2.example/a/b/seg.ts"),
        ("../c/seg.ts", "https://edge2.example/a/c/seg.ts"),
        ("../../../../seg.ts", "https://edge2.example/seg.ts"),
        ("/root/seg.ts", "https://edge2.example/root/seg.ts"),
        ("//other.example/x/seg.ts", "https://other.example/x/seg.ts"),
        ("http://plain.example/seg.ts", "http://plain.example/seg.ts"),
        ("seg.ts?t=1#frag", "https://edge2.example/a/b/seg.ts?t=1"),
        ("seg 1.ts", "https://edge2.example/a/b/seg%201.ts"),
    ])
    func relativeURIsResolveAgainstTheRedirectedURL(reference: String, expected: String) throws {
        let playlist = try media(
            "#EXTM3U\n#EXTINF:1,\n\(reference)\n#EXT-X-ENDLIST\n", url: "https://edge2.example/a/b/index.m3u8?token=x")
        #expect(playlist.segments.map(\.uri) == [expected])
    }

    @Test func defineWithValueQueryParamAndImport() throws {
        let playlist = try media(
            """
            #EXTM3U
            #EXT-X-VERSION:11
            #EXT-X-DEFINE:IMPORT="cdn"
            #EXT-X-DEFINE:QUERYPARAM="token"
            #EXT-X-DEFINE:NAME="quality",VALUE="hd"
            #EXT-X-MAP:URI="{$cdn}/{$quality}/init.mp4?token={$token}"
            #EXTINF:2,
            {$cdn}/{$quality}/0.m4s?token={$token}
            #EXTINF:2,
            {$quality}/{not-a-reference}/{$ 1.m4s
            #EXT-X-ENDLIST
            """,
            url: "https://cdn.example/t/index.m3u8?token=a%20b&x=1",
            imports: HLSVariables(["cdn": "https://media.example", "unused": "u"]))
        #expect(playlist.initSections.map(\.uri) == ["https://media.example/hd/init.mp4?token=a%20b"])
        #expect(playlist.segments.map(\.uri) == [
            "https://media.example/hd/0.m4s?token=a%20b",
            "https://cdn.example/t/hd/%7Bnot-a-reference%7D/%7B$%201.m4s",
        ])
        #expect(playlist.variables == HLSVariables(["cdn": "https://media.example", "token": "a b", "quality": "hd"]))
    }

    @Test(arguments: [
        ("#EXT-X-DEFINE:IMPORT=\"cdn\"", nil, "this playlist was not loaded from a master playlist"),
        ("#EXT-X-DEFINE:IMPORT=\"cdn\"", HLSVariables(["other": "x"]), "which the master playlist does not define"),
        ("#EXT-X-DEFINE:QUERYPARAM=\"missing\"", nil, "the playlist URL has no such query parameter"),
        ("#EXT-X-DEFINE:NAME=\"a\",VALUE=\"1\"\n#EXT-X-DEFINE:NAME=\"a\",VALUE=\"2\"", nil, "variable a is defined twice"),
        ("#EXT-X-DEFINE:NAME=\"a b\",VALUE=\"1\"", nil, "is not letters, digits, - and _"),
        ("#EXT-X-DEFINE:NAME=\"a\"", nil, "VALUE is missing"),
        ("", nil, "variable {$cdn} is not defined by an EXT-X-DEFINE above"),
    ])
    func badVariablesAreRefused(define: String, imports: HLSVariables?, reason: String) {
        let text = "#EXTM3U\n\(define)\n#EXTINF:1,\n{$cdn}/a.ts\n#EXT-X-ENDLIST\n"
        #expect {
            try media(text, imports: imports)
        } throws: { error in
            guard case .malformed(let url, _, _, let message) = error as? PresentationError else { return false }
            return url == base && message.contains(reason)
        }
    }

    @Test func crlfLineEndingsAndAByteOrderMark() throws {
        let text = "#EXTM3U \r\n#EXT-X-TARGETDURATION:2\r\n\r\n#EXTINF:2.0,title\r\nout0.ts\t\r\n#EXT-X-ENDLIST\r\n"
        let playlist = try HLSMediaPlaylist(parsing: [0xEF, 0xBB, 0xBF] + Array(text.utf8), url: base)
        #expect(playlist.segments.map(\.uri) == ["https://cdn.example/vod/title/720p/out0.ts"])
        #expect(playlist.segments.map(\.line) == [5])
    }

    @Test func aPlaylistTypeVODWithoutEndListIsComplete() throws {
        let playlist = try media("#EXTM3U\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:1,\na.ts\n")
        #expect(playlist.playlistType == .vod)
        #expect(playlist.segments.count == 1)
    }

    @Test func unknownTagsCommentsAndDateTimesAreIgnored() throws {
        let playlist = try media(
            """
            #EXTM3U
            # a comment with latin-1 is fine too
            #EXT-X-FUTURE-TAG:WHATEVER=1,,,"
            #EXT-X-PROGRAM-DATE-TIME:2024-10-01T10:00:00.000Z
            #EXTINF:1,
            a.ts
            #EXT-X-ENDLIST
            """)
        #expect(playlist.segments.count == 1)
    }
}
