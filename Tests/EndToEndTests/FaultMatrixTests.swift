import Foundation
import Testing
import TestOrigin
import TestSupport

extension EndToEnd {
    /// One test per origin fault not covered by OriginFaults/Resume. Each ends with the
    /// origin's exact bytes in the cache, or a clear failure (exit 1, the URL named) in
    /// bounded time with nothing under objects/.
    @Suite struct FaultMatrix {
        let origin: TestOrigin
        let harness = Harness()
        let bytes = TestBytes.make(2 << 20, seed: 77)

        init() throws { origin = try TestOrigin() }

        func serve(_ faults: Faults, _ content: [UInt8]? = nil, path: String = "/f.mp4") {
            origin.serve(path, Resource(content ?? bytes, contentType: "video/mp4", faults: faults))
        }

        /// Exit 1 naming `url` (and `reason`), nothing cached.
        func expectCleanFailure(_ result: RunResult, _ url: String, _ reason: String) throws {
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.contains("FAILED   \(url): "), "\(result.stderr)")
            #expect(result.stderr.contains(reason), "\(result.stderr)")
            #expect(try harness.cachedBytes(url) == nil)
            #expect(harness.scratch.objectFiles.isEmpty)
        }

        /// Runs once with a drop and no retries, so partial progress is saved; returns it.
        func leavePartial(_ resource: Resource) throws -> Int64 {
            origin.serve("/f.mp4", resource)
            let first = try harness.prefetch(list: origin.url("/f.mp4"), ["-x", "1", "--retries", "0"])
            #expect(first.status == 1, "\(first.stderr)")
            let saved = try harness.savedBytes()
            #expect(saved > 0, "the first run kept its progress")
            origin.clearLog()
            return saved
        }

        // MARK: Connections cut short

        @Test func connectionResetsAtRandomOffsetsAreRetried() throws {
            var generator = SeededGenerator(seed: 2024)
            let offsets = (0..<6).map { _ in Int.random(in: 0..<200_000, using: &generator) }
            var faults = Faults()
            faults.resetAfterBytes = offsets
            serve(faults)
            let result = try harness.prefetch(list: origin.url("/f.mp4"), ["-x", "4", "--min-fragment", "256K"])
            #expect(result.status == 0, "offsets \(offsets): \(result.stderr)")
            #expect(try harness.cachedBytes(origin.url("/f.mp4")) == bytes)
            // A real RST, not an orderly close: libcurl reports the reset.
            #expect(result.stderr.contains("Connection reset by peer"), "\(result.stderr)")
            // Every offset went to a response, which was reset there, or which the client
            // had ended sooner (a range it split, or gave up to another connection).
            let requests = origin.requests(for: "/f.mp4")
            #expect(requests.compactMap(\.resetPlannedAt).sorted() == offsets.sorted(), "\(requests)")
            for request in requests {
                guard let planned = request.resetPlannedAt else { continue }
                #expect(request.bodyBytesSent <= planned, "reset planned at \(planned), sent \(request.bodyBytesSent)")
            }
            #expect(Harness.bytesServed(origin, "/f.mp4") < bytes.count + offsets.reduce(0, +) + 1_000_000)
        }

