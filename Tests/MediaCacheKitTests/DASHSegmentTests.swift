import Testing
@testable import MediaCacheKit

private let mpdURL = "https://cdn.example/vod/title/manifest.mpd?token=abc"

/// An MPD of `body` (Periods) lasting `duration`.
private func mpd(_ body: String, duration: String = "PT10S") -> String {
    "<MPD xmlns=\"urn:mpeg:dash:schema:mpd:2011\" type=\"static\" mediaPresentationDuration=\"\(duration)\">\n"
        + body + "\n</MPD>\n"
}

/// An MPD with one Period and one video AdaptationSet holding `representation`.
private func single(_ representation: String, duration: String = "PT10S") -> String {
    mpd(
        "<Period><AdaptationSet contentType=\"video\">\n\(representation)\n</AdaptationSet></Period>",
        duration: duration)
}

private func representation(_ text: String) throws -> DASHRepresentation {
    try #require(try DASHManifest(parsing: text, url: mpdURL).periods.first?.adaptationSets.first?.representations.first)
}

private func segments(_ text: String) throws -> [DASHSegment] {
    try representation(text).media.segments
}

@Suite("DASH segment addressing")
struct DASHSegmentTests {
    @Test func templateIdentifiersWidthsAndDollars() throws {
        let segments = try segments(
            single(
                """
                <Representation id="v 1" bandwidth="800000">
                  <SegmentTemplate media="$RepresentationID$/$Bandwidth%09d$/$$x$Number%04d$_$Time$.m4s"
                    timescale="10" duration="40" startNumber="7" presentationTimeOffset="5"/>
                </Representation>
                """))
        #expect(segments.map(\.uri) == [
            "https://cdn.example/vod/title/v%201/000800000/$x0007_5.m4s",
            "https://cdn.example/vod/title/v%201/000800000/$x0008_45.m4s",
            "https://cdn.example/vod/title/v%201/000800000/$x0009_85.m4s",
        ])
        #expect(segments.map(\.number) == [7, 8, 9])
        #expect(segments.map(\.duration) == [4, 4, 4] as [Double?])
    }

    @Test(arguments: [
        // ceil(10 s × 1000 / 3000) = 4; a tolerance keeps an exact 5 at 5.
        ("PT10S", "timescale=\"1000\" duration=\"3000\"", 4),
        ("PT10S", "duration=\"2\"", 5),
        ("PT1H", "timescale=\"90000\" duration=\"540000\"", 600),
        ("PT10S", "duration=\"2\" endNumber=\"3\"", 3),
        ("PT0.1S", "timescale=\"3\" duration=\"1\"", 1),
    ])
    func numberedTemplatesCoverThePeriod(duration: String, attributes: String, count: Int) throws {
        let segments = try segments(
            single(
                "<Representation id=\"a\" bandwidth=\"1\"><SegmentTemplate media=\"$Number$.m4s\" \(attributes)/>"
                    + "</Representation>", duration: duration))
        #expect(segments.count == count)
        #expect(segments.last?.uri == "https://cdn.example/vod/title/\(count).m4s")
    }

    @Test func timelinesRepeatWithRAndUpToTheNextTWithRMinusOne() throws {
        let segments = try segments(
            single(
                """
                <Representation id="a" bandwidth="1">
                  <SegmentTemplate media="t$Time$-n$Number$" timescale="1000" startNumber="0">
                    <SegmentTimeline>
                      <S t="1000" d="2000" r="1"/>
                      <S d="500" r="-1"/>
                      <S t="6500" d="1000"/>
                      <S d="1500" r="-1"/>
                    </SegmentTimeline>
                  </SegmentTemplate>
                </Representation>
                """))
        // r=-1 before t=6500: 5000, 5500, 6000; at the end: up to 10 s.
        #expect(segments.map(\.time) == [1000, 3000, 5000, 5500, 6000, 6500, 7500, 9000] as [Int64?])
        let durations: [Double?] = [2, 2, 0.5, 0.5, 0.5, 1, 1.5, 1.5]
        #expect(segments.map(\.duration) == durations)
        #expect(segments.map(\.number) == Array(0..<8))
        #expect(segments[3].uri == "https://cdn.example/vod/title/t5500-n3")
    }

    /// A long title written as one S per segment: read and expanded in linear time.
    @Test func aTimelineOfAHundredThousandEntries() throws {
        let entries = String(repeating: "<S d=\"2\"/>", count: 100_000)
        let clock = ContinuousClock()
        let start = clock.now
        let segments = try segments(
            single(
                "<Representation id=\"a\" bandwidth=\"1\"><SegmentTemplate media=\"$Time$.m4s\">"
                    + "<SegmentTimeline>\(entries)</SegmentTimeline></SegmentTemplate></Representation>",
                duration: "PT200000S"))
        #expect(segments.count == 100_000)
        #expect(segments.last?.uri == "https://cdn.example/vod/title/199998.m4s")
        #expect(clock.now - start < .seconds(30))
    }

    @Test func segmentInformationMergesDownLevelByLevel() throws {
        let text = mpd(
            """
            <Period duration="PT6S">
              <BaseURL>media/</BaseURL>
              <SegmentTemplate timescale="1000" duration="2000" initialization="$RepresentationID$/init.mp4"/>
              <AdaptationSet mimeType="audio/mp4" codecs="mp4a.40.2" lang="en">
                <SegmentTemplate media="$RepresentationID$/$Number$.m4s" startNumber="0"/>
                <Representation id="lo" bandwidth="64000"/>
                <Representation id="hi" bandwidth="128000" codecs="mp4a.40.5">
                  <SegmentTemplate duration="3000"/>
                </Representation>
              </AdaptationSet>
            </Period>
            """)
        let set = try #require(try DASHManifest(parsing: text, url: mpdURL).periods.first?.adaptationSets.first)
        #expect(set.contentType == .audio)
        #expect(set.language == "en")
        let (lo, hi) = (set.representations[0], set.representations[1])
        #expect(lo.initialization?.uri == "https://cdn.example/vod/title/media/lo/init.mp4")
        #expect(lo.media.segments.map(\.uri) == (0..<3).map { "https://cdn.example/vod/title/media/lo/\($0).m4s" })
        #expect(hi.media.segments.map(\.uri) == (0..<2).map { "https://cdn.example/vod/title/media/hi/\($0).m4s" })
        #expect(lo.codecs == "mp4a.40.2" && hi.codecs == "mp4a.40.5")
        #expect(lo.mimeType == "audio/mp4")
    }

    @Test func baseURLsResolveAtEveryLevelAndAbsoluteOnesReplace() throws {
        let text = mpd(
            """
            <BaseURL>https://a.example/root/</BaseURL>
            <BaseURL>https://mirror.example/root/</BaseURL>
            <Period duration="PT5S">
              <BaseURL>period/</BaseURL>
              <AdaptationSet contentType="video">
                <BaseURL>../set/</BaseURL>
                <Representation id="r" bandwidth="1">
                  <BaseURL>rep/file.mp4</BaseURL>
                </Representation>
                <Representation id="s" bandwidth="1">
                  <BaseURL> https://other.example/x.mp4 </BaseURL>
                </Representation>
              </AdaptationSet>
            </Period>
            <Period><AdaptationSet contentType="video"><Representation id="r" bandwidth="1">
              <BaseURL>/abs/y.mp4#t=3</BaseURL>
            </Representation></AdaptationSet></Period>
            """)
        let manifest = try DASHManifest(parsing: text, url: mpdURL)
        let reps = manifest.periods.flatMap { $0.adaptationSets.flatMap(\.representations) }
        #expect(reps.map(\.media) == [
            .singleFile(uri: "https://a.example/root/set/rep/file.mp4"),
            .singleFile(uri: "https://other.example/x.mp4"),
            .singleFile(uri: "https://a.example/abs/y.mp4"),
        ])
        // The MPD's second BaseURL is a copy of every file on another server; an element
        // with one BaseURL keeps it, an absolute one replaces either copy's.
        #expect(manifest.copies == 2)
        let copy = try DASHManifest(parsing: text, url: mpdURL, copy: 1)
        #expect(copy.copies == 2)
        #expect(copy.periods.flatMap { $0.adaptationSets.flatMap(\.representations) }.map(\.media) == [
            .singleFile(uri: "https://mirror.example/root/set/rep/file.mp4"),
            .singleFile(uri: "https://other.example/x.mp4"),
            .singleFile(uri: "https://mirror.example/abs/y.mp4"),
        ])
        // A copy past the last an element has is its last.
        #expect(try DASHManifest(parsing: text, url: mpdURL, copy: 5) == copy)
        let one = single("<Representation id=\"a\" bandwidth=\"1\"><BaseURL>f.mp4</BaseURL></Representation>")
        #expect(try DASHManifest(parsing: one, url: mpdURL).copies == 1)
    }

    @Test func segmentListsWithMediaRangesAndAnInitializationRange() throws {
        let rep = try representation(
            single(
                """
                <Representation id="a" bandwidth="1">
                  <BaseURL>file.mp4</BaseURL>
                  <SegmentList timescale="10" duration="25" startNumber="3">
                    <Initialization range="0-99"/>
                    <SegmentURL mediaRange="100-199"/>
                    <SegmentURL media="other.m4s"/>
                    <SegmentURL media="/x/y.m4s" mediaRange="5-5"/>
                  </SegmentList>
                </Representation>
                """))
        #expect(rep.initialization == DASHResource(uri: "https://cdn.example/vod/title/file.mp4", byteRange: ByteRange(0, 100)))
        #expect(rep.media.segments == [
            DASHSegment(uri: "https://cdn.example/vod/title/file.mp4", byteRange: ByteRange(100, 200), number: 3, time: 0, duration: 2.5),
            DASHSegment(uri: "https://cdn.example/vod/title/other.m4s", number: 4, time: 25, duration: 2.5),
            DASHSegment(uri: "https://cdn.example/x/y.m4s", byteRange: ByteRange(5, 6), number: 5, time: 50, duration: 2.5),
        ])
    }

    @Test func aSegmentListWithoutDurationsHasNone() throws {
        let segments = try segments(
            single("<Representation id=\"a\" bandwidth=\"1\"><SegmentList><SegmentURL media=\"a.ts\"/></SegmentList></Representation>"))
        #expect(segments == [DASHSegment(uri: "https://cdn.example/vod/title/a.ts", number: 1)])
    }

    @Test func segmentBaseIsOneWholeFile() throws {
        let rep = try representation(
            single(
                """
                <Representation id="a" bandwidth="1"><BaseURL>video.mp4</BaseURL>
                  <SegmentBase indexRange="800-999"><Initialization range="0-799"/></SegmentBase>
                </Representation>
                """))
        #expect(rep.media == .singleFile(uri: "https://cdn.example/vod/title/video.mp4"))
        #expect(rep.initialization == nil)
        #expect(rep.media.segments.isEmpty)
    }

    @Test func severalPeriodsTakeTheirTimingFromEachOther() throws {
        let text = mpd(
            """
            <Period id="ad" duration="PT4S"><AdaptationSet contentType="video"><Representation id="v" bandwidth="1">
              <SegmentTemplate media="ad/$Number$.m4s" duration="2"/></Representation></AdaptationSet></Period>
            <Period id="main"><AdaptationSet contentType="video"><Representation id="v" bandwidth="1">
              <SegmentTemplate media="main/$Number$.m4s" duration="2"/></Representation></AdaptationSet></Period>
            <Period id="credits" start="PT9S"><AdaptationSet contentType="video"><Representation id="v" bandwidth="1">
              <SegmentTemplate media="credits/$Number$.m4s" duration="2"/></Representation></AdaptationSet></Period>
            """, duration: "PT0H0M12.5S")
        let periods = try DASHManifest(parsing: text, url: mpdURL).periods
        #expect(periods.map(\.id) == ["ad", "main", "credits"])
        #expect(periods.map(\.start) == [0, 4, 9])
        #expect(periods.map(\.duration) == [4, 5, 3.5] as [Double?])
        let counts = periods.map { $0.adaptationSets[0].representations[0].media.segments.count }
        #expect(counts == [2, 3, 2])
        let choice = DASHRenditionSelection.choose(from: try DASHManifest(parsing: text, url: mpdURL))
        #expect(choice.representations.map(\.identity) == ["video-v-ad", "video-v-main", "video-v-credits"])
        #expect(choice.representations.map(\.period) == [0, 1, 2])
    }

    @Test(arguments: [
        ("PT1H2M3.5S", 3723.5), ("P1DT1S", 86401), ("P0Y0M0DT0H3M30.000S", 210), ("PT0S", 0), ("P1W", 604_800),
        ("P1Y2M", 425 * 86400), (" PT1.25S ", 1.25), ("PT36H", 129_600),
    ] as [(String, Double)])
    func durations(text: String, seconds: Double) throws {
        #expect(try DASHValues.seconds(text) == seconds)
    }

    @Test(arguments: ["", "P", "PT", "1S", "-PT1S", "PT1.5M", "PT1S2M", "PT1H1H", "P1S", "PT.5S", "PT5.S", "PTS", "PT1.2.3S",
                      "P99999999999999999999Y"])
    func malformedDurationsAreRefused(text: String) {
        #expect(throws: PlaylistSyntaxError.self) { try DASHValues.seconds(text) }
    }

    @Test func templateFormats() throws {
        let template = try DASHTemplate(parsing: "a$$b$Number%03d$c$Time%010d$$RepresentationID$", allowsSegmentValues: true)
        #expect(template.filled(representationID: "r", bandwidth: 5, number: 12345, time: 42) == "a$b12345c0000000042r")
        for bad in ["$Number", "$SubNumber$", "$RepresentationID%02d$", "$Number%5d$", "$Number%0100d$", "$Time%02x$"] {
            #expect(throws: PlaylistSyntaxError.self) { try DASHTemplate(parsing: bad, allowsSegmentValues: true) }
        }
        #expect(throws: PlaylistSyntaxError.self) { try DASHTemplate(parsing: "init-$Number$.mp4", allowsSegmentValues: false) }
    }

    /// URIs made from the template resolved once agree with a resolution per segment,
    /// whatever the template puts where.
    @Test(arguments: ["../$Number$/./x.m4s?n=$Number$&t=$Time$", "$Number$", "a/$Time%05d$#frag$Number$",
                      "https://$Number$.cdn.example:8443/a/$Number$", "mcvar0-$Number$", "a b/$Number$"])
    func templateURIsMatchAFullResolution(media: String) throws {
        let template = try DASHTemplate(parsing: media, allowsSegmentValues: true)
        let base = "https://cdn.example/vod/a/b/"
        let uris = DASHTemplateURIs(template, representationID: "r", bandwidth: 1, base: base)
        for (number, time) in [(1, Int64(0)), (99, 123_456_789)] {
            let full = try? PlaylistURI.resolve(
                template.filled(representationID: "r", bandwidth: 1, number: number, time: time), against: base)
            #expect((try? uris.uri(number: number, time: time)) == full)
        }
    }
}
