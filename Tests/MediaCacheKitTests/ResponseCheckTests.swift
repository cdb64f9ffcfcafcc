import Testing
@testable import MediaCacheKit

@Suite("Unexpected Content-Encoding")
struct ContentEncodingTests {
    private func head(_ encoding: String?) -> HTTPResponseHead {
        HTTPResponseHead(status: 206, headers: encoding.map { [(name: "content-encoding", value: $0)] } ?? [])
    }

    private let media = "https://h/v.mp4"

    @Test func identityOrNoneIsTheFile() {
        #expect(ResponseCheck.unexpectedContentEncoding(head(nil), url: media) == nil)
        #expect(ResponseCheck.unexpectedContentEncoding(head("identity"), url: media) == nil)
        #expect(ResponseCheck.unexpectedContentEncoding(head(" Identity "), url: media) == nil)
    }

    /// What download scripts write for "no coding" (PHP's `Content-Encoding: none`): the
    /// bytes are the file's, as curl, wget and aria2c store them.
    @Test(arguments: ["none", "None", "binary", "8bit"])
    func aScriptsWordForNoCodingIsTheFile(encoding: String) {
        #expect(ResponseCheck.unexpectedContentEncoding(head(encoding), url: media) == nil)
    }

    @Test(arguments: ["gzip", "br", "deflate", "identity, gzip", "x-gzip"])
    func anyOtherCodingIsRefused(encoding: String) {
        #expect(ResponseCheck.unexpectedContentEncoding(head(encoding), url: media) == encoding)
    }

    /// A file compressed already, which a server labels with its compression (Apache's
    /// `AddEncoding x-gzip .gz`): its bytes are the file, as curl and aria2 save them.
    @Test(arguments: [
        ("https://h/a.tar.gz", "x-gzip"), ("https://h/a.TGZ?x=1", "gzip"), ("https://h/a.zst", "zstd"), ("https://h/a.br", "br"),
    ])
    func theFilesOwnCompressionIsTheFile(url: String, encoding: String) {
        #expect(ResponseCheck.unexpectedContentEncoding(head(encoding), url: url) == nil)
    }

    @Test func anotherCompressionThanTheNamesIsRefused() {
        #expect(ResponseCheck.unexpectedContentEncoding(head("br"), url: "https://h/a.tar.gz") == "br")
    }

    @Test func unsatisfiedLengthReadsTheStarForm() {
        let answer = HTTPResponseHead(status: 416, headers: [(name: "content-range", value: "bytes */2048")])
        #expect(ResponseCheck.unsatisfiedLength(answer) == 2048)
        let other = HTTPResponseHead(status: 416, headers: [(name: "content-range", value: "bytes 0-1/2")])
        #expect(ResponseCheck.unsatisfiedLength(other) == nil)
    }
}

/// A response head from `headers` written as on the wire (`"ETag: \"a\""`).
private func head(_ status: Int, _ headers: String...) -> HTTPResponseHead {
    HTTPResponseHead(
        status: status,
        headers: headers.map { line in
            let colon = line.firstIndex(of: ":")!
            return (
                name: line[..<colon].lowercased(),
                value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            )
        })
}

private let mediaURL = "https://cdn.example/films/a.mp4"

/// What a job asks for, and what it holds, at the moments the rules tell apart.
private func check(
    _ head: HTTPResponseHead, probe: Bool = true, start: Int64 = 0, range: Bool = true, ifRange: Bool = false,
    url: String = mediaURL,
    held: Validators = Validators(), holdsBytes: Bool = false, announced: Set<Int64> = []
) -> ResponseCheck {
    ResponseCheck(
        head: head,
        asked: ResponseCheck.Asked(
            isProbe: probe, requestedStart: start, sentRange: range, sentIfRange: ifRange, url: url,
            urlExpectsText: MediaTypeCheck.expectsText(pathExtension: URLParts(url)?.pathExtension)),
        held: ResponseCheck.Held(validators: held, holdsBytes: holdsBytes, lengthsAnnounced: announced))
}

