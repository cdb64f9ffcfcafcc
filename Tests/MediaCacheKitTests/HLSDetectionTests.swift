import Testing
@testable import MediaCacheKit

@Suite("HLS and DASH detection")
struct HLSDetectionTests {
    @Test(arguments: [
        "application/vnd.apple.mpegurl", "application/x-mpegURL", "audio/mpegurl", "Audio/X-MpegUrl",
        "application/vnd.apple.mpegurl; charset=utf-8", " application/x-mpegurl ;q=1",
    ])
    func hlsMediaTypesAreRecognisedWhateverTheBody(type: String) {
        #expect(PresentationDetection.format(contentType: type, firstBytes: []) == .hls)
    }

    @Test(arguments: [
        "#EXTM3U\n#EXT-X-VERSION:3\n", "\u{FEFF}#EXTM3U\r\n", "  \n\t#EXTM3U", "#EXTM3U",
    ])
    func anM3U8BodyIsHLSUnderAnyType(body: String) {
        for type in ["text/plain", "application/octet-stream", nil] as [String?] {
            #expect(PresentationDetection.format(contentType: type, firstBytes: Array(body.utf8)) == .hls)
        }
    }

    @Test(arguments: [
        #"<?xml version="1.0" encoding="utf-8"?>"# + "\n<MPD xmlns=\"urn:mpeg:dash:schema:mpd:2011\" type=\"static\">",
        "\u{FEFF}<!-- generated --><?xml-stylesheet href=\"x\"?>\n<!DOCTYPE MPD>\n<MPD>",
        "<mpd:MPD xmlns:mpd=\"urn:mpeg:dash:schema:mpd:2011\"/>",
        "<MPD/>",
        // Past an internal subset, whose declarations hold `>` (the MPD reader refuses it).
        "<?xml version=\"1.0\"?>\n<!DOCTYPE MPD [\n<!ENTITY a \"b\">\n<!ENTITY c \"&a;&a;\">\n]>\n<MPD>",
    ])
    func anMPDRootElementIsDASH(body: String) {
        #expect(PresentationDetection.format(contentType: "application/xml", firstBytes: Array(body.utf8)) == .dash)
        #expect(PresentationDetection.format(contentType: "Application/DASH+XML; profiles=x", firstBytes: []) == .dash)
    }

    @Test(arguments: [
        "#EXTM3U8\n", "<html><body>#EXTM3U</body></html>", "<?xml version=\"1.0\"?><MPDX/>", "<?xml version=\"1.0\"",
        "<!-- unterminated", "<Period><MPD>", "\u{0}\u{0}\u{0}\u{18}ftypisom", "",
    ])
    func anythingElseIsNoPresentation(body: String) {
        #expect(PresentationDetection.format(contentType: "text/html", firstBytes: Array(body.utf8)) == nil)
        #expect(PresentationDetection.format(contentType: nil, firstBytes: Array(body.utf8)) == nil)
    }
}
