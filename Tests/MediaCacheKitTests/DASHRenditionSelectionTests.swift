import Foundation
import Testing
@testable import MediaCacheKit

private let url = "https://cdn.example/vod/title/manifest.mpd"

/// Three video representations (one in a trick-mode set), audio in three languages
/// (German marked main), two subtitle tracks and a thumbnail set.
private let title = """
    <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT4S">
    <Period>
      <SegmentTemplate media="$RepresentationID$/$Number$.m4s" initialization="$RepresentationID$/init.mp4" duration="2"/>
      <AdaptationSet contentType="video" mimeType="video/mp4">
        <Representation id="360p" bandwidth="800000" width="640" height="360"/>
        <Representation id="1080p" bandwidth="5000000" width="1920" height="1080"/>
        <Representation id="720p" bandwidth="2500000" width="1280" height="720"/>
      </AdaptationSet>
      <AdaptationSet contentType="video">
        <EssentialProperty schemeIdUri="http://dashif.org/guidelines/trickmode" value="1"/>
        <Representation id="trick" bandwidth="9000000" width="1920" height="1080"/>
      </AdaptationSet>
      <AdaptationSet mimeType="audio/mp4" lang="en">
        <Role schemeIdUri="urn:mpeg:dash:role:2011" value="alternate"/>
        <Representation id="en64" bandwidth="64000"/><Representation id="en128" bandwidth="128000"/>
      </AdaptationSet>
      <AdaptationSet mimeType="audio/mp4" lang="de">
        <Role schemeIdUri="urn:mpeg:dash:role:2011" value="main"/>
        <Representation id="de128" bandwidth="128000"/><Representation id="de96" bandwidth="96000"/>
      </AdaptationSet>
      <AdaptationSet contentType="audio" lang="en-GB"><Representation id="gb" bandwidth="1"/></AdaptationSet>
      <AdaptationSet mimeType="application/mp4" codecs="wvtt" lang="en"><Representation id="suben" bandwidth="1"/></AdaptationSet>
      <AdaptationSet contentType="text" lang="fr/ca"><Representation id="subfr" bandwidth="1"/></AdaptationSet>
      <AdaptationSet contentType="image"><Representation id="thumbs" bandwidth="1"/></AdaptationSet>
    </Period>
    </MPD>
    """

private func choose(_ options: RenditionSelectionOptions = .init(), _ text: String = title) throws -> DASHRenditionChoice {
    DASHRenditionSelection.choose(from: try DASHManifest(parsing: text, url: url), options: options)
}

private let defaultAudioAndText = ["audio-de-de128", "text-en-suben", "text-fr_ca-subfr~cce0b1f150a9"]