        @Test func everyResponseShorterThanItsContentLengthStillCompletes() throws {
            var faults = Faults()
            faults.dropAfterBytes = 100_000
            faults.dropCount = Int.max
            let content = TestBytes.make(1 << 20, seed: 85)
            serve(faults, content)
            let result = try harness.prefetch(list: origin.url("/f.mp4"), ["-x", "3", "--min-fragment", "128K"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try harness.cachedBytes(origin.url("/f.mp4")) == content)
            let requests = origin.requests(for: "/f.mp4")
            #expect(requests.allSatisfy { $0.bodyBytesSent <= 100_000 })
            #expect(requests.count >= content.count / 100_000)
        }

        /// Without ranges every attempt starts at byte 0: bytes arriving again are not
        /// progress, so the retries run out instead of looping forever.
        @Test func alwaysShortStreamWithoutRangesFailsWithinItsRetries() throws {
            var faults = Faults()
            faults.ignoreRange = true
            faults.dropAfterBytes = 100_000
            faults.dropCount = Int.max
            serve(faults)
            let url = origin.url("/f.mp4")
            let result = try harness.prefetch(list: url, ["--retries", "2"], timeout: 30)
            try expectCleanFailure(result, url, "gave up after 2 retries")
            #expect(result.seconds < 10)
            #expect(origin.requests(for: "/f.mp4").count == 3, "one try and two retries")
        }

        // MARK: The origin's file changes

        @Test func etagChangeMidDownloadWithTheSameLengthRestarts() throws {
            var faults = Faults()
            faults.bytesPerSecond = 1_000_000
            serve(faults)
            let run = try harness.startPrefetch(list: origin.url("/f.mp4"), ["-x", "4", "--min-fragment", "128K"])
            Harness.waitUntil(timeout: 10) { origin.requests(for: "/f.mp4").count >= 4 }
            let newer = TestBytes.make(bytes.count, seed: 78)
            serve(faults, newer)
            let result = run.wait(timeout: 60)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("changed on the origin"))
            #expect(try harness.cachedBytes(origin.url("/f.mp4")) == newer)
        }

