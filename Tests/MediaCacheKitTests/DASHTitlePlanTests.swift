import Testing
@testable import MediaCacheKit

private let origin = "https://cdn.example/vod/manifest.mpd?token=abc"
private let local = "http://127.0.0.1/title/manifest.mpd"

private func mpd(_ body: String, duration: String = "PT5S") -> String {
    "<MPD xmlns=\"urn:mpeg:dash:schema:mpd:2011\" type=\"static\" mediaPresentationDuration=\"\(duration)\">\n"
        + body + "\n</MPD>\n"
}

/// The default choice of `text` planned.
private func plan(_ text: String, url: String = origin) throws -> DASHTitlePlan {
    let manifest = try DASHManifest(parsing: text, url: url)
    return DASHTitlePlan(manifest: manifest, chosen: DASHRenditionSelection.choose(from: manifest).representations)
}

/// The local MPD of `plan` read back at `local`: every representation has the same
/// segments (numbers, byte ranges, durations to the microsecond), each URI the stored
/// file's.
private func expectRoundTrip(
    _ plan: DASHTitlePlan, options: RenditionSelectionOptions = .init(), sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let text = DASHLocalManifest.mpd(plan)
    let reread = try DASHManifest(parsing: text, url: local)
    #expect(reread.duration == plan.manifest.duration, sourceLocation: sourceLocation)
    let again = DASHRenditionSelection.choose(from: reread, options: options).representations
    #expect(again.map(\.identity) == plan.renditions.map(\.selected.identity), sourceLocation: sourceLocation)
    let base = "http://127.0.0.1/title/"
    for (rendition, copy) in zip(plan.renditions, again) {
        let original = rendition.selected.representation
        let read = copy.representation
        func stored(_ uri: String) -> String { base + (rendition.storedPaths[uri] ?? "?") }
        #expect(read.id == original.id, sourceLocation: sourceLocation)
        #expect(read.bandwidth == original.bandwidth && read.codecs == original.codecs, sourceLocation: sourceLocation)
        #expect(read.width == original.width && read.height == original.height, sourceLocation: sourceLocation)
        #expect(read.mimeType == original.mimeType, sourceLocation: sourceLocation)
        #expect(read.initialization?.uri == original.initialization.map { stored($0.uri) }, sourceLocation: sourceLocation)
        #expect(read.initialization?.byteRange == original.initialization?.byteRange, sourceLocation: sourceLocation)
        let segments = read.media.segments
        let expected = original.media.segments
        #expect(segments.map(\.uri) == expected.map { stored($0.uri) }, sourceLocation: sourceLocation)
        #expect(segments.map(\.byteRange) == expected.map(\.byteRange), sourceLocation: sourceLocation)
        // Numbered from 1: the local MPD writes no startNumber (ffmpeg 5.1 refuses it).
        #expect(segments.map(\.number) == Array(1...max(1, expected.count)).prefix(expected.count).map { $0 }, sourceLocation: sourceLocation)
        // Each segment's time and duration exactly as the origin's MPD placed it.
        #expect(segments.map(\.time) == expected.map(\.time), sourceLocation: sourceLocation)
        #expect(segments.map(\.duration) == expected.map(\.duration), sourceLocation: sourceLocation)
        if !expected.isEmpty, expected[0].time != nil {
            #expect(read.segmentTiming == original.segmentTiming, sourceLocation: sourceLocation)
        }
        if case .singleFile(let uri) = original.media {
            #expect(read.media == .singleFile(uri: stored(uri)), sourceLocation: sourceLocation)
        }
        // Where a single file's header and index lie holds of the stored copy too.
        #expect(read.fileIndex == original.fileIndex, sourceLocation: sourceLocation)
    }
}

@Suite("DASH title plans")
struct DASHTitlePlanTests {
    static let template = mpd(
        """
        <Period>
          <AdaptationSet contentType="video" mimeType="video/mp4">
            <SegmentTemplate timescale="1000" duration="2000" initialization="$RepresentationID$/init.mp4"
              media="$RepresentationID$/seg-$Number$.m4s?tok=1"/>
            <Representation id="v1" bandwidth="1000" width="640" height="360" codecs="avc1.4d401e"/>
            <Representation id="v2" bandwidth="2000" width="1280" height="720" codecs="avc1.4d401f"/>
          </AdaptationSet>
          <AdaptationSet contentType="audio" lang="en" mimeType="audio/mp4" codecs="mp4a.40.2">
            <Role schemeIdUri="urn:mpeg:dash:role:2011" value="main"/>
            <SegmentTemplate timescale="1000" duration="2500" initialization="a/init" media="a/$Number$"/>
            <Representation id="a1" bandwidth="64000"/>
          </AdaptationSet>
        </Period>
        """)