private let version1 = Validators(etag: "\"v1\"", lastModified: "Mon, 02 Nov 2026 10:00:00 GMT", length: 4096)

@Suite("ResponseCheck: a probe's answer")
struct ResponseCheckProbeTests {
    @Test func a206FromTheByteAskedForGivesLengthAndResponseEnd() {
        let answer = head(206, "Content-Range: bytes 0-1023/4096", "ETag: \"v1\"")
        #expect(check(answer).verdict() == .acceptProbe206(total: 4096, responseEnd: 1024, rangesSupported: true))
    }

    @Test func a206ResumingTheSameVersionIsAccepted() {
        let answer = head(206, "Content-Range: bytes 2048-4095/4096", "ETag: \"v1\"")
        let verdict = check(answer, start: 2048, ifRange: true, held: version1, holdsBytes: true).verdict()
        #expect(verdict == .acceptProbe206(total: 4096, responseEnd: 4096, rangesSupported: true))
    }

    /// Some servers leave validators off their 206s: absence is not a change.
    @Test func a206WithoutValidatorsResumesHeldBytes() {
        let answer = head(206, "Content-Range: bytes 2048-4095/4096")
        let verdict = check(answer, start: 2048, ifRange: true, held: version1, holdsBytes: true).verdict()
        #expect(verdict == .acceptProbe206(total: 4096, responseEnd: 4096, rangesSupported: true))
    }