@Suite("DASH rendition selection")
struct DASHRenditionSelectionTests {
    @Test func defaultIsTheBestVideoTheMainAudioAndEveryTextTrack() throws {
        let choice = try choose()
        #expect(choice.representations.map(\.identity) == ["video-1080p"] + defaultAudioAndText)
        #expect(choice.representations.map(\.kind) == [.video, .audio, .text, .text])
        #expect(choice.representations[0].representation.media.segments.map(\.uri) == [
            "https://cdn.example/vod/title/1080p/1.m4s", "https://cdn.example/vod/title/1080p/2.m4s",
        ])
        #expect(choice.representations.allSatisfy { $0.period == 0 })
        #expect(choice.notes.isEmpty)
    }

    @Test(arguments: [
        (RenditionSelectionOptions(maxHeight: 720), "video-720p"),
        (RenditionSelectionOptions(maxBandwidth: 1_000_000), "video-360p"),
        (RenditionSelectionOptions(maxHeight: 1080, maxBandwidth: 3_000_000), "video-720p"),
    ])
    func limitsPickTheBestVideoWithinThem(options: RenditionSelectionOptions, video: String) throws {
        let choice = try choose(options)
        #expect(choice.representations.map(\.identity) == [video] + defaultAudioAndText)
        #expect(choice.notes.isEmpty)
    }

    @Test func whenNothingFitsTheLowestIsTakenAndTheUserTold() throws {
        let choice = try choose(RenditionSelectionOptions(maxHeight: 240))
        #expect(choice.representations.first?.identity == "video-360p")
        #expect(choice.notes == ["no video representation fits a height of 240 pixels; took the lowest, 640x360 at 800000 bit/s"])
    }

    @Test func allVariantsTakesEveryVideoWithinTheLimitsButNoTrickMode() throws {
        let choice = try choose(RenditionSelectionOptions(maxHeight: 720, allVariants: true))
        #expect(choice.representations.filter { $0.kind == .video }.map(\.identity) == ["video-360p", "video-720p"])
    }

    @Test(arguments: [
        (RenditionSelectionOptions.AudioLanguages.matching(["en"]), ["audio-en-en128", "audio-en_GB-gb~64ddae412b62"]),
        (.matching(["EN-gb", "de"]), ["audio-de-de128", "audio-en_GB-gb~64ddae412b62"]),
        (.all, ["audio-en-en128", "audio-de-de128", "audio-en_GB-gb~64ddae412b62"]),
    ])
    func audioLanguages(languages: RenditionSelectionOptions.AudioLanguages, audio: [String]) throws {
        let choice = try choose(RenditionSelectionOptions(audioLanguages: languages))
        #expect(choice.representations.filter { $0.kind == .audio }.map(\.identity) == audio)
        #expect(choice.notes.isEmpty)
    }

    @Test func aLanguageNoSetHasFallsBackToTheDefaultAndSaysSo() throws {
        let choice = try choose(RenditionSelectionOptions(audioLanguages: .matching(["ja"])))
        #expect(choice.representations.filter { $0.kind == .audio }.map(\.identity) == ["audio-de-de128"])
        #expect(choice.notes == ["no audio adaptation set is in ja; took the default audio"])
    }

    @Test func withoutRoleMainTheFirstAudioSetIsTheDefault() throws {
        let text = """
            <MPD mediaPresentationDuration="PT2S"><Period>
            <AdaptationSet contentType="audio"><Representation id="a" bandwidth="1"><BaseURL>a.mp4</BaseURL></Representation></AdaptationSet>
            <AdaptationSet contentType="audio"><Representation id="b" bandwidth="2"><BaseURL>b.mp4</BaseURL></Representation></AdaptationSet>
            <AdaptationSet><Representation id="c" bandwidth="1"><BaseURL>c.bin</BaseURL></Representation></AdaptationSet>
            </Period></MPD>
            """
        let choice = try choose(.init(), text)
        #expect(choice.representations.map(\.identity) == ["audio-und-a"])
        #expect(choice.notes == ["left out 1 adaptation set that say neither contentType, mimeType nor known codecs"])
    }

    @Test(arguments: [
        ("width=\"640\" height=\"360\"", "width=\"1280\" height=\"720\"", "video-b"),
        ("width=\"1280\" height=\"720\"", "width=\"1280\" height=\"720\"", "video-a"),
    ])
    func bandwidthTiesGoToTheLargerPictureThenTheFirstListed(first: String, second: String, chosen: String) throws {
        let text = """
            <MPD mediaPresentationDuration="PT2S"><Period><AdaptationSet contentType="video">
            <Representation id="a" bandwidth="500" \(first)><BaseURL>a.mp4</BaseURL></Representation>
            <Representation id="b" bandwidth="500" \(second)><BaseURL>b.mp4</BaseURL></Representation>
            </AdaptationSet></Period></MPD>
            """
        #expect(try choose(.init(), text).representations.map(\.identity) == [chosen])
    }

    @Test func periodsWithoutDistinctIdsAreNamedByIndex() throws {
        let period = "<Period duration=\"PT1S\"><AdaptationSet contentType=\"video\"><Representation id=\"v\" bandwidth=\"1\">"
            + "<BaseURL>v.mp4</BaseURL></Representation></AdaptationSet></Period>"
        let text = "<MPD>\(period)\(period.replacingOccurrences(of: "<Period", with: "<Period id=\"x\""))</MPD>"
        #expect(try choose(.init(), text).representations.map(\.identity) == ["video-v-0", "video-v-1"])
    }
}
