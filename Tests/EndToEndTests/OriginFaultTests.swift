import Foundation
import Testing
import TestOrigin

extension EndToEnd {
    /// A scripted origin misbehaves; the cached bytes must still be exactly the origin's.
    @Suite struct OriginFaults {
        let origin: TestOrigin
        let harness = Harness()
        let bytes = TestBytes.make(2 << 20, seed: 42)

        init() throws { origin = try TestOrigin() }

        func serve(_ faults: Faults, path: String = "/f.mp4") {
            origin.serve(path, Resource(bytes, contentType: "video/mp4", faults: faults))
        }

        @Test func rangeIgnoredFallsBackToOneStream() throws {
            var faults = Faults()
            faults.ignoreRange = true
            serve(faults)
            let result = try harness.prefetch(list: origin.url("/f.mp4"), ["-x", "4", "--min-fragment", "64K"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try harness.cachedBytes(origin.url("/f.mp4")) == bytes)
            let requests = origin.requests(for: "/f.mp4")
            #expect(requests.count == 1, "one 200 stream, no wasted ranges: \(requests.map(\.status))")
            #expect(requests.first?.status == 200)
        }

        @Test func wrongContentRangeIsNeverWrittenAtTheWrongOffset() throws {
            var faults = Faults()
            faults.wrongContentRange = true
            serve(faults)
            let result = try harness.prefetch(list: origin.url("/f.mp4"), ["-x", "4", "--min-fragment", "64K"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("wrong Content-Range; fetching it as one stream"))
            #expect(try harness.cachedBytes(origin.url("/f.mp4")) == bytes)
            let last = try #require(origin.requests(for: "/f.mp4").last)
            #expect(last.rangeHeader == nil && last.status == 200)
        }

        @Test func droppedConnectionsAreRetriedAndResumed() throws {
            var faults = Faults()
            faults.dropAfterBytes = 150_000
            faults.dropCount = 3
            serve(faults)
            let result = try harness.prefetch(list: origin.url("/f.mp4"), ["-x", "2", "--min-fragment", "256K"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("retry"))
            #expect(try harness.cachedBytes(origin.url("/f.mp4")) == bytes)
            // Resumed where each drop happened: far less than one extra copy.
            #expect(Harness.bytesServed(origin, "/f.mp4") < bytes.count + 3 * 300_000)
        }

        @Test func serviceUnavailableHonoursRetryAfter() throws {
            var faults = Faults()
            faults.statusSequence = [ScriptedStatus(503, retryAfter: "1"), ScriptedStatus(429, retryAfter: "1")]
            serve(faults)
            let result = try harness.prefetch(list: origin.url("/f.mp4"), ["-x", "2"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("HTTP 503"))
            #expect(result.seconds >= 2.0, "two Retry-After: 1 waits, took \(result.seconds) s")
            let statuses = origin.requests(for: "/f.mp4").map(\.status)
            #expect(Array(statuses.prefix(2)) == [503, 429])
            #expect(try harness.cachedBytes(origin.url("/f.mp4")) == bytes)
        }

        @Test func stalledConnectionTimesOutAndRecovers() throws {
            var faults = Faults()
            faults.stallAfterBytes = 100_000
            faults.stallCount = 1
            serve(faults)
            let result = try harness.prefetch(list: origin.url("/f.mp4"), ["-x", "1", "--timeout", "2"], timeout: 30)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("no data for 2 s"))
            // Found silent after --timeout, not libcurl's five-second speed average later
            // (the run took about 9 s): 2 s, a retry's backoff of about 1 s, the rest.
            #expect(result.seconds < 6, "took \(result.seconds) s")
            #expect(try harness.cachedBytes(origin.url("/f.mp4")) == bytes)
        }

        /// A response that stops short of its range's last bytes while the other
        /// connections are done: a fresh request asks for just that tail, long before
        /// `--timeout`.
        @Test func aStalledTailIsAskedForAgain() throws {
            var faults = Faults()
            faults.stallAfterBytes = 500_000
            serve(faults, path: "/tail.bin")
            // The probe asks for 1 MiB, is trimmed to [0, 512 KiB) and stalls 24,288 bytes short.
            let url = origin.url("/tail.bin")
            let result = try harness.prefetch(list: url, ["-x", "4", "--min-fragment", "512K"], timeout: 30)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try harness.cachedBytes(url) == bytes)
            let ranges = origin.requests(for: "/tail.bin").compactMap(\.range)
            #expect(ranges.first == 0...(1 << 20) - 1, "\(ranges)")
            #expect(ranges.contains(500_000...(512 << 10) - 1), "\(ranges)")
            // Only the tail was asked for again. The probe's request also named [512 KiB,
            // 1 MiB), which it left to another connection; past that, every byte once.
            let timesAsked = [
                0: 1, 499_999: 1, 500_000: 2, (512 << 10) - 1: 2, 512 << 10: 2, (1 << 20) - 1: 2, 1 << 20: 1,
                bytes.count - 1: 1,
            ]
            for (offset, expected) in timesAsked.sorted(by: { $0.key < $1.key }) {
                #expect(ranges.filter { $0.contains(offset) }.count == expected, "byte \(offset): \(ranges)")
            }
            #expect(result.seconds < 10, "took \(result.seconds) s")
        }

        @Test func redirectToAnotherHostDropsCustomHeaders() throws {
            let other = try TestOrigin(host: "localhost")
            other.serve("/real.mp4", Resource(bytes, contentType: "video/mp4"))
            var faults = Faults()
            faults.redirectTo = other.url("/real.mp4")
            serve(faults)
            let list = "\(origin.url("/f.mp4"))\n  header=X-Token: secret-list-token\n"
            let result = try harness.prefetch(
                list: list, ["-H", "Authorization: Bearer secret-cli-token", "-x", "3", "--min-fragment", "256K"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try harness.cachedBytes(origin.url("/f.mp4")) == bytes)
            let first = try #require(origin.requests(for: "/f.mp4").first)
            #expect(first.headers["authorization"] == "Bearer secret-cli-token")
            #expect(first.headers["x-token"] == "secret-list-token")
            let redirected = other.requests(for: "/real.mp4")
            #expect(redirected.count >= 2, "fragments go straight to the final URL")
            for request in redirected {
                #expect(request.headers["authorization"] == nil)
                #expect(request.headers["x-token"] == nil)
            }
        }

        @Test func htmlErrorPageIsNotCached() throws {
            origin.serve("/login.mp4", Resource(Array("<html><body>Please log in</body></html>".utf8), contentType: "text/html"))
            origin.serve(
                "/sniffed.mp4",
                Resource(Array("<!DOCTYPE html><html>expired</html>".utf8) + TestBytes.make(5000, seed: 2)))
            let result = try harness.prefetch(list: origin.url("/login.mp4") + "\n" + origin.url("/sniffed.mp4"))
            #expect(result.status == 1)
            #expect(result.stderr.contains("\(origin.url("/login.mp4")): the origin sent text/html instead of media"))
            #expect(result.stderr.contains("\(origin.url("/sniffed.mp4")): the origin sent an HTML page instead of media"))
            #expect(try harness.cachedBytes(origin.url("/login.mp4")) == nil)
            #expect(try harness.cachedBytes(origin.url("/sniffed.mp4")) == nil)
            #expect(harness.scratch.objectFiles.isEmpty)
        }

        @Test func binaryMediaLabelledTextIsStillCached() throws {
            // nginx without its MIME table serves everything as text/plain.
            origin.serve("/plain.mp4", Resource(bytes, contentType: "text/plain"))
            let result = try harness.prefetch(list: origin.url("/plain.mp4"))
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try harness.cachedBytes(origin.url("/plain.mp4")) == bytes)
        }

        /// A failure kept for `resume` is listed by `status` as `resume` would take it: once
        /// `rm` has removed what was kept, no longer as one it tries again.
        @Test func statusSaysWhetherAFailureIsStillKept() throws {
            var busy = Faults()
            busy.statusSequence = Array(repeating: ScriptedStatus(503), count: 20)
            serve(busy)
            let url = origin.url("/f.mp4")
            let result = try harness.prefetch(list: url, ["--retries", "0"])
            #expect(result.status == 1 && result.stderr.contains("kept for resume: `mediacache resume`"), "\(result.stderr)")
            #expect(try harness.run(["status"]).stdout.contains("(resume tries it again)"))
            #expect(try harness.run(["rm", url]).status == 0)
            let status = try harness.run(["status"]).stdout
            #expect(status.contains("(no longer kept)") && !status.contains("resume tries it again"), "\(status)")
            let json = try harness.run(["status", "--json"]).stdout
            #expect(json.contains("\"kept_for_resume\":false"), "\(json)")
        }

        @Test func notFoundFailsThatEntryOnly() throws {
            serve(Faults())
            let result = try harness.prefetch(list: origin.url("/nope.mp4") + "\n" + origin.url("/f.mp4"))
            #expect(result.status == 1)
            // The URL once, what to do, and that nothing is left for `resume`.
            #expect(result.stderr.contains("failed: \(origin.url("/nope.mp4")): HTTP 404 Not Found; check the URL\n"))
            #expect(result.stderr.contains("not kept for resume: fix the URL or the options and run again"))
            #expect(try harness.cachedBytes(origin.url("/f.mp4")) == bytes)

            let status = try harness.run(["status"])
            #expect(status.status == 0)
            #expect(status.stdout.contains("failed in the last run ("))
            #expect(status.stdout.contains("  \(origin.url("/nope.mp4")): HTTP 404 Not Found; check the URL (not kept for resume)"))
            let resume = try harness.run(["resume"])
            #expect(resume.status == 0)
            #expect(resume.stderr.contains("nothing to resume"))
            #expect(origin.requests(for: "/nope.mp4").count == 1)

            // A run without failures replaces the record.
            let again = try harness.prefetch(list: origin.url("/f.mp4"))
            #expect(again.status == 0)
            #expect(try !harness.run(["status"]).stdout.contains("failed in the last run"))
        }

        /// A 401 says how to log in; a 403 is not only a missing login (an expired signed
        /// URL, a referer check) and names those too.
        @Test(arguments: [
            (401, ["HTTP 401 Unauthorized; the origin wants a login: give its cookies (--load-cookies FILE), a header "
                + "(-H 'Authorization: ...', or header= in the list) or a netrc login (--netrc)"]),
            (403, ["HTTP 403 Forbidden; the origin refuses it: if it needs a login, give its cookies",
                "a signed URL may have expired (take a fresh one), or the origin may check the Referer (--referer)"]),
        ])
        func aRefusalSaysWhatToDo(status: Int, advice: [String]) throws {
            var faults = Faults()
            faults.statusSequence = [ScriptedStatus(status)]
            serve(faults)
            let result = try harness.prefetch(list: origin.url("/f.mp4"))
            #expect(result.status == 1)
            for line in advice { #expect(result.stderr.contains(line), "\(result.stderr)") }
        }

        /// Servers behind a load balancer, each naming the same bytes by its own ETag (as
        /// nginx's, from each copy's date): the second change back to a name seen before
        /// shows servers that vary, not a file that changes, and the file is fetched,
        /// where it failed after six restarts, also through retries after dropped
        /// connections.
        /// The same servers holding different bytes under the name, at one length: the
        /// file is one server's, whole, never ranges of both spliced.
        @Test func serversHoldingDifferentFilesAtOneLengthAreNeverSpliced() throws {
            var faults = Faults()
            faults.etagPerRequest = ["\"aaaa-200000\"", "\"bbbb-200000\""]
            let other = TestBytes.make(bytes.count, seed: 43)
            faults.otherServersBytes = other
            serve(faults)
            let result = try harness.prefetch(list: origin.url("/f.mp4"), ["-x", "4", "--min-fragment", "128K"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("could splice two files; fetching it as one stream"), "\(result.stderr)")
            let cached = try harness.cachedBytes(origin.url("/f.mp4"))
            #expect(cached == bytes || cached == other, "the cached file is neither server's: ranges of both were spliced")
        }

        @Test(arguments: [false, true])
        func serversThatNameOneFileDifferentlyDoNotFailIt(dropping: Bool) throws {
            var faults = Faults()
            faults.etagPerRequest = ["\"aaaa-200000\"", "\"bbbb-200000\""]
            // Dropped connections make the job probe again, with bytes held.
            if dropping {
                faults.dropAfterBytes = 60_000
                faults.dropCount = 3
            }
            serve(faults)
            let result = try harness.prefetch(list: origin.url("/f.mp4"), ["-x", "4", "--min-fragment", "128K"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("the origin's servers name this file"), "\(result.stderr)")
            #expect(try harness.cachedBytes(origin.url("/f.mp4")) == bytes)
            let served = Harness.bytesServed(origin, "/f.mp4")
            #expect(served < 3 * bytes.count, "\(served) bytes served for \(bytes.count): \(origin.requests(for: "/f.mp4").map { "\($0.status) \($0.rangeHeader ?? "-") \($0.headers["if-range"] ?? "-") \($0.bodyBytesSent)" })")
            let late = origin.requests(for: "/f.mp4").suffix(3)
            #expect(late.allSatisfy { $0.headers["if-range"] == nil }, "\(late.map(\.headers))")
        }

        @Test func changeDuringDownloadRestartsAsOneVersion() throws {
            // Every response of the old version is cut short, so ranges are requested
            // again after the origin has published a new version.
            var faults = Faults()
            faults.bytesPerSecond = 1_000_000
            faults.dropAfterBytes = 200_000
            faults.dropCount = 1000
            serve(faults)
            let run = try harness.startPrefetch(list: origin.url("/f.mp4"), ["-x", "4", "--min-fragment", "128K"])
            Harness.waitUntil(timeout: 10) { origin.requests(for: "/f.mp4").count >= 4 }
            let newer = TestBytes.make(bytes.count + 12_345, seed: 99)
            origin.serve("/f.mp4", Resource(newer, contentType: "video/mp4"))
            let result = run.wait(timeout: 60)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("changed on the origin"))
            #expect(try harness.cachedBytes(origin.url("/f.mp4")) == newer)
        }
    }
}