    /// Ranges found mishandled stay off: a 206 to a request without Range is no proof.
    @Test func a206ToARequestWithoutRangeKeepsRangesOff() {
        let answer = head(206, "Content-Range: bytes 0-4095/4096")
        #expect(
            check(answer, range: false).verdict() == .acceptProbe206(total: 4096, responseEnd: 4096, rangesSupported: false))
    }

    /// Part of the file for a request of all of it: asked again, the origin gives the same
    /// part (one answering every request with bytes 0-10 was asked ~5,000 times a second).
    @Test func partOfTheFileToARequestWithoutRangeIsTheOriginsError() {
        let answer = head(206, "Content-Range: bytes 0-10/3000000")
        #expect(
            check(answer, range: false).verdict()
                == .originContradicts("the origin answered a request for the whole file with bytes 0-10 of 3000000"))
    }

    @Test(arguments: [
        ("Content-Range: bytes 100-1023/4096", "starts elsewhere"),
        ("Content-Range: bytes 0-1023/*", "no total"),
        ("Content-Range: items 0-1023/4096", "unparsable"),
        ("Content-Length: 1024", "missing"),
    ])
    func a206WithAWrongContentRangeFallsBackToOneStream(header: String, what: String) {
        #expect(
            check(head(206, header)).verdict()
                == .fallBackToSingleStream("the origin answered a range request with a wrong Content-Range"),
            "\(what)")
    }

    @Test(arguments: [
        ("ETag: \"v2\"", "ETag changed from \"v1\" to \"v2\""),
        ("Last-Modified: Tue, 03 Nov 2026 10:00:00 GMT", "Last-Modified changed from"),
    ])
    func a206OfAnotherVersionStartsOver(validator: String, expected: String) throws {
        let answer = head(206, "Content-Range: bytes 2048-4095/4096", validator)
        let verdict = check(answer, start: 2048, ifRange: true, held: version1, holdsBytes: true).verdict()
        guard case .versionChanged(let reason, let announced) = verdict else {
            Issue.record("expected a version change, got \(verdict)")
            return
        }
        #expect(reason.hasPrefix("the file changed on the origin since the last run: its "))
        #expect(reason.contains(expected))
        #expect(announced == 4096)
    }

    @Test func aNewLengthIsANewVersionAndIsRemembered() {
        let answer = head(206, "Content-Range: bytes 2048-8191/8192", "ETag: \"v2\"")
        let verdict = check(answer, start: 2048, held: version1, holdsBytes: true, announced: [4096]).verdict()
        guard case .versionChanged(let reason, let announced) = verdict else {
            Issue.record("expected a version change, got \(verdict)")
            return
        }
        #expect(reason.contains("length changed from 4096 to 8192 bytes"))
        #expect(announced == 8192)
    }

    @Test func twoLengthsForOneETagContradict() throws {
        let answer = head(206, "Content-Range: bytes 2048-8191/8192", "ETag: \"v1\"")
        let verdict = check(answer, start: 2048, held: version1, holdsBytes: true).verdict()
        guard case .originContradicts(let reason) = verdict else {
            Issue.record("expected a contradiction, got \(verdict)")
            return
        }
        #expect(reason.contains("both 4096 and 8192 bytes as the length for one version"))
    }

    /// An origin flipping between two versions gives a length it gave before a restart.
    @Test func aLengthGivenBeforeARestartContradicts() throws {
        let answer = head(206, "Content-Range: bytes 2048-8191/8192", "ETag: \"v0\"")
        let verdict = check(answer, start: 2048, held: version1, holdsBytes: true, announced: [8192, 4096]).verdict()
        guard case .originContradicts(let reason) = verdict else {
            Issue.record("expected a contradiction, got \(verdict)")
            return
        }
        #expect(reason.contains("both 4096 and 8192 bytes as the length"))
        #expect(!reason.contains("for one version"))
    }

    @Test func a200WithNothingHeldIsTheWholeFile() {
        let answer = head(200, "Content-Length: 4096", "Accept-Ranges: bytes")
        // Without If-Range, a 200 to a range request says Range is not honoured.
        #expect(check(answer).verdict() == .acceptWhole200(length: 4096, startOver: nil, rangesSupported: false))
    }

    @Test func a200WithoutLengthStreamsToTheEnd() {
        #expect(check(head(200)).verdict() == .acceptWhole200(length: nil, startOver: nil, rangesSupported: false))
    }

    /// A 200 to If-Range names a new version; ranges still work for it.
    @Test func a200ToIfRangeWithNewValidatorsIsANewVersion() {
        let answer = head(200, "Content-Length: 4096", "Accept-Ranges: bytes", "ETag: \"v2\"")
        let verdict = check(answer, start: 2048, ifRange: true, held: version1, holdsBytes: true).verdict()
        #expect(verdict == .acceptWhole200(length: 4096, startOver: .versionChanged, rangesSupported: true))
    }

    @Test func a200ToIfRangeWithoutAcceptRangesOrLengthDisablesRanges() {
        let noAcceptRanges = head(200, "Content-Length: 4096", "ETag: \"v2\"")
        let noLength = head(200, "Accept-Ranges: bytes", "ETag: \"v2\"")
        for answer in [noAcceptRanges, noLength] {
            let verdict = check(answer, start: 2048, ifRange: true, held: version1, holdsBytes: true).verdict()
            guard case .acceptWhole200(_, .versionChanged, let rangesSupported) = verdict else {
                Issue.record("expected a new version, got \(verdict)")
                continue
            }
            #expect(!rangesSupported)
        }
    }

    @Test func a200ToARangeOfTheSameVersionIgnoredTheRange() {
        let sameVersion = head(200, "Content-Length: 4096", "Accept-Ranges: bytes", "ETag: \"v1\"")
        #expect(
            check(sameVersion, start: 2048, ifRange: true, held: version1, holdsBytes: true).verdict()
                == .acceptWhole200(length: 4096, startOver: .rangeIgnored, rangesSupported: true))
        // Without If-Range a changed validator cannot be told from a Range ignored.
        let changed = head(200, "Content-Length: 4096", "ETag: \"v2\"")
        #expect(
            check(changed, start: 2048, held: version1, holdsBytes: true).verdict()
                == .acceptWhole200(length: 4096, startOver: .rangeIgnored, rangesSupported: false))
    }

    @Test(arguments: [
        ("text/html", mediaURL, "text/html"),
        ("text/plain; charset=utf-8", mediaURL, "text/plain"),
        ("application/json", mediaURL, "application/json"),
        ("video/mp4", mediaURL, nil),
        ("text/html", "https://cdn.example/page.html", nil),
    ] as [(String, String, String?)])
    func aTextTypeOnAMediaURLIsSuspect(contentType: String, url: String, suspect: String?) {
        #expect(check(head(200, "Content-Type: \(contentType)"), url: url).suspectMediaType == suspect)
    }
}

