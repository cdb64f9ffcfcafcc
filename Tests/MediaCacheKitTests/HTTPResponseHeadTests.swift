import Foundation
import Testing
@testable import MediaCacheKit

private func head(_ status: Int, _ headers: [(String, String)]) -> HTTPResponseHead {
    HTTPResponseHead(status: status, headers: headers.map { (name: $0.0, value: $0.1) })
}

@Suite("ContentRange")
struct ContentRangeTests {
    @Test(arguments: [
        ("bytes 0-99/1000", ContentRange(start: 0, end: 99, total: 1000)),
        ("bytes 100-199/*", ContentRange(start: 100, end: 199, total: nil)),
        ("Bytes 5-5/6", ContentRange(start: 5, end: 5, total: 6)),
        ("  bytes 0-0/1  ", ContentRange(start: 0, end: 0, total: 1)),
    ])
    func parsesValid(text: String, expected: ContentRange) {
        #expect(ContentRange(parsing: text) == expected)
    }

    @Test(arguments: [
        "",
        "bytes",
        "bytes 0-99",
        "bytes */1000",
        "bytes 99-0/1000",
        "bytes 0-99/99",
        "bytes 0-99/50",
        "bytes -5-9/10",
        "bytes a-b/10",
        "bytes 0-9/ten",
        "bytes=0-99/1000",
        "items 0-99/1000",
    ])
    func rejectsMalformed(text: String) {
        #expect(ContentRange(parsing: text) == nil)
    }
}

@Suite("HTTPResponseHead")
struct HTTPResponseHeadTests {
    @Test func headerLookupIsCaseInsensitiveAndLastWins() {
        let response = head(200, [("x-a", "1"), ("content-type", "video/mp4"), ("x-a", "2")])
        #expect(response.value("X-A") == "2")
        #expect(response.value("Content-Type") == "video/mp4")
        #expect(response.value("missing") == nil)
    }

    @Test func contentRangeFromHeader() {
        #expect(head(206, [("content-range", "bytes 10-19/100")]).contentRange == ContentRange(start: 10, end: 19, total: 100))
        #expect(head(206, [("content-range", "garbage")]).contentRange == nil)
        #expect(head(206, []).contentRange == nil)
    }

    @Test func validatorsOf206UseTheContentRangeTotal() {
        let response = head(206, [
            ("content-range", "bytes 0-99/1000"), ("content-length", "100"),
            ("etag", "\"v1\""), ("last-modified", "Wed, 21 Oct 2015 07:28:00 GMT"),
        ])
        #expect(response.validators == Validators(etag: "\"v1\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT", length: 1000))
    }

    @Test func validatorsOf206WithUnknownTotalHaveNoLength() {
        let response = head(206, [("content-range", "bytes 0-99/*"), ("content-length", "100")])
        #expect(response.validators.length == nil)
    }

    @Test func validatorsOf200UseContentLength() {
        let response = head(200, [("content-length", "1000"), ("etag", "W/\"weak\"")])
        #expect(response.validators == Validators(etag: "W/\"weak\"", lastModified: nil, length: 1000))
    }

    @Test func validatorsOfOtherStatusesHaveNoLength() {
        #expect(head(404, [("content-length", "12")]).validators.length == nil)
        #expect(head(416, [("content-range", "bytes */1000")]).validators.length == nil)
    }

    @Test func contentLengthParsing() {
        #expect(head(200, [("content-length", "1234")]).contentLength == 1234)
        #expect(head(200, [("content-length", "12x")]).contentLength == nil)
        #expect(head(200, []).contentLength == nil)
    }

    @Test func acceptsByteRanges() {
        #expect(head(200, [("accept-ranges", "bytes")]).acceptsByteRanges)
        #expect(head(200, [("accept-ranges", "Bytes")]).acceptsByteRanges)
        #expect(!head(200, [("accept-ranges", "none")]).acceptsByteRanges)
        #expect(!head(200, []).acceptsByteRanges)
    }

    @Test(arguments: [
        ("Text/HTML; charset=UTF-8", "text/html"),
        ("video/mp4", "video/mp4"),
        ("  Application/JSON ;charset=utf-8", "application/json"),
    ])
    func mediaTypeStripsParametersAndLowercases(raw: String, expected: String) {
        #expect(head(200, [("content-type", raw)]).mediaType == expected)
    }

    @Test func mediaTypeMissingOrEmptyIsNil() {
        #expect(head(200, []).mediaType == nil)
        #expect(head(200, [("content-type", "")]).mediaType == nil)
        #expect(head(200, [("content-type", "   ")]).mediaType == nil)
    }

    @Test(arguments: [301, 302, 303, 307, 308])
    func redirectStatuses(status: Int) {
        #expect(head(status, []).isRedirect)
    }

    @Test(arguments: [200, 204, 206, 300, 304, 305, 400, 404])
    func nonRedirectStatuses(status: Int) {
        #expect(!head(status, []).isRedirect)
    }

    @Test func locationHeader() {
        #expect(head(302, [("location", "/next")]).location == "/next")
    }

    // MARK: Retry-After

    @Test func retryAfterSeconds() {
        #expect(head(503, [("retry-after", "120")]).retryAfter() == 120)
        #expect(head(503, [("retry-after", " 0 ")]).retryAfter() == 0)
    }

    /// delay-seconds is digits only: a negative one is no delay at all (it made every
    /// retry go at once), and the usual backoff applies.
    @Test func retryAfterNegativeOrSignedSecondsIsIgnored() {
        #expect(head(503, [("retry-after", "-5")]).retryAfter() == nil)
        #expect(head(503, [("retry-after", "+5")]).retryAfter() == nil)
    }

    @Test func retryAfterHTTPDateIsRelativeToNow() {
        // Wed, 21 Oct 2015 07:28:00 GMT is 1445412480 seconds after the epoch.
        let now = Date(timeIntervalSince1970: 1_445_412_480 - 90)
        #expect(head(429, [("retry-after", "Wed, 21 Oct 2015 07:28:00 GMT")]).retryAfter(now: now) == 90)
    }

    @Test func retryAfterDateInThePastIsZero() {
        let now = Date(timeIntervalSince1970: 1_445_412_480 + 3600)
        #expect(head(429, [("retry-after", "Wed, 21 Oct 2015 07:28:00 GMT")]).retryAfter(now: now) == 0)
    }

    @Test func retryAfterMissingOrGarbageIsNil() {
        #expect(head(503, []).retryAfter() == nil)
        #expect(head(503, [("retry-after", "soon")]).retryAfter() == nil)
        #expect(head(503, [("retry-after", "")]).retryAfter() == nil)
    }

    @Test(arguments: [
        ("Content-Length:   100  \r\n", "Content-Length:   100"),
        ("\t ETag: \"x y\"\r\n", "ETag: \"x y\""),
        ("\r\n", ""),
        ("  \t", ""),
        ("Caf\u{E9}: \u{E9}t\u{E9} \r\n", "Caf\u{E9}: \u{E9}t\u{E9}"),
    ])
    func headerLinesLoseOnlyTheASCIISpaceAroundThem(line: String, expected: String) {
        #expect(String(HTTPResponseHead.trimmingWhitespace(line[...])) == expected)
    }
}