        /// The note about a changed file quotes the origin's ETags: escape sequences in one
        /// (a window title, colours, a cleared screen) never reach the terminal.
        @Test func anETagWithEscapeSequencesIsShownWithoutThem() throws {
            var faults = Faults()
            faults.bytesPerSecond = 1_000_000
            faults.ignoreIfRange = true
            origin.serve("/f.mp4", Resource(bytes, contentType: "video/mp4", faults: faults))
            let run = try harness.startPrefetch(list: origin.url("/f.mp4"), ["-x", "4", "--min-fragment", "128K"])
            Harness.waitUntil(timeout: 10) { origin.requests(for: "/f.mp4").count >= 4 }
            let newer = TestBytes.make(bytes.count, seed: 83)
            let hostile = "\"\u{1B}]0;pwned\u{07}\u{1B}[31mv2\u{1B}[0m\""
            origin.serve("/f.mp4", Resource(newer, contentType: "video/mp4", etag: hostile, faults: faults))
            let result = run.wait(timeout: 60)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("changed on the origin during the download"), "\(result.stderr)")
            #expect(result.stderr.contains("?]0;pwned??[31mv2?[0m"), "\(result.stderr)")
            #expect(!result.stderr.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" }, "\(result.stderr)")
            #expect(try harness.cachedBytes(origin.url("/f.mp4")) == newer)
        }

        /// Only Last-Modified identifies the version, and the origin serves ranges of the
        /// new one whatever If-Range says: the engine itself must notice the new date.
        @Test func lastModifiedOnlyChangeMidDownloadRestarts() throws {
            var faults = Faults()
            faults.bytesPerSecond = 1_000_000
            faults.ignoreIfRange = true
            origin.serve("/f.mp4", Resource(bytes, contentType: "video/mp4", etag: nil, faults: faults))
            let run = try harness.startPrefetch(list: origin.url("/f.mp4"), ["-x", "4", "--min-fragment", "128K"])
            Harness.waitUntil(timeout: 10) { origin.requests(for: "/f.mp4").count >= 4 }
            let newer = TestBytes.make(bytes.count, seed: 79)
            origin.serve(
                "/f.mp4",
                Resource(newer, contentType: "video/mp4", etag: nil, lastModified: "Thu, 22 Oct 2015 07:28:00 GMT", faults: faults))
            let result = run.wait(timeout: 60)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("changed on the origin during the download"))
            #expect(try harness.cachedBytes(origin.url("/f.mp4")) == newer)
        }

        @Test(arguments: [false, true])
        func lastModifiedOnlyChangeBetweenRunsStartsOver(originIgnoresIfRange: Bool) throws {
            var faults = Faults()
            faults.dropAfterBytes = 300_000
            _ = try leavePartial(Resource(bytes, contentType: "video/mp4", etag: nil, faults: faults))
            let newer = TestBytes.make(bytes.count, seed: 80)
            var later = Faults()
            later.ignoreIfRange = originIgnoresIfRange
            origin.serve(
                "/f.mp4",
                Resource(newer, contentType: "video/mp4", etag: nil, lastModified: "Thu, 22 Oct 2015 07:28:00 GMT", faults: later))
            let result = try harness.prefetch(list: origin.url("/f.mp4"))
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("changed on the origin since the last run"))
            #expect(try harness.cachedBytes(origin.url("/f.mp4")) == newer)
            let first = try #require(origin.requests(for: "/f.mp4").first)
            #expect(first.headers["if-range"] == Resource.defaultLastModified, "the resume asked with the old date")
        }

        // MARK: 416

        /// A broken origin answers every range with 416 although the file is longer.
        @Test func rangesRefusedWith416FallBackToOneStream() throws {
            var faults = Faults()
            faults.unsatisfiableRanges = true
            serve(faults)
            let result = try harness.prefetch(list: origin.url("/f.mp4"), ["-x", "4", "--min-fragment", "256K"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("refused a range inside the file (HTTP 416); fetching it as one stream"))
            #expect(try harness.cachedBytes(origin.url("/f.mp4")) == bytes)
            let last = try #require(origin.requests(for: "/f.mp4").last)
            #expect(last.rangeHeader == nil && last.status == 200)
        }

        /// An origin that answers 416 even without Range once made the job fall back to one
        /// stream, be refused, and fall back again, about a thousand times a second.
        @Test func an416WithoutRangeFailsInsteadOfLooping() throws {
            var faults = Faults()
            faults.alwaysUnsatisfiable = true
            serve(faults)
            let url = origin.url("/f.mp4")
            let result = try harness.prefetch(list: url, ["-x", "1"], timeout: 20)
            try expectCleanFailure(result, url, "the origin answered HTTP 416 (Range Not Satisfiable) to a request without Range")
            let requests = origin.requests(for: "/f.mp4")
            #expect(requests.count == 2, "\(requests.map(\.rangeHeader))")
            #expect(requests.last?.rangeHeader == nil)
        }

        /// Two Content-Length values: libcurl goes by one of them, and the other may be
        /// the truth (RFC 9112, 6.3: an unrecoverable error).
        @Test func conflictingContentLengthsFailTheFile() throws {
            var faults = Faults()
            faults.secondContentLength = bytes.count - 100
            serve(faults)
            let url = origin.url("/f.mp4")
            let result = try harness.prefetch(list: url, ["--retries", "1"])
            try expectCleanFailure(result, url, "conflicting Content-Length values")
        }

        /// A broken proxy answers a Range request with 200 for part of the file and a
        /// Content-Range that says so: that part is not the file; one stream is.
        @Test func a200ForPartOfTheFileIsNotTheFile() throws {
            var faults = Faults()
            faults.partialBodyAs200 = 300_000
            serve(faults)
            let url = origin.url("/f.mp4")
            let result = try harness.prefetch(list: url)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("200 and a Content-Range for part of the file (0-299999/\(bytes.count)); fetching it as one stream"), "\(result.stderr)")
            #expect(try harness.cachedBytes(url) == bytes)
        }

        /// A resume whose first answers are a login page (a token that expired, then was
        /// renewed): retried, the bytes held kept, the file completed exactly. It was taken
        /// for a new version, the held bytes dropped, and the page failed the file.
        @Test func aLoginPageMidDownloadIsRetriedAndKeepsWhatIsHeld() throws {
            var faults = Faults()
            faults.dropAfterBytes = 900_000
            let held = try leavePartial(Resource(bytes, contentType: "video/mp4", faults: faults))
            var later = Faults()
            let page = ScriptedStatus(200, body: "<html><body>Log in</body></html>", contentType: "text/html")
            later.statusSequence = [page, page]
            serve(later)
            let url = origin.url("/f.mp4")
            let result = try harness.prefetch(list: url, ["--retries", "3"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("an HTML page instead of the file's bytes"), "\(result.stderr)")
            #expect(try harness.cachedBytes(url) == bytes)
            let ranges = origin.requests(for: "/f.mp4").compactMap(\.rangeHeader)
            #expect(ranges.contains { $0.hasPrefix("bytes=\(held)-") }, "\(ranges)")
            #expect(!ranges.contains { $0.hasPrefix("bytes=0-") }, "the held bytes were fetched again: \(ranges)")
        }

        /// The file shrank below the resume point (and the origin ignores If-Range): 416.
        @Test func fileShrunkBetweenRunsAnswers416AndStartsOver() throws {
            var faults = Faults()
            faults.dropAfterBytes = 600_000
            let held = try leavePartial(Resource(bytes, contentType: "video/mp4", faults: faults))
            let shorter = TestBytes.make(Int(held) / 2, seed: 81)
            var later = Faults()
            later.ignoreIfRange = true
            serve(later, shorter)
            let result = try harness.prefetch(list: origin.url("/f.mp4"))
            #expect(result.status == 0, "\(result.stderr)")
            #expect(origin.requests(for: "/f.mp4").first?.status == 416)
            #expect(
                result.stderr.contains("shorter than before (\(shorter.count) bytes, was \(bytes.count)); starting over"),
                "\(result.stderr)")
            #expect(try harness.cachedBytes(origin.url("/f.mp4")) == shorter)
        }

        /// Range responses past byte 0 give another total than the first response. With
        /// an ETag that is one version with two lengths: the run stops at once, saying so.
        /// Without validators it is given one restart, then the same contradiction ends it.
        @Test(arguments: [true, false])
        func contentRangeTotalThatContradictsTheFirstResponseStopsSoon(withValidators: Bool) throws {
            var faults = Faults()
            faults.misstatedTotal = bytes.count - 1000
            let resource = withValidators
                ? Resource(bytes, contentType: "video/mp4", faults: faults)
                : Resource.noValidators(bytes, contentType: "video/mp4", faults: faults)
            origin.serve("/f.mp4", resource)
            let url = origin.url("/f.mp4")
            let result = try harness.prefetch(list: url, ["-x", "4", "--min-fragment", "256K"], timeout: 30)
            try expectCleanFailure(
                result, url, "the origin contradicts itself: it gave both \(bytes.count) and \(bytes.count - 1000) bytes as the length")
            #expect(result.stderr.contains("for one version") == withValidators, "\(result.stderr)")
            let restarts = result.stderr.components(separatedBy: "starting over").count - 1
            #expect(restarts == (withValidators ? 0 : 1), "\(result.stderr)")
            if !withValidators {
                #expect(
                    result.stderr.contains(
                        "the file changed on the origin during the download: its length changed from \(bytes.count) to \(bytes.count - 1000) bytes; starting over"),
                    "\(result.stderr)")
            }
            #expect(try !harness.resumableURLs().contains(url))
        }

        // MARK: Error statuses

        @Test func transientStatusesWithoutRetryAfterBackOffAndRecover() throws {
            var faults = Faults()
            faults.statusSequence = [ScriptedStatus(500), ScriptedStatus(503), ScriptedStatus(429)]
            serve(faults)
            let result = try harness.prefetch(list: origin.url("/f.mp4"), ["-x", "1"])
            #expect(result.status == 0, "\(result.stderr)")
            for status in ["HTTP 500 Internal Server Error", "HTTP 503 Service Unavailable", "HTTP 429 Too Many Requests"] {
                #expect(result.stderr.contains("retry    \(origin.url("/f.mp4")): \(status) (attempt"), "\(result.stderr)")
            }
            #expect(Array(origin.requests(for: "/f.mp4").map(\.status).prefix(4)) == [500, 503, 429, 206])
            #expect(try harness.cachedBytes(origin.url("/f.mp4")) == bytes)
        }

        @Test func retryAfterOn500AndAsAnHTTPDateIsHonoured() throws {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            let inThreeSeconds = formatter.string(from: Date().addingTimeInterval(3))
            var faults = Faults()
            faults.statusSequence = [ScriptedStatus(429, retryAfter: inThreeSeconds), ScriptedStatus(500, retryAfter: "1")]
            serve(faults)
            let result = try harness.prefetch(list: origin.url("/f.mp4"), ["-x", "1"])
            #expect(result.status == 0, "\(result.stderr)")
            // The date has one-second resolution and the process takes a moment to start:
            // the first wait is about 1.7 to 3 s, the second 1 s.
            #expect(result.seconds >= 2.5, "took \(result.seconds) s")
            #expect(result.seconds < 8, "took \(result.seconds) s")
            #expect(try harness.cachedBytes(origin.url("/f.mp4")) == bytes)
        }

        @Test func persistent500FailsNamingURLAndStatusWithinBoundedTime() throws {
            var faults = Faults()
            faults.statusSequence = Array(repeating: ScriptedStatus(500), count: 100)
            serve(faults)
            let url = origin.url("/f.mp4")
            let result = try harness.prefetch(list: url, ["--retries", "2"], timeout: 30)
            try expectCleanFailure(result, url, "FAILED   \(url): gave up after 2 retries: HTTP 500 Internal Server Error\n")
            #expect(result.seconds < 8, "took \(result.seconds) s")
            #expect(origin.requests(for: "/f.mp4").count == 3)
        }

        // MARK: Slow and unusual bodies

        @Test func trickleBelowTheLowestSpeedLimitIsAbandonedAndRetried() throws {
            var faults = Faults()
            faults.trickleBytesPerSecond = 4_000
            faults.trickleCount = 1
            let content = TestBytes.make(600_000, seed: 82)
            serve(faults, content)
            let result = try harness.prefetch(
                list: origin.url("/f.mp4"), ["-x", "1", "--timeout", "1", "--lowest-speed-limit", "64K"], timeout: 30)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("slower than 64.0 KiB/s for 1 s"), "\(result.stderr)")
            #expect(result.seconds < 8, "took \(result.seconds) s")
            #expect(origin.requests(for: "/f.mp4").count >= 2)
            #expect(try harness.cachedBytes(origin.url("/f.mp4")) == content)
        }

        @Test func chunkedBodyWithoutLengthOrRangesIsCachedExactly() throws {
            var faults = Faults()
            faults.chunked = true
            serve(faults)
            let result = try harness.prefetch(list: origin.url("/f.mp4"), ["-x", "4", "--min-fragment", "256K"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try harness.cachedBytes(origin.url("/f.mp4")) == bytes)
            #expect(origin.requests(for: "/f.mp4").map(\.status) == [200])
        }

        /// Transfer-Encoding frames the body and a Content-Length beside it is ignored
        /// (RFC 9112 6.3), as curl and aria2c do: a smaller one stored the file cut short
        /// (exit 0, for good), a larger one fetched the whole file again and again, forever.
        @Test(arguments: [100, 300_000, 4_000_000])
        func aContentLengthBesideChunkedIsIgnored(length: Int) throws {
            var faults = Faults()
            faults.chunked = true
            faults.contentLengthBesideChunked = length
            serve(faults)
            let result = try harness.prefetch(list: origin.url("/f.mp4"), ["--retries", "2"], timeout: 30)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try harness.cachedBytes(origin.url("/f.mp4")) == bytes)
            #expect(origin.requests(for: "/f.mp4").count == 1)
        }

        @Test func chunkedBodyCutBeforeItsLastChunkIsFetchedAgain() throws {
            var faults = Faults()
            faults.chunked = true
            faults.dropAfterBytes = 700_000
            serve(faults)
            let result = try harness.prefetch(list: origin.url("/f.mp4"), timeout: 20)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("retry"))
            #expect(try harness.cachedBytes(origin.url("/f.mp4")) == bytes)
            #expect(origin.requests(for: "/f.mp4").count == 2)
        }

        // MARK: Responses that deliver every byte, then end badly

        /// Every response brings its whole range and then ends with a transport error.
        /// The bytes are all there: the file must commit, not retry forever at 100 %.
        @Test(arguments: [BadEnding.overstatedLength, .missingLastChunk], [40_000, 2 << 20])
        func wholeRangeThenABrokenEndingStillCommits(_ ending: BadEnding, size: Int) throws {
            var faults = Faults()
            switch ending {
            case .overstatedLength: faults.overstatedLength = 500
            case .missingLastChunk: faults.missingLastChunk = true
            }
            let content = TestBytes.make(size, seed: 86)
            serve(faults, content)
            let url = origin.url("/f.mp4")
            let result = try harness.prefetch(
                list: url, ["-x", "4", "--min-fragment", "256K", "--timeout", "5"], timeout: 30)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.seconds < 10, "took \(result.seconds) s")
            #expect(try harness.cachedBytes(url) == content)
            // Each byte was asked for once: a bad ending is not a reason to fetch again.
            #expect(Harness.bytesServed(origin, "/f.mp4") == content.count)
            #expect(try !harness.resumableURLs().contains(url))
        }

        enum BadEnding: CustomStringConvertible, CaseIterable {
            case overstatedLength, missingLastChunk
            var description: String { self == .overstatedLength ? "Content-Length 500 too long" : "no last chunk" }
        }

        // MARK: Redirects

        @Test func redirectLoopFailsClearlyAndQuickly() throws {
            var toB = Faults()
            toB.redirectTo = origin.url("/b.mp4")
            var toA = Faults()
            toA.redirectTo = origin.url("/a.mp4")
            serve(toB, path: "/a.mp4")
            serve(toA, path: "/b.mp4")
            let url = origin.url("/a.mp4")
            let result = try harness.prefetch(list: url, timeout: 30)
            try expectCleanFailure(result, url, "more than 10 redirects")
            #expect(result.seconds < 5)
            #expect(origin.requests.count <= 12)
        }

        /// A redirect to another origin (same host, other port) with credentials from the
        /// list and from -H: none reach it, not even on retries after a dropped connection.
        @Test func credentialsAreNotSentToTheRedirectTarget() throws {
            let other = try TestOrigin()
            var flaky = Faults()
            flaky.dropAfterBytes = 150_000
            flaky.dropCount = 2
            other.serve("/real.mp4", Resource(bytes, contentType: "video/mp4", faults: flaky))
            var faults = Faults()
            faults.redirectTo = other.url("/real.mp4")
            serve(faults)
            let list = """
                \(origin.url("/f.mp4"))
                  header=Authorization: Bearer LIST-SECRET
                  header=Cookie: session=LIST-SECRET
                """
            let result = try harness.prefetch(
                list: list, ["-H", "X-Api-Key: CLI-SECRET", "-x", "3", "--min-fragment", "256K"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try harness.cachedBytes(origin.url("/f.mp4")) == bytes)
            let first = try #require(origin.requests(for: "/f.mp4").first)
            #expect(first.headers["authorization"] == "Bearer LIST-SECRET")
            #expect(first.headers["cookie"] == "session=LIST-SECRET")
            #expect(first.headers["x-api-key"] == "CLI-SECRET")
            let redirected = other.requests(for: "/real.mp4")
            #expect(redirected.count >= 3, "fragments and retries went to the target")
            for request in redirected {
                #expect(!request.headers.values.contains { $0.contains("SECRET") }, "\(request.headers)")
            }
        }

        // MARK: TLS

        @Test func selfSignedCertificateIsRefusedUnlessInsecure() throws {
            let root = harness.scratch.path + "/www"
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            let content = TestBytes.make(900_000, seed: 83)
            FileManager.default.createFile(atPath: root + "/tls.mp4", contents: Data(content))
            let server = try NginxServer(root: root, scratch: harness.scratch.path, tls: true)
            defer { server.stop() }
            let url = server.url("/tls.mp4")
            #expect(url.hasPrefix("https://"))

            let refused = try harness.prefetch(list: url, timeout: 30)
            try expectCleanFailure(refused, url, "the TLS certificate is not trusted")
            #expect(refused.stderr.contains("--insecure"))
            #expect(refused.seconds < 5, "refused at once, not retried: \(refused.seconds) s")
            #expect(!refused.stderr.contains("retry "))

            #expect(refused.stderr.contains("--ca-certificate"))

            // A private CA named, as with curl's --cacert or CURL_CA_BUNDLE in the environment.
            let trusted = try harness.prefetch(list: url, ["--ca-certificate", server.certificate])
            #expect(trusted.status == 0, "\(trusted.stderr)")
            #expect(try harness.cachedBytes(url) == content)
            #expect(try harness.run(["rm", url]).status == 0)
            let fromEnvironment = try MediaCacheProcess.run(
                ["prefetch", url, "--cache-dir", harness.scratch.cache], environment: ["CURL_CA_BUNDLE": server.certificate])
            #expect(fromEnvironment.status == 0, "\(fromEnvironment.stderr)")
            #expect(try harness.run(["rm", url]).status == 0)
            let unreadable = try harness.prefetch(list: url, ["--ca-certificate", root + "/none.pem"])
            #expect(unreadable.status == 2 && unreadable.stderr.contains("--ca-certificate: cannot read"), "\(unreadable.stderr)")

            let accepted = try harness.prefetch(list: url, ["--insecure"])
            #expect(accepted.status == 0, "\(accepted.stderr)")
            #expect(try harness.cachedBytes(url) == content)
        }

        // MARK: Content-Encoding

        /// mediacache asks for identity; an origin that gzips the media anyway is refused
        /// (see `ResponseCheck.unexpectedContentEncoding`) rather than its compressed bytes
        /// being stored under the media's name. `identity` is fine.
        @Test func gzipEncodedMediaIsRefusedNeverStored() throws {
            let media = TestBytes.make(1 << 20, seed: 84)
            var gzip = Faults()
            gzip.contentEncoding = "gzip"
            serve(gzip, try Gzip.compress(media + [UInt8](repeating: 0, count: 1 << 20)), path: "/gz.mp4")
            var identity = Faults()
            identity.contentEncoding = "identity"
            serve(identity, media, path: "/plain.mp4")
            // A .tar.gz labelled with its own compression (Apache's AddEncoding) is the file.
            var labelled = Faults()
            labelled.contentEncoding = "x-gzip"
            let archive = try Gzip.compress(media)
            serve(labelled, archive, path: "/a.tar.gz")
            let url = origin.url("/gz.mp4")
            let list = [url, origin.url("/plain.mp4"), origin.url("/a.tar.gz")].joined(separator: "\n")
            let result = try harness.prefetch(list: list, ["-x", "2", "--min-fragment", "256K"])
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.contains("FAILED   \(url): the body came with Content-Encoding: gzip"))
            #expect(try harness.cachedBytes(url) == nil)
            #expect(try harness.cachedBytes(origin.url("/plain.mp4")) == media)
            #expect(try harness.cachedBytes(origin.url("/a.tar.gz")) == archive)
            #expect(harness.scratch.objectFiles.count == 2)
            for request in origin.requests {
                #expect(request.headers["accept-encoding"] == "identity")
            }
        }
    }
}