@Suite("ResponseCheck: a fragment's answer")
struct ResponseCheckFragmentTests {
    @Test func a206FromTheByteAskedForIsAccepted() {
        let answer = head(206, "Content-Range: bytes 1024-2047/4096", "ETag: \"v1\"")
        let verdict = check(answer, probe: false, start: 1024, ifRange: true, held: version1, holdsBytes: true).verdict()
        #expect(verdict == .acceptFragment(responseEnd: 2048))
    }

    @Test func a206FromAnotherByteFallsBackToOneStream() {
        let answer = head(206, "Content-Range: bytes 0-2047/4096", "ETag: \"v1\"")
        let verdict = check(answer, probe: false, start: 1024, held: version1, holdsBytes: true).verdict()
        #expect(verdict == .fallBackToSingleStream("the origin answered a range request with a wrong Content-Range"))
    }

    @Test func a206OfAnotherVersionStartsOver() {
        let answer = head(206, "Content-Range: bytes 1024-2047/4096", "ETag: \"v2\"")
        let verdict = check(answer, probe: false, start: 1024, held: version1, holdsBytes: true).verdict()
        guard case .versionChanged(let reason, _) = verdict else {
            Issue.record("expected a version change, got \(verdict)")
            return
        }
        #expect(reason.hasPrefix("the file changed on the origin during the download: its ETag changed"))
    }

    @Test func a200OfTheSameVersionMeansRangeIsIgnored() {
        let answer = head(200, "Content-Length: 4096", "ETag: \"v1\"")
        let verdict = check(answer, probe: false, start: 1024, held: version1, holdsBytes: true).verdict()
        #expect(verdict == .fallBackToSingleStream("the origin ignored a Range request"))
    }

    @Test func a200OfAnotherVersionStartsOver() {
        let answer = head(200, "Content-Length: 4096", "ETag: \"v2\"")
        let verdict = check(answer, probe: false, start: 1024, ifRange: true, held: version1, holdsBytes: true).verdict()
        guard case .versionChanged(let reason, let announced) = verdict else {
            Issue.record("expected a version change, got \(verdict)")
            return
        }
        #expect(reason.contains("during the download"))
        #expect(announced == 4096)
    }
}

@Suite("ResponseCheck: other statuses")
struct ResponseCheckStatusTests {
    @Test func anEmptyFileIsKnownFromA416() {
        let answer = head(416, "Content-Range: bytes */0", "ETag: \"e\"", "Content-Length: 0")
        #expect(check(answer).verdict() == .emptyFile(Validators(etag: "\"e\"", length: 0)))
    }

