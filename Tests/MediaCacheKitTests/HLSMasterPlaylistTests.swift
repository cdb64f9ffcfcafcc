import Testing
@testable import MediaCacheKit

/// Three variants sharing an audio group (English marked DEFAULT, German AUTOSELECT,
/// commentary neither) and a subtitle group; one I-frame playlist.
let threeVariantMaster = """
    #EXTM3U
    #EXT-X-VERSION:6
    #EXT-X-INDEPENDENT-SEGMENTS
    #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,URI="audio/en.m3u8"
    #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="Deutsch",LANGUAGE="de-DE",DEFAULT=NO,AUTOSELECT=YES,URI="audio/de.m3u8"
    #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="Commentary",LANGUAGE="en-GB",URI="audio/commentary.m3u8"
    #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,URI="subs/en.m3u8"
    #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="Français",LANGUAGE="fr",URI="subs/fr.m3u8"
    #EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc",NAME="CC1",INSTREAM-ID="CC1"
    #EXT-X-STREAM-INF:BANDWIDTH=1280000,AVERAGE-BANDWIDTH=1000000,RESOLUTION=640x360,CODECS="avc1.4d401e,mp4a.40.2",AUDIO="aac",SUBTITLES="subs",CLOSED-CAPTIONS="cc"
    v360/index.m3u8
    #EXT-X-STREAM-INF:BANDWIDTH=5000000,RESOLUTION=1920x1080,FRAME-RATE=29.970,CODECS="avc1.640028,mp4a.40.2",AUDIO="aac",SUBTITLES="subs",CLOSED-CAPTIONS=NONE

    # a comment between the tag and its URI
    v1080/index.m3u8
    #EXT-X-STREAM-INF:BANDWIDTH=2560000,RESOLUTION=1280x720,CODECS="avc1.4d401f,mp4a.40.2",AUDIO="aac",SUBTITLES="subs"
    v720/index.m3u8
    #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=9000000,RESOLUTION=1920x1080,URI="v1080/iframes.m3u8"

    """

let masterURL = "https://cdn.example/vod/title/master.m3u8"

