import Testing
@testable import MediaCacheKit

private func choose(
    _ text: String = threeVariantMaster, _ options: RenditionSelectionOptions = .init()
) throws -> RenditionChoice {
    RenditionSelection.choose(from: try HLSMasterPlaylist(parsing: text, url: masterURL), options: options)
}

private let defaultAudioAndSubtitles = [
    "audio-aac-English", "audio-aac-Deutsch", "subtitles-subs-English", "subtitles-subs-Fran__ais~c65137b0c88d",
]

@Suite("HLS rendition selection")
struct HLSRenditionSelectionTests {
    @Test func defaultIsTheHighestBandwidthWithDefaultOrAutoselectAudioAndEverySubtitle() throws {
        let choice = try choose()
        #expect(choice.renditions.map(\.identity) == ["variant-1"] + defaultAudioAndSubtitles)
        #expect(choice.renditions.map(\.kind) == [.variant, .audio, .audio, .subtitles, .subtitles])
        #expect(choice.renditions.map(\.uri) == [
            "https://cdn.example/vod/title/v1080/index.m3u8", "https://cdn.example/vod/title/audio/en.m3u8",
            "https://cdn.example/vod/title/audio/de.m3u8", "https://cdn.example/vod/title/subs/en.m3u8",
            "https://cdn.example/vod/title/subs/fr.m3u8",
        ])
        #expect(choice.notes.isEmpty)
    }

    @Test(arguments: [
        (RenditionSelectionOptions(maxHeight: 720), "variant-2"),
        (RenditionSelectionOptions(maxHeight: 1080), "variant-1"),
        (RenditionSelectionOptions(maxBandwidth: 2_000_000), "variant-0"),
        (RenditionSelectionOptions(maxHeight: 1080, maxBandwidth: 4_000_000), "variant-2"),
    ])
    func limitsPickTheBestVariantWithinThem(options: RenditionSelectionOptions, variant: String) throws {
        let choice = try choose(threeVariantMaster, options)
        #expect(choice.renditions.map(\.identity) == [variant] + defaultAudioAndSubtitles)
        #expect(choice.notes.isEmpty)
    }

    @Test func whenNothingFitsTheLowestIsTakenAndTheUserTold() throws {
        let choice = try choose(threeVariantMaster, RenditionSelectionOptions(maxHeight: 240, maxBandwidth: 100))
        #expect(choice.renditions.first?.identity == "variant-0")
        #expect(choice.notes == [
            "no variant fits a height of 240 pixels and 100 bit/s; took the lowest, 640x360 at 1280000 bit/s"
        ])
    }

    /// Variants without RESOLUTION cannot be judged by height: the one taken is said so.
    @Test func aVariantOfUnknownHeightTakenUnderMaxHeightIsSaidSo() throws {
        let master = """
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=2270000
            hi/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=736000
            lo/index.m3u8
            """
        let choice = try choose(master, RenditionSelectionOptions(maxHeight: 360))
        #expect(choice.renditions.map(\.uri) == ["https://cdn.example/vod/title/hi/index.m3u8"])
        #expect(choice.notes == [
            "--max-height 360 could not judge a variant the playlist gives no RESOLUTION, and took it; --max-bandwidth chooses by bit rate"
        ])
        #expect(try choose(master).notes.isEmpty)
    }

    @Test func allVariantsShareOneAudioGroupFetchedOnce() throws {
        let choice = try choose(threeVariantMaster, RenditionSelectionOptions(allVariants: true))
        #expect(choice.renditions.map(\.identity) == ["variant-0", "variant-1", "variant-2"] + defaultAudioAndSubtitles)
        let limited = try choose(threeVariantMaster, RenditionSelectionOptions(maxHeight: 720, allVariants: true))
        #expect(limited.renditions.filter { $0.kind == .variant }.map(\.identity) == ["variant-0", "variant-2"])
    }

    /// Apple lists each video playlist once per audio group: each is fetched once, and
    /// every group its entries name still brings its audio.
    @Test func aPlaylistListedOncePerAudioGroupIsOneRendition() throws {
        let master = """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="English",LANGUAGE="en",DEFAULT=YES,URI="a/aac.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="ac3",NAME="English",LANGUAGE="en",DEFAULT=YES,URI="a/ac3.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=2000000,RESOLUTION=1280x720,CODECS="avc1.64001f,mp4a.40.2",AUDIO="aac"
            v720/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2000000,RESOLUTION=1280x720,CODECS="avc1.64001f,ac-3",AUDIO="ac3"
            v720/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360,CODECS="avc1.64001e,mp4a.40.2",AUDIO="aac"
            v360/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360,CODECS="avc1.64001e,ac-3",AUDIO="ac3"
            v360/index.m3u8

            """
        let choice = try choose(master, RenditionSelectionOptions(allVariants: true, audioLanguages: .all))
        #expect(choice.renditions.map(\.identity) == ["variant-0", "variant-2", "audio-aac-English", "audio-ac3-English"])
        #expect(Set(choice.renditions.map(\.uri)).count == choice.renditions.count)
    }

    /// A variant listed again on another server (a backup stream, RFC 8216 6.2.1) is the
    /// same rendition: its URL is the rendition's backup, and `--all-variants` does not
    /// fetch it twice.
    @Test func aVariantListedOnAnotherServerIsABackup() throws {
        let master = """
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=2000000,RESOLUTION=1280x720,CODECS="avc1.64001f,mp4a.40.2"
            https://a.example/v720/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360,CODECS="avc1.64001e,mp4a.40.2"
            https://a.example/v360/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2000000,RESOLUTION=1280x720,CODECS="avc1.64001f,mp4a.40.2"
            https://b.example/v720/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360,CODECS="avc1.64001e,mp4a.40.2"
            https://b.example/v360/index.m3u8

            """
        let best = try choose(master)
        #expect(best.renditions.map(\.identity) == ["variant-0"])
        #expect(best.renditions.first?.backups == ["https://b.example/v720/index.m3u8"])
        let all = try choose(master, RenditionSelectionOptions(allVariants: true))
        #expect(all.renditions.map(\.identity) == ["variant-0", "variant-1"])
        #expect(all.renditions.map(\.backups) == [["https://b.example/v720/index.m3u8"], ["https://b.example/v360/index.m3u8"]])
    }

    /// A backup stream whose audio is in a group of its own (a group names each
    /// rendition once, so a second server's copy needs another group): the variants are
    /// copies, and each audio rendition has the same-named one of the other group as its
    /// backup; the backup's group is not fetched as more audio.
    @Test func aBackupStreamsAudioInItsOwnGroupIsTheAudiosBackup() throws {
        let master = """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="stereo",NAME="English",LANGUAGE="en",DEFAULT=YES,URI="https://a.example/en.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="stereo",NAME="Deutsch",LANGUAGE="de",URI="https://a.example/de.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="stereob",NAME="English",LANGUAGE="en",DEFAULT=YES,URI="https://b.example/en.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="stereob",NAME="Deutsch",LANGUAGE="de",URI="https://b.example/de.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=2000000,RESOLUTION=1280x720,AUDIO="stereo"
            https://a.example/v720.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2000000,RESOLUTION=1280x720,AUDIO="stereob"
            https://b.example/v720.m3u8

            """
        let choice = try choose(master, RenditionSelectionOptions(allVariants: true, audioLanguages: .all))
        #expect(choice.renditions.map(\.identity) == ["variant-0", "audio-stereo-English", "audio-stereo-Deutsch"])
        #expect(choice.renditions.map(\.backups) == [
            ["https://b.example/v720.m3u8"], ["https://b.example/en.m3u8"], ["https://b.example/de.m3u8"],
        ])
        // Groups that hold other renditions are another stream's, not a copy's.
        let other = master.replacingOccurrences(of: "GROUP-ID=\"stereob\",NAME=\"Deutsch\"", with: "GROUP-ID=\"stereob\",NAME=\"Français\"")
        #expect(try choose(other).renditions.first?.backups == [])
    }

    @Test(arguments: [
        (RenditionSelectionOptions.AudioLanguages.matching(["en"]), ["audio-aac-English", "audio-aac-Commentary"]),
        (.matching(["DE"]), ["audio-aac-Deutsch"]),
        // ISO 639-2, as DASH packagers write it, names the same language.
        (.matching(["ger"]), ["audio-aac-Deutsch"]),
        (.matching(["en-GB", "de"]), ["audio-aac-Deutsch", "audio-aac-Commentary"]),
        (.all, ["audio-aac-English", "audio-aac-Deutsch", "audio-aac-Commentary"]),
    ])
    func audioLanguages(languages: RenditionSelectionOptions.AudioLanguages, audio: [String]) throws {
        let choice = try choose(threeVariantMaster, RenditionSelectionOptions(audioLanguages: languages))
        #expect(choice.renditions.filter { $0.kind == .audio }.map(\.identity) == audio)
        #expect(choice.notes.isEmpty)
    }

    @Test func aLanguageNoRenditionHasFallsBackToTheDefaultAndSaysSo() throws {
        let choice = try choose(threeVariantMaster, RenditionSelectionOptions(audioLanguages: .matching(["ja", "kor"])))
        #expect(choice.renditions.filter { $0.kind == .audio }.map(\.identity) == ["audio-aac-English", "audio-aac-Deutsch"])
        #expect(choice.notes == ["no audio rendition is in ja, kor; took the default audio"])
    }

    @Test func aGroupWithNothingMarkedIsTakenWhole() throws {
        let choice = try choose(
            """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="stereo",NAME="one",URI="a1.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="stereo",NAME="two-b",URI="a2.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=100,AUDIO="stereo"
            v.m3u8
            """)
        #expect(choice.renditions.map(\.identity) == ["variant-0", "audio-stereo-one", "audio-stereo-two_b~69f8c0a1f427"])
    }

    @Test func audioInsideTheVariantAddsNothingToFetch() throws {
        let choice = try choose(
            """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="muxed",NAME="main",DEFAULT=YES
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="muxed",NAME="same",AUTOSELECT=YES,URI="v.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=100,AUDIO="muxed"
            v.m3u8
            """)
        #expect(choice.renditions.map(\.identity) == ["variant-0"])
    }

    @Test(arguments: [
        // Same bandwidth: the larger picture wins; same picture too: the first listed.
        ("RESOLUTION=640x360", "RESOLUTION=1280x720", "variant-1"),
        ("RESOLUTION=1280x720", "RESOLUTION=1280x720", "variant-0"),
        ("CODECS=\"mp4a.40.2\"", "RESOLUTION=16x16", "variant-1"),
    ])
    func bandwidthTiesGoToTheLargerPictureThenTheFirstListed(first: String, second: String, chosen: String) throws {
        let choice = try choose(
            "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=500,\(first)\na.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=500,\(second)\nb.m3u8\n")
        #expect(choice.renditions.map(\.identity) == [chosen])
    }

    @Test func aMediaPlaylistGivenDirectlyIsOneRendition() throws {
        let url = "https://cdn.example/only/index.m3u8"
        let playlist = try HLSPlaylist(parsing: "#EXTM3U\n#EXTINF:1,\na.ts\n#EXT-X-ENDLIST\n", url: url)
        #expect(RenditionSelection.choose(from: playlist).renditions == [
            SelectedRendition(identity: "media", kind: .variant, uri: url)
        ])
    }

    @Test func identitiesAreFileNameSafeDistinctAndBounded() {
        #expect(RenditionIdentity.of(.audio, group: "a-b", name: "c") != RenditionIdentity.of(.audio, group: "a", name: "b-c"))
        // Unsafe bytes become `_`, and a digest of the names as given keeps them apart:
        // nothing in a name needs a percent-escape in a playlist URI.
        let odd = RenditionIdentity.of(.audio, group: "../x", name: "a/b\n")
        #expect(odd == "audio-.._x-a_b_~c89b9663b4f3")
        #expect(odd != RenditionIdentity.of(.audio, group: "../x", name: "a/b_"))
        #expect(RenditionIdentity.of(.audio, group: "aac", name: "English") == "audio-aac-English")
        let long = RenditionIdentity.of(.subtitles, group: "g", name: String(repeating: "n", count: 500))
        let longer = RenditionIdentity.of(.subtitles, group: "g", name: String(repeating: "n", count: 501))
        #expect(long.utf8.count == RenditionIdentity.maxLength)
        #expect(long != longer)
        #expect(long.hasPrefix("subtitles-g-nnn"))
    }
}

/// A language choice (`--audio-lang de`) takes the tag in BCP 47 and in either ISO 639-2
/// form, as DASH packagers write it (ffmpeg: `lang="deu"`).
@Suite("Language codes")
struct LanguageCodeTests {
    @Test(arguments: [
        ("de", "de"), ("deu", "de"), ("ger", "de"), ("de-AT", "de"), ("DEU", "de"), ("eng", "en"), ("en-GB", "en"),
        ("de", "deu"), ("pt-BR", "pt-br"), ("zho", "zh"), ("chi", "zh"),
    ])
    func theseAreTheLanguageWanted(tag: String, wanted: String) {
        #expect(LanguageCode.matches(tag, wanted))
    }

    @Test(arguments: [("en", "de"), ("deu", "da"), ("pt", "pt-br"), ("pt-PT", "pt-br"), ("dan", "de"), ("", "de")])
    func theseAreNot(tag: String, wanted: String) {
        #expect(!LanguageCode.matches(tag, wanted))
    }
}