    @Test func a416ForARangeInsideTheFileFallsBackToOneStream() {
        let answer = head(416, "Content-Range: bytes */4096")
        #expect(
            check(answer, probe: false, start: 1024, held: version1, holdsBytes: true).verdict()
                == .fallBackToSingleStream("the origin refused a range inside the file (HTTP 416)"))
    }

    @Test func a416WithNothingHeldIsFatal() {
        #expect(check(head(416, "Content-Range: bytes */4096"), start: 8192).verdict() == .fatalStatus(416))
        #expect(check(head(416), start: 8192).verdict() == .fatalStatus(416))
    }

    /// Only an empty file cannot serve a range from byte 0; a request without Range tells.
    @Test func aBare416ToTheFirstRangeFallsBackToOneStream() {
        #expect(check(head(416)).verdict() == .fallBackToSingleStream("the origin refused a range from the file's start (HTTP 416)"))
    }

    /// Falling back to one stream would ask the same again: an origin answering 416 to
    /// every request once looped here.
    @Test func a416ToARequestWithoutRangeIsTheOriginsError() {
        for answer in [head(416), head(416, "Content-Range: bytes */5000")] {
            #expect(
                check(answer, range: false).verdict()
                    == .originContradicts("the origin answered HTTP 416 (Range Not Satisfiable) to a request without Range"))
        }
    }

    @Test(arguments: [200, 206])
    func conflictingContentLengthsAreRefused(status: Int) {
        let answer = head(status, "Content-Range: bytes 0-2999999/3000000", "Content-Length: 3000000", "Content-Length: 2999900")
        let expected = ResponseCheck.Verdict.originContradicts(
            "the origin sent conflicting Content-Length values (3000000, 2999900), so where its answer ends is unknown")
        #expect(check(answer).verdict() == expected)
        #expect(check(answer, probe: false).verdict() == expected)
        #expect(head(200, "Content-Length: 1, 2").conflictingContentLengths == ["1", "2"])
        #expect(head(200, "Content-Length: 7, 7").conflictingContentLengths == nil)
        #expect(head(200, "Content-Length: 7").conflictingContentLengths == nil)
    }

    /// A broken proxy's 200 for part of the file is not the whole file.
    @Test func a200WithAContentRangeForPartOfTheFileFallsBackToOneStream() {
        let part = head(200, "Content-Range: bytes 0-8388607/10000000", "Content-Length: 8388608")
        #expect(
            check(part).verdict()
                == .fallBackToSingleStream(
                    "the origin answered with 200 and a Content-Range for part of the file (0-8388607/10000000)"))
        let whole = head(200, "Content-Range: bytes 0-4095/4096", "Content-Length: 4096")
        #expect(check(whole).verdict() == .acceptWhole200(length: 4096, startOver: nil, rangesSupported: false))
    }

    @Test func a416PastTheEndOfAShorterFileIsANewVersion() {
        let answer = head(416, "Content-Range: bytes */2048")
        #expect(
            check(answer, start: 3072, held: version1, holdsBytes: true).verdict()
                == .versionChanged(
                    "the file on the origin is shorter than before (2048 bytes, was 4096)", announcedLength: nil))
        #expect(
            check(head(416), start: 3072, held: version1, holdsBytes: true).verdict()
                == .versionChanged("the file on the origin is shorter than before", announcedLength: nil))
    }

    @Test(arguments: [200, 206])
    func anEncodedBodyIsRefused(status: Int) {
        let answer = head(status, "Content-Range: bytes 0-1023/4096", "Content-Length: 1024", "Content-Encoding: gzip")
        #expect(check(answer).verdict() == .refuseEncoding("gzip"))
        #expect(check(answer, probe: false).verdict() == .refuseEncoding("gzip"))
    }

    @Test func aRedirectResolvesItsLocation() {
        #expect(
            check(head(302, "Location: /b.mp4")).verdict() == .redirect(to: "https://cdn.example/b.mp4"))
        #expect(check(head(307)).verdict() == .badRedirect("HTTP 307 without a usable Location"))
    }

    @Test func aTransientStatusCarriesRetryAfter() {
        #expect(check(head(503, "Retry-After: 7")).verdict() == .transientStatus(503, retryAfter: 7))
        #expect(check(head(429), probe: false).verdict() == .transientStatus(429, retryAfter: nil))
    }

    /// A token that expired mid-download answers with a login page: not a new version of
    /// the file, so nothing held is dropped, and asking again is worth it.
    @Test func anHTMLPageForBytesOfAFileHeldInPartIsAnErrorPage() {
        let page = head(200, "Content-Type: text/html; charset=utf-8", "Content-Length: 38")
        let expected = ResponseCheck.Verdict.errorPage(
            "the origin answered with an HTML page instead of the file's bytes (an error or login page?)")
        #expect(check(page, probe: false, start: 1024, held: version1, holdsBytes: true).verdict() == expected)
        #expect(check(page, start: 1024, ifRange: true, held: version1, holdsBytes: true).verdict() == expected)
        // A first answer's body decides (the sniff); a URL that names HTML may be one.
        #expect(check(page).verdict() == .acceptWhole200(length: 38, startOver: nil, rangesSupported: false))
        #expect(
            check(page, probe: false, start: 1024, url: "https://cdn.example/index.html", held: version1, holdsBytes: true)
                .verdict() != expected)
    }

    /// A login in the URL that the origin refused is what to check, not cookies.
    @Test func a401ToALoginInTheURLSaysSo() {
        #expect(DownloadJob.advice(401, url: "https://user:secret@cdn.example/a.mp4").contains("user name and password in the URL"))
        #expect(DownloadJob.advice(401, url: "https://cdn.example/a.mp4").contains("--load-cookies"))
        #expect(DownloadJob.advice(403, url: "https://user:secret@cdn.example/a.mp4").contains("--load-cookies"))
    }

    @Test(arguments: [403, 404, 410, 501])
    func otherStatusesAreFatal(status: Int) {
        #expect(check(head(status)).verdict() == .fatalStatus(status))
    }
}