@Suite("HLS master playlists")
struct HLSMasterPlaylistTests {
    @Test func variantsRenditionsAndIFrameStreams() throws {
        let master = try HLSMasterPlaylist(parsing: threeVariantMaster, url: masterURL)
        #expect(master.version == 6)
        #expect(master.hasIndependentSegments)
        #expect(master.variants.map(\.uri) == [
            "https://cdn.example/vod/title/v360/index.m3u8", "https://cdn.example/vod/title/v1080/index.m3u8",
            "https://cdn.example/vod/title/v720/index.m3u8", "https://cdn.example/vod/title/v1080/iframes.m3u8",
        ])
        #expect(master.variants.map(\.isIFrameOnly) == [false, false, false, true])
        let first = master.variants[0]
        #expect(first.bandwidth == 1_280_000)
        #expect(first.averageBandwidth == 1_000_000)
        #expect(first.resolution == HLSResolution(width: 640, height: 360))
        #expect(first.codecs == "avc1.4d401e,mp4a.40.2")
        #expect(first.audioGroup == "aac")
        #expect(first.subtitlesGroup == "subs")
        #expect(first.closedCaptionsGroup == "cc")
        #expect(master.variants[1].frameRate == 29.97)
        #expect(master.variants[1].closedCaptionsGroup == nil)
        #expect(master.variants[1].line == 12)

        #expect(master.renditions.map(\.type) == [.audio, .audio, .audio, .subtitles, .subtitles, .closedCaptions])
        let audio = master.renditions(.audio, group: "aac")
        #expect(audio.map(\.name) == ["English", "Deutsch", "Commentary"])
        #expect(audio.map(\.language) == ["en", "de-DE", "en-GB"])
        #expect(audio.map(\.isDefault) == [true, false, false])
        #expect(audio.map(\.isAutoselect) == [true, true, false])
        #expect(audio[0].uri == "https://cdn.example/vod/title/audio/en.m3u8")
        #expect(master.renditions.last?.uri == nil)
    }

    @Test func theGenericReaderTellsMasterFromMedia() throws {
        guard case .master(let master) = try HLSPlaylist(parsing: threeVariantMaster, url: masterURL) else {
            Issue.record("not read as a master playlist")
            return
        }
        #expect(master.variants.count == 4)
        let media = try HLSPlaylist(parsing: "#EXTM3U\n#EXTINF:1,\na.ts\n#EXT-X-ENDLIST\n", url: masterURL)
        guard case .media(let playlist) = media else {
            Issue.record("not read as a media playlist")
            return
        }
        #expect(playlist.segments.count == 1)
        #expect(throws: PresentationError.wrongKind(url: masterURL, isMaster: true)) {
            try HLSMediaPlaylist(parsing: threeVariantMaster, url: masterURL)
        }
        #expect(throws: PresentationError.wrongKind(url: masterURL, isMaster: false)) {
            try HLSMasterPlaylist(parsing: "#EXTM3U\n#EXTINF:1,\na.ts\n#EXT-X-ENDLIST\n", url: masterURL)
        }
    }

    @Test func defineSubstitutesInURIsAndQuotedValuesAndIsPassedOn() throws {
        let master = try HLSMasterPlaylist(
            parsing: """
                #EXTM3U
                #EXT-X-VERSION:11
                #EXT-X-DEFINE:NAME="host",VALUE="https://media.example"
                #EXT-X-DEFINE:QUERYPARAM="session"
                #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a-{$session}",NAME="Main",URI="{$host}/audio.m3u8?s={$session}"
                #EXT-X-STREAM-INF:BANDWIDTH=1000,AUDIO="a-{$session}"
                {$host}/video.m3u8?s={$session}
                """,
            url: "https://cdn.example/master.m3u8?session=42")
        #expect(master.variants.map(\.uri) == ["https://media.example/video.m3u8?s=42"])
        #expect(master.variants[0].audioGroup == "a-42")
        #expect(master.renditions.map(\.groupID) == ["a-42"])
        #expect(master.renditions.map(\.uri) == ["https://media.example/audio.m3u8?s=42"])
        #expect(master.variables == HLSVariables(["host": "https://media.example", "session": "42"]))
    }

    @Test func sessionKeysAreNotedAndDRMSessionKeysRefused() throws {
        let head = "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n"
        let master = try HLSMasterPlaylist(
            parsing: head + "#EXT-X-SESSION-KEY:METHOD=AES-128,URI=\"key.bin\"\n", url: masterURL)
        #expect(master.sessionKeys == [HLSKey(method: .aes128, uri: "https://cdn.example/vod/title/key.bin")])
        let fairPlay = "#EXT-X-SESSION-KEY:METHOD=SAMPLE-AES,URI=\"skd://key-id\",KEYFORMAT=\"com.apple.streamingkeydelivery\""
        #expect {
            try HLSMasterPlaylist(parsing: head + fairPlay, url: masterURL)
        } throws: { error in
            (error as? PresentationError)?.message.contains("DRM") == true
        }
    }

    @Test(arguments: [
        ("#EXT-X-STREAM-INF:RESOLUTION=1x1\nv.m3u8", 2, "malformed #EXT-X-STREAM-INF: BANDWIDTH is missing"),
        ("#EXT-X-STREAM-INF:BANDWIDTH=1\n#EXT-X-STREAM-INF:BANDWIDTH=2\nv.m3u8", 2, "no URI line follows it"),
        ("#EXT-X-STREAM-INF:BANDWIDTH=1", 2, "no URI line follows it"),
        ("#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"x\"\nv.m3u8", 3, "a URI line without an #EXT-X-STREAM-INF before it"),
        ("#EXT-X-STREAM-INF:BANDWIDTH=1,AUDIO=\"nope\"\nv.m3u8", 2, "AUDIO group 'nope' has no #EXT-X-MEDIA of TYPE=AUDIO"),
        ("#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"x\"\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"x\"", 3, "appears twice"),
        ("#EXT-X-MEDIA:TYPE=TEXT,GROUP-ID=\"a\",NAME=\"x\"", 2, "TYPE must be AUDIO, VIDEO, SUBTITLES or CLOSED-CAPTIONS"),
        ("#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID=\"s\",NAME=\"x\"", 2, "a SUBTITLES rendition needs a URI"),
        ("#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n#EXTINF:1,", 4, "malformed #EXTINF: a media playlist tag in a master playlist"),
        ("#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=1,URI=\"i.m3u8\"", 3, "the master playlist has no #EXT-X-STREAM-INF"),
        ("#EXT-X-DEFINE:IMPORT=\"x\"\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8", 2, "IMPORT belongs in a media playlist"),
    ])
    func malformedMastersNameTheLine(body: String, line: Int, fragment: String) {
        #expect {
            try HLSMasterPlaylist(parsing: "#EXTM3U\n" + body + "\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"z\",NAME=\"z\"\n", url: masterURL)
        } throws: { error in
            let message = (error as? PresentationError)?.message ?? ""
            return message.hasPrefix("\(masterURL) line \(line): ") && message.contains(fragment)
        }
    }
}
