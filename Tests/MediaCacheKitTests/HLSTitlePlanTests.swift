import Foundation
import Testing
@testable import MediaCacheKit

private let video = "https://cdn.example/t/video/index.m3u8"
private let audio = "https://cdn.example/t/audio/index.m3u8"

private func media(_ text: String, url: String) throws -> HLSMediaPlaylist {
    try HLSMediaPlaylist(parsing: text, url: url)
}

private func rendition(_ identity: String, _ kind: SelectedRendition.Kind, _ playlist: HLSMediaPlaylist)
    -> (SelectedRendition, HLSMediaPlaylist)
{
    (SelectedRendition(identity: identity, kind: kind, uri: playlist.url), playlist)
}

@Suite("HLS title plans and local playlists")
struct HLSTitlePlanTests {
    /// Renditions advance together, each init section before its segments, so whatever
    /// has arrived plays from the start.
    @Test func resourcesComeInPresentationOrderAcrossRenditions() throws {
        let v = try media(
            """
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXT-X-MAP:URI="init.mp4"
            #EXTINF:4,
            v0.m4s
            #EXTINF:4,
            v1.m4s
            #EXT-X-ENDLIST
            """, url: video)
        let a = try media(
            """
            #EXTM3U
            #EXT-X-TARGETDURATION:2
            #EXTINF:2,
            a0.aac
            #EXTINF:2,
            a1.aac
            #EXTINF:2,
            a2.aac
            #EXTINF:2,
            a3.aac
            #EXT-X-ENDLIST
            """, url: audio)
        let plan = HLSTitlePlan(renditions: [rendition("variant-0", .variant, v), rendition("audio-a-en", .audio, a)])
        #expect(
            plan.resources.map(\.path) == [
                "variant-0/init-0.mp4", "variant-0/s0.m4s", "audio-a-en/s0.aac", "audio-a-en/s1.aac",
                "variant-0/s1.m4s", "audio-a-en/s2.aac", "audio-a-en/s3.aac",
            ])
        #expect(plan.resources[1].label == "segment 0 of variant-0")
        #expect(plan.resources.allSatisfy { $0.range == nil })
    }

    /// A single-file title is one resource fetched once, from byte 0 to the end of the
    /// last range; its local playlist keeps the origin's byte ranges into that file.
    @Test func byteRangesOfOneFileAreOneResource() throws {
        let playlist = try media(
            """
            #EXTM3U
            #EXT-X-VERSION:4
            #EXT-X-TARGETDURATION:2
            #EXT-X-MAP:URI="all.mp4",BYTERANGE="800@0"
            #EXTINF:2,
            #EXT-X-BYTERANGE:1000@800
            all.mp4
            #EXTINF:2,
            #EXT-X-BYTERANGE:1200
            all.mp4
            #EXT-X-ENDLIST
            """, url: video)
        let plan = HLSTitlePlan(renditions: [rendition("media", .variant, playlist)])
        #expect(plan.resources.count == 1)
        #expect(plan.resources[0].kind == .rangedFile)
        #expect(plan.resources[0].range == ByteRange(0, 3000))
        let local = HLSLocalPlaylists.media(plan.renditions[0])
        #expect(local.contains("#EXT-X-MAP:URI=\"file-1.mp4\",BYTERANGE=\"800@0\""))
        #expect(local.contains("#EXT-X-BYTERANGE:1000@800\nfile-1.mp4"))
        #expect(local.contains("#EXT-X-BYTERANGE:1200@1800\nfile-1.mp4"))
    }

    /// Keys are stored once however many segments use them; the local playlist says when
    /// each applies, with the IV the origin wrote (or none, for the default IV), and a
    /// discontinuity with a second map survives.
    @Test func keysMapsAndDiscontinuitiesSurviveInTheLocalPlaylist() throws {
        let playlist = try media(
            """
            #EXTM3U
            #EXT-X-TARGETDURATION:2
            #EXT-X-MEDIA-SEQUENCE:7
            #EXT-X-KEY:METHOD=AES-128,URI="https://keys.example/k1?token=abc"
            #EXT-X-MAP:URI="init-a.mp4"
            #EXTINF:2,
            s7.m4s
            #EXTINF:2,
            s8.m4s
            #EXT-X-DISCONTINUITY
            #EXT-X-KEY:METHOD=AES-128,URI="https://keys.example/k2?token=abc",IV=0x000102030405060708090a0b0c0d0e0f
            #EXT-X-MAP:URI="init-b.mp4"
            #EXTINF:2,
            s9.m4s
            #EXTINF:1.5,
            #EXT-X-GAP
            s10.m4s
            #EXT-X-ENDLIST
            """, url: video)
        let plan = HLSTitlePlan(renditions: [rendition("media", .variant, playlist)])
        #expect(
            plan.resources.map(\.path) == [
                "media/key-1.key.ts", "media/init-0.mp4", "media/s7.m4s", "media/s8.m4s", "media/key-2.key.ts",
                "media/init-1.mp4", "media/s9.m4s",
            ])
        let local = HLSLocalPlaylists.media(plan.renditions[0])
        #expect(
            local == """
                #EXTM3U
                #EXT-X-VERSION:8
                #EXT-X-TARGETDURATION:2
                #EXT-X-MEDIA-SEQUENCE:7
                #EXT-X-PLAYLIST-TYPE:VOD
                #EXT-X-KEY:METHOD=AES-128,URI="key-1.key.ts"
                #EXT-X-MAP:URI="init-0.mp4"
                #EXTINF:2,
                s7.m4s
                #EXTINF:2,
                s8.m4s
                #EXT-X-DISCONTINUITY
                #EXT-X-KEY:METHOD=AES-128,URI="key-2.key.ts",IV=0x000102030405060708090A0B0C0D0E0F
                #EXT-X-MAP:URI="init-1.mp4"
                #EXTINF:2,
                s9.m4s
                #EXTINF:1.5,
                #EXT-X-GAP
                gap-10.ts
                #EXT-X-ENDLIST

                """)
        // What was written reads back as the same title.
        let reread = try media(local, url: "http://127.0.0.1:8080/t.title/media/index.m3u8")
        #expect(reread.segments.map(\.mediaSequence) == playlist.segments.map(\.mediaSequence))
        #expect(reread.segments.map(\.discontinuitySequence) == playlist.segments.map(\.discontinuitySequence))
        #expect(reread.segments.map { $0.initializationVector } == playlist.segments.map { $0.initializationVector })
        #expect(reread.segments.map(\.isGap) == playlist.segments.map(\.isGap))
    }

    /// A key applies to the maps written after it: a clear init section declared before
    /// the key of its encrypted segments stays before it, and an encrypted one after it
    /// (players failed to decrypt the clear one, which was written after the key).
    @Test func eachInitSectionKeepsTheKeyItWasDeclaredUnder() throws {
        let playlist = try media(
            """
            #EXTM3U
            #EXT-X-TARGETDURATION:2
            #EXT-X-MAP:URI="clear.mp4"
            #EXT-X-KEY:METHOD=AES-128,URI="k1.bin"
            #EXTINF:2,
            s0.m4s
            #EXTINF:2,
            s1.m4s
            #EXT-X-DISCONTINUITY
            #EXT-X-MAP:URI="sealed.mp4"
            #EXTINF:2,
            s2.m4s
            #EXT-X-DISCONTINUITY
            #EXT-X-KEY:METHOD=NONE
            #EXT-X-MAP:URI="clear.mp4"
            #EXT-X-KEY:METHOD=AES-128,URI="k2.bin"
            #EXTINF:2,
            s3.m4s
            #EXT-X-ENDLIST
            """, url: video)
        let local = HLSLocalPlaylists.media(HLSTitlePlan(renditions: [rendition("media", .variant, playlist)]).renditions[0])
        let tags = local.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-KEY") || $0.hasPrefix("#EXT-X-MAP") || $0.hasSuffix(".m4s") }
        #expect(
            tags == [
                #"#EXT-X-MAP:URI="init-0.mp4""#, #"#EXT-X-KEY:METHOD=AES-128,URI="key-1.key.ts""#, "s0.m4s", "s1.m4s",
                #"#EXT-X-MAP:URI="init-1.mp4""#, "s2.m4s",
                "#EXT-X-KEY:METHOD=NONE", #"#EXT-X-MAP:URI="init-0.mp4""#, #"#EXT-X-KEY:METHOD=AES-128,URI="key-2.key.ts""#,
                "s3.m4s",
            ], "\(local)")
        let reread = try media(local, url: "http://127.0.0.1:8080/t.title/media/index.m3u8")
        #expect(reread.initSections.map { $0.key != nil } == playlist.initSections.map { $0.key != nil })
        #expect(reread.segments.map { $0.key != nil } == playlist.segments.map { $0.key != nil })
    }

    /// The local master names only what was fetched: the chosen variant, its audio, and
    /// no token-bearing URL of the origin.
    @Test func theLocalMasterListsOnlyWhatWasFetched() throws {
        let master = try HLSMasterPlaylist(
            parsing: """
                #EXTM3U
                #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="English",LANGUAGE="en",DEFAULT=YES,URI="audio/en.m3u8?t=1"
                #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="Deutsch",LANGUAGE="de",URI="audio/de.m3u8?t=1"
                #EXT-X-STREAM-INF:BANDWIDTH=500000,RESOLUTION=640x360,AUDIO="aac"
                low.m3u8?t=1
                #EXT-X-STREAM-INF:BANDWIDTH=3000000,RESOLUTION=1920x1080,CODECS="avc1.640028,mp4a.40.2",AUDIO="aac"
                high.m3u8?t=1
                """, url: "https://cdn.example/t/master.m3u8")
        let choice = RenditionSelection.choose(from: master)
        let empty = try media("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\ns.ts\n#EXT-X-ENDLIST\n", url: video)
        let plan = HLSTitlePlan(renditions: choice.renditions.map { ($0, empty) })
        let text = HLSLocalPlaylists.master(master, renditions: plan.renditions, entry: "index.m3u8")
        #expect(
            text == """
                #EXTM3U
                #EXT-X-VERSION:6
                #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,URI="audio-aac-English/index.m3u8"
                #EXT-X-STREAM-INF:BANDWIDTH=3000000,CODECS="avc1.640028,mp4a.40.2",RESOLUTION=1920x1080,AUDIO="aac"
                variant-1/index.m3u8

                """)
        #expect(!text.contains("t=1"))
        let reread = try HLSMasterPlaylist(parsing: text, url: "http://127.0.0.1:8080/t.title/index.m3u8")
        #expect(reread.variants.count == 1 && reread.renditions.count == 1)
    }

    /// A video playlist listed once per audio group (Apple's way), with one group chosen:
    /// the entry of the group not fetched is left out (a player choosing it would play
    /// without sound), the other names its audio.
    /// Audio chosen by a language that is not the group's default still plays by
    /// default: the kept rendition is marked DEFAULT (and so AUTOSELECT).
    @Test func theAudioKeptByLanguageBecomesTheDefault() throws {
        let master = try HLSMasterPlaylist(
            parsing: """
                #EXTM3U
                #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,URI="en.m3u8"
                #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="Deutsch",LANGUAGE="de",DEFAULT=NO,AUTOSELECT=NO,URI="de.m3u8"
                #EXT-X-STREAM-INF:BANDWIDTH=2000000,AUDIO="a"
                v.m3u8
                """, url: "https://cdn.example/t/master.m3u8")
        let choice = RenditionSelection.choose(from: master, options: RenditionSelectionOptions(audioLanguages: .matching(["de"])))
        #expect(choice.renditions.map(\.identity) == ["variant-0", "audio-a-Deutsch"])
        let playlist = try media("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\ns.ts\n#EXT-X-ENDLIST\n", url: video)
        let plan = HLSTitlePlan(renditions: choice.renditions.map { ($0, playlist) })
        let text = HLSLocalPlaylists.master(master, renditions: plan.renditions, entry: "index.m3u8")
        #expect(text.contains("NAME=\"Deutsch\",LANGUAGE=\"de\",DEFAULT=YES,AUTOSELECT=YES,"), "\(text)")
        #expect(!text.contains("English"), "\(text)")
    }

    @Test func anEntryWhoseAudioWasNotFetchedIsLeftOut() throws {
        let master = try HLSMasterPlaylist(
            parsing: """
                #EXTM3U
                #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="English",LANGUAGE="en",DEFAULT=YES,URI="a/aac.m3u8"
                #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="ac3",NAME="English",LANGUAGE="en",DEFAULT=YES,URI="a/ac3.m3u8"
                #EXT-X-STREAM-INF:BANDWIDTH=2000000,CODECS="avc1.64001f,mp4a.40.2",AUDIO="aac"
                v720/index.m3u8
                #EXT-X-STREAM-INF:BANDWIDTH=2000000,CODECS="avc1.64001f,ac-3",AUDIO="ac3"
                v720/index.m3u8
                """, url: "https://cdn.example/t/master.m3u8")
        let choice = RenditionSelection.choose(from: master)
        #expect(choice.renditions.map(\.identity) == ["variant-0", "audio-aac-English"])
        let empty = try media("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\ns.ts\n#EXT-X-ENDLIST\n", url: video)
        let plan = HLSTitlePlan(renditions: choice.renditions.map { ($0, empty) })
        let text = HLSLocalPlaylists.master(master, renditions: plan.renditions, entry: "index.m3u8")
        let reread = try HLSMasterPlaylist(parsing: text, url: "http://127.0.0.1:8080/t.title/index.m3u8")
        #expect(reread.variants.count == 1 && reread.variants.first?.audioGroup == "aac", "\(text)")
        #expect(!text.contains("ac-3"), "\(text)")
    }

    /// What players choose and begin by survives into the local playlists: the start
    /// point, in-band closed captions, channel counts, HDR and HDCP levels, session data
    /// with a value, segments' wall-clock times. Session data that names a URL does not
    /// (nothing fetched it), nor a date-time that is none.
    @Test func whatPlayersChooseByIsKept() throws {
        let master = try HLSMasterPlaylist(
            parsing: """
                #EXTM3U
                #EXT-X-START:TIME-OFFSET=-12.5,PRECISE=YES
                #EXT-X-SESSION-DATA:DATA-ID="com.example.title",VALUE="Big Buck Bunny",LANGUAGE="en"
                #EXT-X-SESSION-DATA:DATA-ID="com.example.lyrics",URI="https://meta.example/lyrics.json?token=secret"
                #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="Surround",LANGUAGE="en",CHANNELS="6",CHARACTERISTICS="public.accessibility.describes-video",DEFAULT=YES,URI="a/51.m3u8"
                #EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc",NAME="English CC",LANGUAGE="en",INSTREAM-ID="CC1",DEFAULT=YES
                #EXT-X-STREAM-INF:BANDWIDTH=8000000,CODECS="hvc1.2.4.L150.B0,ec-3",RESOLUTION=3840x2160,VIDEO-RANGE=PQ,HDCP-LEVEL=TYPE-1,AUDIO="a",CLOSED-CAPTIONS="cc"
                v2160/index.m3u8
                """, url: "https://cdn.example/t/master.m3u8")
        let choice = RenditionSelection.choose(from: master)
        let playlist = try media(
            "#EXTM3U\n#EXT-X-START:TIME-OFFSET=3\n#EXT-X-TARGETDURATION:2\n#EXT-X-PROGRAM-DATE-TIME:2026-11-29T08:00:00.000Z\n"
                + "#EXTINF:2,\ns.ts\n#EXT-X-PROGRAM-DATE-TIME:<script>\n#EXTINF:2,\nt.ts\n#EXT-X-ENDLIST\n", url: video)
        #expect(playlist.start == HLSStart(timeOffset: "3", isPrecise: false))
        #expect(playlist.segments.map(\.programDateTime) == ["2026-11-29T08:00:00.000Z", nil])
        let plan = HLSTitlePlan(renditions: choice.renditions.map { ($0, playlist) })
        let text = HLSLocalPlaylists.master(master, renditions: plan.renditions, entry: "index.m3u8")
        for line in [
            "#EXT-X-START:TIME-OFFSET=-12.5,PRECISE=YES",
            "#EXT-X-SESSION-DATA:DATA-ID=\"com.example.title\",VALUE=\"Big Buck Bunny\",LANGUAGE=\"en\"",
            "#EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID=\"cc\",NAME=\"English CC\",LANGUAGE=\"en\",DEFAULT=YES,AUTOSELECT=YES,INSTREAM-ID=\"CC1\"",
        ] {
            #expect(text.contains(line + "\n"), "\(line) is missing from\n\(text)")
        }
        #expect(!text.contains("lyrics") && !text.contains("secret"), "\(text)")
        let reread = try HLSMasterPlaylist(parsing: text, url: "http://127.0.0.1:8080/t.title/index.m3u8")
        #expect(reread.start == master.start && reread.sessionData == master.sessionData)
        #expect(reread.variants.map(\.closedCaptionsGroup) == ["cc"])
        #expect(reread.variants.map(\.described) == master.variants.map(\.described))
        #expect(reread.renditions.map(\.described) == master.renditions.map(\.described))
        #expect(master.variants[0].described.map(\.name) == ["VIDEO-RANGE", "HDCP-LEVEL"])
        #expect(master.renditions[0].described.map(\.name) == ["CHANNELS", "CHARACTERISTICS"])
        let local = HLSLocalPlaylists.media(plan.renditions[0])
        #expect(local.contains("\n#EXT-X-START:TIME-OFFSET=3\n"), "\(local)")
        #expect(local.contains("\n#EXT-X-PROGRAM-DATE-TIME:2026-11-29T08:00:00.000Z\n#EXTINF:2,\n"), "\(local)")
        #expect(!local.contains("script"), "\(local)")
    }

    @Test func relativePathsBetweenStoredFiles() {
        #expect(HLSLocalPlaylists.relative("variant-0/s1.ts", from: "variant-0/index.m3u8") == "s1.ts")
        #expect(HLSLocalPlaylists.relative("keys/key-1.key.ts", from: "variant-0/index.m3u8") == "../keys/key-1.key.ts")
        #expect(HLSLocalPlaylists.relative("variant-0/index.m3u8", from: "index.m3u8") == "variant-0/index.m3u8")
    }

    /// Stored names never come from a URL's odd extension: players refuse local files
    /// that do not look like media.
    @Test func storedNamesUseMediaExtensions() {
        #expect(HLSTitlePlan.fileExtension("https://a.example/seg1.ts?x=y", fallback: "bin") == "ts")
        #expect(HLSTitlePlan.fileExtension("https://a.example/seg?id=1", fallback: "ts") == "ts")
        #expect(HLSTitlePlan.fileExtension("https://a.example/seg.php", fallback: "m4s") == "m4s")
    }

    /// Durations in local playlists (and DASH's `PT…S`) are plain decimals to the
    /// microsecond, as `%.6f` would write them with trailing zeros trimmed.
    @Test func durationsAreDecimalsToTheMicrosecond() {
        let cases: [(Double, String)] = [
            (0, "0"), (2, "2"), (2.5, "2.5"), (6.006, "6.006"), (0.021333, "0.021333"), (0.000001, "0.000001"),
            (1e-7, "0"), (123456.7, "123456.7"), (10.0000004, "10"), (9.9999996, "10"), (29.97, "29.97"),
        ]
        for (value, text) in cases { #expect(HLSLocalPlaylists.decimal(value) == text, "\(value)") }
        // What muxers write: 90 kHz ticks, milliseconds, microseconds.
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            for value in [
                Double(Int.random(in: 0...90_000_000, using: &random)) / 90_000,
                Double(Int.random(in: 0...10_000_000, using: &random)) / 1_000,
                Double(Int.random(in: 0...100_000_000, using: &random)) / 1_000_000,
            ] {
                var expected = String(format: "%.6f", value)
                while expected.hasSuffix("0") { expected.removeLast() }
                if expected.hasSuffix(".") { expected.removeLast() }
                #expect(HLSLocalPlaylists.decimal(value) == expected, "\(value)")
            }
        }
        // Far outside any duration: the long way, the same text.
        #expect(HLSLocalPlaylists.decimal(1e20) == "100000000000000000000")
        #expect(HLSLocalPlaylists.decimal(-1) == "-1")
    }
}