@Suite("ResponseCheck: error pages in the first bytes")
struct ResponseCheckErrorPageTests {
    private let page = Array("<!DOCTYPE html><html><body>Sign in</body></html>".utf8)
    private let mp4: [UInt8] = [0x00, 0x00, 0x00, 0x18, 0x66, 0x74, 0x79, 0x70, 0x6D, 0x70, 0x34, 0x32]

    @Test func textUnderASuspectLabelIsRefused() throws {
        let reason = try #require(
            ResponseCheck.errorPage(
                firstBytes: Array("Forbidden\n".utf8), suspectMediaType: "text/plain", atFileStart: false,
                urlExpectsText: false))
        #expect(reason.contains("text/plain instead of media"))
    }

    @Test func mediaUnderASuspectLabelIsKept() {
        #expect(
            ResponseCheck.errorPage(firstBytes: mp4, suspectMediaType: "text/plain", atFileStart: true, urlExpectsText: false)
                == nil)
    }

    @Test func anHTMLStartIsRefusedWhateverItsLabel() throws {
        let reason = try #require(
            ResponseCheck.errorPage(firstBytes: page, suspectMediaType: nil, atFileStart: true, urlExpectsText: false))
        #expect(reason.contains("HTML page instead of media"))
    }

    @Test func htmlInsideTheFileOrForATextURLIsKept() {
        let inside = ResponseCheck.errorPage(
            firstBytes: page, suspectMediaType: nil, atFileStart: false, urlExpectsText: false)
        let forText = ResponseCheck.errorPage(firstBytes: page, suspectMediaType: nil, atFileStart: true, urlExpectsText: true)
        #expect(inside == nil)
        #expect(forText == nil)
    }
}

/// What a final status's message tells a user to do.
@Suite("Status advice")
struct StatusAdviceTests {
    @Test func a401ToALoginGivenSaysToCheckIt() {
        var request = HTTPRequest(url: "https://h/v.mp4", headers: [], stallTimeout: 10)
        #expect(DownloadJob.advice(401, url: request.url, request: request).contains("the origin wants a login"))
        request.client.netrcFile = "/home/u/.netrc"
        #expect(DownloadJob.advice(401, url: request.url, request: request).contains("refused the login given"))
        let bearer = HTTPRequest(url: "https://h/v.mp4", headers: ["Authorization: Bearer x"], stallTimeout: 10)
        #expect(DownloadJob.advice(401, url: bearer.url, request: bearer).contains("refused the login given"))
        #expect(DownloadJob.advice(401, url: "https://u:p@h/v.mp4").contains("user name and password in the URL"))
    }
}