    @Test func templateInPresentationOrderWithPathsFromIdentityAndNumber() throws {
        let plan = try plan(Self.template)
        #expect(plan.resources.map(\.path) == [
            "video-v2/init.mp4", "video-v2/s1.m4s", "audio-en-a1/init.mp4", "audio-en-a1/s1.m4s",
            "video-v2/s2.m4s", "audio-en-a1/s2.m4s", "video-v2/s3.m4s",
        ])
        #expect(plan.resources[1].url == "https://cdn.example/vod/v2/seg-1.m4s?tok=1")
        #expect(plan.resources.map(\.kind) == [.initSection, .segment, .initSection, .segment, .segment, .segment, .segment])
        #expect(plan.resources.allSatisfy { $0.range == nil })
        #expect(plan.resources[4].label == "segment 2 of video-v2")
        #expect(Set(plan.shapes.keys) == ["video-v2", "audio-en-a1"])
        try expectRoundTrip(plan)
    }

    @Test func freshTokensKeepTheShapeAndARecutChangesIt() throws {
        let first = try plan(Self.template)
        let tokens = try plan(Self.template.replacingOccurrences(of: "tok=1", with: "tok=2"), url: origin + "x")
        #expect(tokens.shapes == first.shapes)
        #expect(tokens.resources.map(\.path) == first.resources.map(\.path))
        let recut = try plan(Self.template.replacingOccurrences(of: "duration=\"2500\"", with: "duration=\"2000\""))
        #expect(recut.shapes["audio-en-a1"] != first.shapes["audio-en-a1"])
        #expect(recut.shapes["video-v2"] == first.shapes["video-v2"])
    }

    @Test func timelineWithTimeNamesByNumberNotTime() throws {
        let plan = try plan(
            mpd(
                """
                <Period><AdaptationSet contentType="video">
                  <Representation id="v" bandwidth="1" mimeType="video/mp4" codecs="avc1">
                    <SegmentTemplate timescale="10" startNumber="5" initialization="init-$RepresentationID$.mp4" media="t-$Time$.m4s">
                      <SegmentTimeline><S t="100" d="20" r="1"/><S d="10"/></SegmentTimeline>
                    </SegmentTemplate>
                  </Representation>
                </AdaptationSet></Period>
                """))
        #expect(plan.resources.map(\.path) == ["video-v/init.mp4", "video-v/s5.m4s", "video-v/s6.m4s", "video-v/s7.m4s"])
        #expect(plan.resources.map(\.url).last == "https://cdn.example/vod/t-140.m4s")
        #expect(DASHLocalManifest.mpd(plan).contains(
            "<SegmentList timescale=\"10\">\n        <SegmentTimeline><S t=\"100\" d=\"20\" r=\"1\"/><S d=\"10\"/></SegmentTimeline>"))
        try expectRoundTrip(plan)
    }

    /// Live-to-VOD MPDs start their media times far from 0, with a presentationTimeOffset
    /// saying where the Period starts, and may skip a stretch: the local MPD keeps the
    /// timescale, the offset and every time, so a player placing segments by them (dash.js,
    /// Shaka) finds them where the origin's MPD did.
    @Test func theOriginsTimesOffsetAndGapsAreKept() throws {
        let plan = try plan(
            mpd(
                """
                <Period><AdaptationSet contentType="video">
                  <Representation id="v" bandwidth="1" mimeType="video/mp4" codecs="avc1">
                    <SegmentTemplate timescale="90000" presentationTimeOffset="162000000000" initialization="i.mp4" media="$Time$.m4s">
                      <SegmentTimeline><S t="162000000000" d="180000" r="2"/><S t="162000720000" d="180000"/><S d="90000"/></SegmentTimeline>
                    </SegmentTemplate>
                  </Representation>
                </AdaptationSet></Period>
                """, duration: "PT11S"))
        let text = DASHLocalManifest.mpd(plan)
        #expect(text.contains(
            "<SegmentList timescale=\"90000\" presentationTimeOffset=\"162000000000\">\n        <SegmentTimeline>"
                + "<S t=\"162000000000\" d=\"180000\" r=\"2\"/><S t=\"162000720000\" d=\"180000\"/><S d=\"90000\"/>"
                + "</SegmentTimeline>"), "\(text)")
        try expectRoundTrip(plan)
    }

    /// Representations of one set that share their timeline get it once, on the set's
    /// own SegmentList (where ffmpeg looks for it to seek); ones that differ keep their own.
    @Test func aTimelineTheSetSharesIsWrittenOnTheSet() throws {
        let options = RenditionSelectionOptions(allVariants: true)
        func allVariants(_ text: String) throws -> DASHTitlePlan {
            let manifest = try DASHManifest(parsing: text, url: origin)
            return DASHTitlePlan(manifest: manifest, chosen: DASHRenditionSelection.choose(from: manifest, options: options).representations)
        }
        let shared = try allVariants(Self.template)
        let text = DASHLocalManifest.mpd(shared)
        #expect(text.contains(
            "<Role schemeIdUri=\"urn:mpeg:dash:role:2011\" value=\"main\"/>\n      <SegmentList timescale=\"1000\">\n"
                + "        <SegmentTimeline><S t=\"0\" d=\"2500\" r=\"1\"/></SegmentTimeline>\n      </SegmentList>\n"), "\(text)")
        #expect(text.components(separatedBy: "<SegmentTimeline>").count == 3, "one per set: \(text)")
        try expectRoundTrip(shared, options: options)

        let differing = try allVariants(Self.template.replacingOccurrences(
            of: "<Representation id=\"v2\" bandwidth=\"2000\" width=\"1280\" height=\"720\" codecs=\"avc1.4d401f\"/>",
            with: "<Representation id=\"v2\" bandwidth=\"2000\" width=\"1280\" height=\"720\" codecs=\"avc1.4d401f\">"
                + "<SegmentTemplate timescale=\"1000\" duration=\"2500\" initialization=\"v2/init.mp4\" media=\"v2/$Number$.m4s\"/></Representation>"))
        let own = DASHLocalManifest.mpd(differing)
        #expect(own.components(separatedBy: "<SegmentTimeline>").count == 4, "one per representation, one for audio: \(own)")
        try expectRoundTrip(differing, options: options)
    }

    @Test func rangesOfOneFileAreOneRangedFile() throws {
        let plan = try plan(
            mpd(
                """
                <Period><AdaptationSet contentType="video">
                  <Representation id="r" bandwidth="1" mimeType="video/mp4">
                    <BaseURL>media/file.mp4?sig=1</BaseURL>
                    <SegmentList timescale="1000" duration="2000">
                      <Initialization range="0-99"/>
                      <SegmentURL mediaRange="100-199"/><SegmentURL mediaRange="200-349"/>
                    </SegmentList>
                  </Representation>
                </AdaptationSet></Period>
                """, duration: "PT4S"))
        #expect(plan.resources.count == 1)
        let file = try #require(plan.resources.first)
        #expect(file.path == "video-r/file-1.mp4")
        #expect(file.kind == .rangedFile && file.range == ByteRange(0, 350))
        #expect(file.url == "https://cdn.example/vod/media/file.mp4?sig=1")
        // The stored file holds every range: it is the representation's one file (a
        // `mediaRange` list does not play in ffmpeg 5.1).
        let text = DASHLocalManifest.mpd(plan)
        #expect(text.contains("<BaseURL>video-r/file-1.mp4</BaseURL>"))
        #expect(!text.contains("mediaRange") && !text.contains("SegmentList"))
        let read = try DASHManifest(parsing: text, url: "http://127.0.0.1/title/index.mpd")
        let representation = try #require(read.periods.first?.adaptationSets.first?.representations.first)
        #expect(representation.media == .singleFile(uri: "http://127.0.0.1/title/video-r/file-1.mp4"))
    }

    @Test func listWithoutDurationsAndAWholeFileAlsoRanged() throws {
        // The second URL is fetched whole by one segment and by range by another: one
        // whole file serves both.
        let plan = try plan(
            mpd(
                """
                <Period><AdaptationSet contentType="audio" lang="fr">
                  <Representation id="a" bandwidth="1" mimeType="audio/mp4">
                    <SegmentList><Initialization sourceURL="i.mp4"/>
                      <SegmentURL media="one.m4s"/><SegmentURL media="two.mp4"/>
                      <SegmentURL media="two.mp4" mediaRange="10-19"/>
                    </SegmentList>
                  </Representation>
                </AdaptationSet></Period>
                """))
        #expect(plan.resources.map(\.path) == ["audio-fr-a/init.mp4", "audio-fr-a/s1.m4s", "audio-fr-a/s2.mp4"])
        #expect(plan.resources.allSatisfy { $0.range == nil })
        #expect(!DASHLocalManifest.mpd(plan).contains("SegmentTimeline"))
        try expectRoundTrip(plan)
    }

    @Test func severalPeriodsPlayInOrder() throws {
        let period = { (id: String, duration: String) in
            """
            <Period id="\(id)" duration="\(duration)">
              <AdaptationSet contentType="video"><Representation id="v" bandwidth="9" mimeType="video/mp4">
                <SegmentTemplate duration="2" initialization="\(id)/v-init.mp4" media="\(id)/v-$Number$.m4s"/>
              </Representation></AdaptationSet>
              <AdaptationSet contentType="audio" lang="en"><Representation id="a" bandwidth="1" mimeType="audio/mp4">
                <SegmentTemplate duration="2" initialization="\(id)/a-init.mp4" media="\(id)/a-$Number$.m4s"/>
              </Representation></AdaptationSet>
            </Period>
            """
        }
        let plan = try plan(mpd(period("ad", "PT2S") + period("main", "PT4S"), duration: "PT6S"))
        #expect(plan.resources.map(\.path) == [
            "video-v-ad/init.mp4", "video-v-ad/s1.m4s", "audio-en-a-ad/init.mp4", "audio-en-a-ad/s1.m4s",
            "video-v-main/init.mp4", "video-v-main/s1.m4s", "audio-en-a-main/init.mp4", "audio-en-a-main/s1.m4s",
            "video-v-main/s2.m4s", "audio-en-a-main/s2.m4s",
        ])
        let text = DASHLocalManifest.mpd(plan)
        #expect(text.components(separatedBy: "<Period").count == 3)
        #expect(text.contains("<Period id=\"main\" start=\"PT2S\" duration=\"PT4S\">"))
        try expectRoundTrip(plan)
    }

    /// One whole file, in pieces (a media file of unknown length), whose `SegmentBase`
    /// the local MPD keeps: its ranges hold in the stored copy, the origin's bytes.
    @Test func singleFileIsOneResourceAndABaseURLWithItsIndex() throws {
        let plan = try plan(
            mpd(
                """
                <Period><AdaptationSet contentType="video">
                  <Representation id="s" bandwidth="1" mimeType="video/mp4"><BaseURL>whole.mp4?t=1</BaseURL>
                    <SegmentBase timescale="1000" presentationTimeOffset="20" indexRange="800-899" indexRangeExact="true">
                      <Initialization range="0-799"/></SegmentBase>
                  </Representation>
                </AdaptationSet></Period>
                """))
        #expect(plan.resources.map(\.path) == ["video-s/file.mp4"])
        #expect(plan.resources.first?.range == nil && plan.resources.first?.kind == .rangedFile)
        let text = DASHLocalManifest.mpd(plan)
        #expect(text.contains("<BaseURL>video-s/file.mp4</BaseURL>"))
        #expect(text.contains(
            "<SegmentBase timescale=\"1000\" presentationTimeOffset=\"20\" indexRange=\"800-899\" indexRangeExact=\"true\">"
                + "<Initialization range=\"0-799\"/></SegmentBase>"), "\(text)")
        try expectRoundTrip(plan)
    }

    /// A subtitle file alone (a BaseURL) is one request, not pieces; a BaseURL alone
    /// writes no SegmentBase.
    @Test func aSubtitleFileIsOneRequest() throws {
        let plan = try plan(
            mpd(
                """
                <Period><AdaptationSet contentType="text" lang="en">
                  <Representation id="t" bandwidth="1" mimeType="text/vtt"><BaseURL>subs.vtt</BaseURL></Representation>
                </AdaptationSet></Period>
                """))
        #expect(plan.resources.map(\.kind) == [.segment])
        #expect(!DASHLocalManifest.mpd(plan).contains("SegmentBase"))
        try expectRoundTrip(plan)
    }

    @Test func attributeValuesAreEscaped() throws {
        let plan = try plan(
            mpd(
                """
                <Period id="a&amp;&quot;b&lt;"><AdaptationSet contentType="text" lang="x&apos;y">
                  <Representation id="t" bandwidth="1" mimeType="text/vtt" codecs="a&amp;b"><BaseURL>s.vtt</BaseURL></Representation>
                </AdaptationSet></Period>
                """))
        let text = DASHLocalManifest.mpd(plan)
        #expect(text.contains("id=\"a&amp;&quot;b&lt;\""))
        #expect(text.contains("lang=\"x&apos;y\""))
        // Ends like media: ffmpeg's DASH reader refuses a local .vtt, and with it the MPD.
        #expect(plan.resources.map(\.path) == ["text-x_y-t~4135722b0373/file.vtt.mp4"])
        try expectRoundTrip(plan)
    }
}
