import Testing
@testable import MediaCacheKit

private let url = "https://cdn.example/live/manifest.mpd"

private func refusal(_ text: String) -> PresentationError? {
    refusal(Array(text.utf8))
}

private func refusal(_ bytes: [UInt8]) -> PresentationError? {
    do {
        _ = try DASHManifest(parsing: bytes, url: url)
        return nil
    } catch {
        return error
    }
}

/// One video Representation whose segment information is `segments`, in a Period of `duration`.
private func video(_ segments: String, duration: String = "PT10S", extra: String = "") -> String {
    """
    <MPD type="static" mediaPresentationDuration="\(duration)">
    <Period><AdaptationSet contentType="video">\(extra)
    <Representation id="v" bandwidth="1">\(segments)</Representation>
    </AdaptationSet></Period>
    </MPD>
    """
}

@Suite("DASH refusals")
struct DASHRefusalTests {
    @Test func dynamicMPDsAreRefusedAsLive() {
        let error = refusal(
            """
            <?xml version="1.0"?>
            <MPD type="dynamic" availabilityStartTime="2024-01-01T00:00:00Z" minimumUpdatePeriod="PT2S">
            <Period start="PT0S"><AdaptationSet><Representation id="v" bandwidth="1">
            <SegmentTemplate media="$Number$.m4s" duration="2"/></Representation></AdaptationSet></Period></MPD>
            """)
        #expect(error == .liveMPD(url: url))
        #expect(error?.message == """
            \(url) is a live MPD (type="dynamic"); only complete (VOD) titles are cached: try again when it has ended
            """)
    }

    @Test(arguments: [
        ("<ContentProtection schemeIdUri=\"urn:uuid:EDEF8BA9-79D6-4ACE-A3C8-27DCD51D21ED\"/>",
         "ContentProtection 'urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed', Widevine"),
        ("<ContentProtection schemeIdUri=\"urn:mpeg:dash:mp4protection:2011\" value=\"cenc\"/>"
            + "<ContentProtection schemeIdUri=\"urn:uuid:9a04f079-9840-4286-ab92-e65be0885f95\"/>",
         "ContentProtection 'urn:uuid:9a04f079-9840-4286-ab92-e65be0885f95', PlayReady"),
        ("<ContentProtection schemeIdUri=\"urn:uuid:11111111-2222-3333-4444-555555555555\"/>",
         "ContentProtection 'urn:uuid:11111111-2222-3333-4444-555555555555'"),
        ("<ContentProtection value=\"x\"/>", "a ContentProtection without schemeIdUri"),
    ])
    func drmIsRefusedAsDRM(protection: String, reason: String) {
        let error = refusal(video("", extra: "\n" + protection))
        #expect(error == .drm(url: url, line: 3, reason: reason))
        #expect(error?.message == "\(url) line 3: the title is DRM-protected (\(reason)); mediacache caches only titles without DRM")
    }

    @Test func commonEncryptionAloneIsNotDRMAndDRMOnARepresentationIs() throws {
        let clear = video(
            "<BaseURL>v.mp4</BaseURL>", extra: "<ContentProtection schemeIdUri=\"urn:mpeg:dash:mp4protection:2011\"/>")
        #expect(refusal(clear) == nil)
        let onRepresentation = video(
            "\n<ContentProtection schemeIdUri=\"urn:uuid:94ce86fb-07ff-4f43-adb8-93d2fa968ca2\"/><BaseURL>v.mp4</BaseURL>")
        #expect(refusal(onRepresentation) == .drm(
            url: url, line: 4, reason: "ContentProtection 'urn:uuid:94ce86fb-07ff-4f43-adb8-93d2fa968ca2', FairPlay"))
    }

    @Test(arguments: [
        ("<html><head><title>403</title></head><body>Forbidden<br></body></html>", PresentationError.notAnMPD(url: url)),
        ("{\"error\": \"expired\"}", .notAnMPD(url: url)),
        ("<?xml version=\"1.0\"?><feed/>", .notAnMPD(url: url)),
        ("<MPD type=\"static\">\n<Period>\n", .notWellFormed(
            url: url, line: 3, reason: "the document ends inside <Period> of line 2: the file is cut short?")),
    ])
    func otherBodiesAreNotMPDs(text: String, error: PresentationError) {
        #expect(refusal(text) == error)
    }

    @Test func theNotWellFormedMessageNamesTheLineAndWhatToDo() {
        let error = refusal("<MPD>\n<!DOCTYPE x [<!ENTITY a \"b\">]>\n</MPD>")
        #expect(error?.message == """
            \(url) line 2: the MPD cannot be read as XML: a DOCTYPE after the root element or a second DOCTYPE; \
            check the URL (is the body cut short?) or ask its publisher
            """)
    }

    @Test(arguments: [
        ("<SegmentTemplate media=\"$Number$.m4s\" duration=\"1\"/>", "P3650D", 4, "SegmentTemplate"),
        ("<SegmentTemplate media=\"$Number$.m4s\" timescale=\"1000000\" duration=\"1\"/>", "PT2S", 4, "SegmentTemplate"),
        ("<SegmentTemplate media=\"$Time$.m4s\"><SegmentTimeline><S d=\"1\" r=\"4000000000\"/></SegmentTimeline></SegmentTemplate>",
         "PT10S", 4, "S"),
        ("<SegmentTemplate media=\"$Time$.m4s\" timescale=\"4000000000\"><SegmentTimeline><S d=\"1\" r=\"-1\"/></SegmentTimeline></SegmentTemplate>",
         "PT10S", 4, "S"),
    ])
    func templatesThatWouldExplodeAreRefusedBeforeExpanding(segments: String, duration: String, line: Int, element: String) {
        let error = refusal(video("\n" + segments, duration: duration))
        #expect(error == .tooManySegments(url: url, line: line))
        #expect(error?.message == "\(url) line \(line): more than 1000000 segments; titles this large are refused")
    }

    @Test func theSegmentBoundCountsEveryRepresentation() {
        let representations = (0..<3).map {
            "<Representation id=\"\($0)\" bandwidth=\"1\"><SegmentTemplate media=\"$Number$\" duration=\"1\"/></Representation>"
        }.joined(separator: "\n")
        let text = "<MPD mediaPresentationDuration=\"PT400000S\"><Period><AdaptationSet contentType=\"video\">\n"
            + representations + "\n</AdaptationSet></Period></MPD>"
        #expect(refusal(text) == .tooManySegments(url: url, line: 4))
    }

    @Test(arguments: [
        (video("<SegmentTemplate media=\"$Number$.m4s\" duration=\"2\"/>", duration: ""), 1, "MPD",
         "the duration '' does not start with P (ISO 8601, e.g. PT1H2M3.5S)"),
        ("<MPD><Period><AdaptationSet><Representation id=\"v\" bandwidth=\"1\"><SegmentTemplate media=\"$Number$\" duration=\"2\"/>"
            + "</Representation></AdaptationSet></Period></MPD>", 1, "SegmentTemplate",
         "its duration needs the Period's (Period@duration, the next Period's start or MPD@mediaPresentationDuration) "
            + "to count the segments"),
        (video("<SegmentTemplate media=\"$Sub$.m4s\" duration=\"2\"/>"), 3, "SegmentTemplate",
         "the template '$Sub$.m4s' has $Sub$; only $RepresentationID$, $Number$, $Time$, $Bandwidth$ and $$ are supported"),
        (video("<SegmentTemplate media=\"all.m4s\" duration=\"2\"/>"), 3, "SegmentTemplate",
         "the media template has neither $Number$ nor $Time$: every segment would be the same URI"),
        (video("<SegmentTemplate media=\"$Number$\"><SegmentTimeline><S t=\"0\" d=\"0\"/></SegmentTimeline></SegmentTemplate>"),
         3, "S", "d must be more than 0"),
        (video("<SegmentList><SegmentURL mediaRange=\"10-\"/></SegmentList>"), 3, "SegmentURL",
         "mediaRange must be first-last (0-814), found '10-'; an open-ended range is not supported"),
        (video("<SegmentList><SegmentURL mediaRange=\"10-5\"/></SegmentList>"), 3, "SegmentURL",
         "mediaRange '10-5' ends before it starts"),
        (video("<SegmentBase/>"), 3, "SegmentBase", "it needs a BaseURL that names the file"),
        (video(""), 3, "Representation",
         "it has no SegmentTemplate, SegmentList, SegmentBase or BaseURL: nothing says where its media is"),
        (video("<SegmentBase/><SegmentList/>"), 3, "Representation", "it has both <SegmentBase> and <SegmentList>; only one may be"),
        (video("<BaseURL>javascript:alert(1)</BaseURL>"), 3, "BaseURL",
         "the URI 'javascript:alert(1)': unsupported scheme 'javascript' (only http and https are fetched)"),
        ("<MPD type=\"static\" mediaPresentationDuration=\"PT1S\"><Period xlink:href=\"https://x.example/p.xml\"/></MPD>", 1, "Period",
         "remote elements (xlink:href) are not supported; only what the MPD holds is read"),
        ("<MPD type=\"Static\"/>", 1, "MPD", "type must be static or dynamic, found 'Static'"),
        ("<MPD>\n<Period duration=\"PT2S\"/>\n<Period/>\n<Period start=\"PT1S\"/></MPD>", 3, "Period",
         "it ends before it starts (a later Period starts earlier, or the title is shorter)"),
        ("<MPD>\n<Period/>\n<Period/></MPD>", 3, "Period",
         "it has no start, and the Period before it no duration: where it begins is unknown"),
        (video("<BaseURL>a</BaseURL></Representation><Representation id=\"v\" bandwidth=\"2\"><BaseURL>b</BaseURL>"), 3,
         "Representation", "the id 'v' is another Representation's in the same Period"),
    ])
    func malformedMPDsNameTheElementAndLine(text: String, line: Int, element: String, reason: String) {
        #expect(refusal(text) == .malformedMPD(url: url, line: line, element: element, reason: reason))
    }

    @Test func theMalformedMessageSaysWhatToDo() {
        let error = refusal("<MPD type=\"static\"/>")
        #expect(error?.message == """
            \(url) line 1: malformed <MPD>: the MPD has no <Period>; the MPD does not follow ISO/IEC 23009-1 \
            or uses what mediacache does not support (ask its publisher, or check the URL)
            """)
    }

    @Test func hugeBodiesAreRefusedBeforeReading() {
        let bytes = [UInt8](repeating: 0x20, count: XMLElementTree.maxBytes + 1)
        #expect(refusal(bytes) == .mpdTooLarge(url: url, bytes: XMLElementTree.maxBytes + 1))
    }
}
