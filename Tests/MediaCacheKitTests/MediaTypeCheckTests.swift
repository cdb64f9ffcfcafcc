import Testing
@testable import MediaCacheKit

/// Whether `url` names a text format, as a job derives it from its parsed URL.
private func expectsText(_ url: String) -> Bool {
    MediaTypeCheck.expectsText(pathExtension: URLParts(url)?.pathExtension)
}

@Suite("MediaTypeCheck")
struct MediaTypeCheckTests {
    @Test(arguments: [
        ("text/html", "https://cdn.example/a.mp4"),
        ("text/plain", "https://cdn.example/a.mp4?token=1"),
        ("application/json", "https://cdn.example/a.m4a"),
        ("application/xhtml+xml", "https://cdn.example/a.mkv"),
        ("text/html", "https://cdn.example/watch"),
    ])
    func textWhereMediaWasExpectedIsSuspect(mediaType: String, url: String) throws {
        #expect(MediaTypeCheck.isSuspect(mediaType: mediaType, urlExpectsText: expectsText(url)))
        let message = try #require(
            MediaTypeCheck.rejection(mediaType: mediaType, firstBytes: Array("Access denied: token expired\n".utf8)))
        #expect(message.contains(mediaType))
    }

    @Test func binaryBodyLabelledTextIsAccepted() {
        let mp4: [UInt8] = [0x00, 0x00, 0x00, 0x18, 0x66, 0x74, 0x79, 0x70, 0x6D, 0x70, 0x34, 0x32]
        #expect(MediaTypeCheck.rejection(mediaType: "text/plain", firstBytes: mp4) == nil)
        #expect(MediaTypeCheck.rejection(mediaType: "text/plain", firstBytes: [0xFF, 0xFB, 0x90, 0x64, 0xC3]) == nil)
    }

    @Test func textCutInsideAMultiByteCharacterIsStillText() {
        let text = Array(String(repeating: "é", count: 300).utf8)
        #expect(MediaTypeCheck.looksLikeText(Array(text.prefix(511))))
    }

    @Test(arguments: [
        ("text/html", "https://cdn.example/page.html"),
        ("text/html", "https://cdn.example/page.HTM"),
        ("application/json", "https://cdn.example/data.json"),
        ("text/vtt", "https://cdn.example/subs.vtt"),
        ("application/vnd.apple.mpegurl", "https://cdn.example/master.m3u8"),
        ("text/plain", "https://cdn.example/list.m3u8"),
    ])
    func textWhereTheURLNamesTextIsAccepted(mediaType: String, url: String) {
        #expect(!MediaTypeCheck.isSuspect(mediaType: mediaType, urlExpectsText: expectsText(url)))
    }

    @Test(arguments: ["video/mp4", "audio/mp4", "application/octet-stream", "image/jpeg", "video/mp2t"])
    func mediaTypesAreAccepted(mediaType: String) {
        #expect(!MediaTypeCheck.isSuspect(mediaType: mediaType, urlExpectsText: expectsText("https://cdn.example/a.mp4")))
    }

    @Test func missingMediaTypeIsAccepted() {
        #expect(!MediaTypeCheck.isSuspect(mediaType: nil, urlExpectsText: expectsText("https://cdn.example/a.mp4")))
    }

    @Test(arguments: [
        "<!DOCTYPE html><html><body>Login</body></html>",
        "  <html><head>",
        "\r\n\n<HTML>",
        "<!doctype HTML>",
        "<HtMl lang=en>",
    ])
    func htmlBodyForMediaURLIsRejected(body: String) {
        #expect(MediaTypeCheck.sniffRejection(firstBytes: Array(body.utf8), urlExpectsText: expectsText("https://cdn.example/a.mp4")) != nil)
    }

    @Test func htmlBodyWithUTF8BOMIsRejected() {
        let body: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("<!DOCTYPE html><html>".utf8)
        #expect(MediaTypeCheck.sniffRejection(firstBytes: body, urlExpectsText: expectsText("https://cdn.example/a.mp4")) != nil)
    }

    @Test func htmlBodyForHTMLURLIsAccepted() {
        #expect(
            MediaTypeCheck.sniffRejection(firstBytes: Array("<!DOCTYPE html>".utf8), urlExpectsText: expectsText("https://cdn.example/index.html")) == nil)
    }

    @Test(arguments: [
        [0x00, 0x00, 0x00, 0x18, 0x66, 0x74, 0x79, 0x70, 0x6D, 0x70, 0x34, 0x32] as [UInt8],  // ....ftypmp42
        [0x1A, 0x45, 0xDF, 0xA3],  // Matroska
        [0xFF, 0xFB, 0x90, 0x64],  // MP3 frame
        [],
        Array("not html at all".utf8),
        Array("<htm".utf8),  // cut short
        Array("<!doctype xml>".utf8),
        Array("<hTmL".utf8).map { $0 == UInt8(ascii: "T") ? 0xD4 : $0 },  // 'T' | 0x80: no letter
    ])
    func nonHTMLBytesAreAccepted(bytes: [UInt8]) {
        #expect(MediaTypeCheck.sniffRejection(firstBytes: bytes, urlExpectsText: expectsText("https://cdn.example/a.mp4")) == nil)
    }
}
