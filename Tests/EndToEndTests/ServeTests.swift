import Foundation
import MediaCacheKit
import Testing
import TestOrigin
import TestSupport

extension EndToEnd {
    /// `mediacache serve` and `mediacache url` with real clients: curl for the HTTP
    /// rules, ffprobe and ffmpeg as the player.
    @Suite struct Serve {
        let origin: TestOrigin
        let harness = Harness()

        init() throws { origin = try TestOrigin() }

        /// A port another server listens on is a usage error said plainly (the socket
        /// layer's text named its internal calls, and the exit was 1, "entries failed").
        @Test func aPortInUseIsSaidPlainly() throws {
            let result = try harness.run(["serve", "--no-config", "--listen", "127.0.0.1:\(origin.port)"], timeout: 20)
            #expect(result.status == 2, "\(result.stderr)")
            #expect(
                result.stderr.contains(
                    "cannot serve on 127.0.0.1:\(origin.port): the address is in use (another server listens there?)"),
                "\(result.stderr)")
            #expect(!result.stderr.contains("bind("), "\(result.stderr)")
        }

        @Test func cachedObjectsAreServedWithRangesAndNoOriginRequest() throws {
            let bytes = TestBytes.make(300_000, seed: 800)
            origin.serve("/clip.mp4", Resource(bytes, contentType: "application/octet-stream"))
            let url = origin.url("/clip.mp4")
            #expect(try harness.prefetch(list: url).status == 0)
            let server = try ServeFixture(cache: harness.scratch.cache)
            let local = try server.localURL(url)
            #expect(local.hasPrefix(server.baseURL + "/m/") && local.hasSuffix("/clip.mp4"), "\(local)")
            let requestsBefore = origin.requests(for: "/clip.mp4").count

            let middle = try CurlResponse.fetch(local, ["-r", "1000-1999"])
            #expect(middle.status == 206)
            #expect(middle.body == Array(bytes[1000..<2000]))
            #expect(middle.headers["content-range"] == "bytes 1000-1999/300000")
            #expect(middle.headers["accept-ranges"] == "bytes")
            // A generic type from the origin: the extension decides, so players accept it.
            #expect(middle.headers["content-type"] == "video/mp4")
            let etag = try #require(middle.headers["etag"])

            let suffix = try CurlResponse.fetch(local, ["-H", "Range: bytes=-500"])
            #expect(suffix.status == 206 && suffix.body == Array(bytes.suffix(500)))
            let open = try CurlResponse.fetch(local, ["-H", "Range: bytes=299000-"])
            #expect(open.status == 206 && open.body == Array(bytes.suffix(1000)))
            let whole = try CurlResponse.fetch(local)
            #expect(whole.status == 200 && whole.body == bytes)
            let beyond = try CurlResponse.fetch(local, ["-H", "Range: bytes=300000-"])
            #expect(beyond.status == 416 && beyond.headers["content-range"] == "bytes */300000")
            let several = try CurlResponse.fetch(local, ["-H", "Range: bytes=0-9,20-29"])
            #expect(several.status == 200 && several.body == bytes)
            let head = try CurlResponse.fetch(local, ["-I"])
            #expect(head.status == 200 && head.headers["content-length"] == "300000")
            // A local URL only reads: any other method is told which ones it takes.
            for method in ["POST", "PUT", "DELETE", "OPTIONS"] {
                let refused = try CurlResponse.fetch(local, ["-X", method])
                #expect(refused.status == 405 && refused.headers["allow"] == "GET, HEAD", "\(method): \(refused.status)")
            }
            // If-Range with the current ETag keeps the range; another version's gets all.
            let same = try CurlResponse.fetch(local, ["-r", "0-9", "-H", "If-Range: \(etag)"])
            #expect(same.status == 206 && same.body == Array(bytes.prefix(10)))
            let other = try CurlResponse.fetch(local, ["-r", "0-9", "-H", "If-Range: \"old\""])
            #expect(other.status == 200 && other.body == bytes)
            // Preconditions (RFC 9110 13.2.2): a copy held is revalidated with 304; a write-style
            // precondition that fails is 412.
            for revalidation in [["-H", "If-None-Match: \(etag)"], ["-H", "If-None-Match: \"x\", W/\(etag)"], ["-H", "If-None-Match: *"]] {
                let answer = try CurlResponse.fetch(local, revalidation)
                #expect(answer.status == 304 && answer.body.isEmpty && answer.headers["etag"] == etag, "\(revalidation): \(answer.status)")
            }
            #expect(try CurlResponse.fetch(local, ["-H", "If-None-Match: \"other\""]).status == 200)
            #expect(try CurlResponse.fetch(local, ["-H", "If-Match: \"other\""]).status == 412)
            #expect(try CurlResponse.fetch(local, ["-r", "0-9", "-H", "If-Match: \(etag)"]).status == 206)
            let modified = try #require(whole.headers["last-modified"])
            #expect(try CurlResponse.fetch(local, ["-H", "If-Modified-Since: \(modified)"]).status == 304)
            #expect(try CurlResponse.fetch(local, ["-H", "If-Unmodified-Since: Thu, 01 Jan 1970 00:00:00 GMT"]).status == 412)
            // The two older forms a server must read too (RFC 9110, 5.6.7).
            #expect(try CurlResponse.fetch(local, ["-H", "If-Modified-Since: Friday, 31-Dec-49 23:59:59 GMT"]).status == 304)
            #expect(try CurlResponse.fetch(local, ["-H", "If-Unmodified-Since: Thu Jan  1 00:00:00 1970"]).status == 412)

            #expect(origin.requests(for: "/clip.mp4").count == requestsBefore, "a cached object reached the origin")
            // The request log: a line per response, once it is written.
            let log = server.stop().stderr
            #expect(log.contains("GET 206 \(url) bytes=1000-1999: 1000 B in "), "\(log)")
            #expect(log.contains(", from the cache"), "\(log)")
        }

        @Test func localURLsNobodyMadeAndForeignHostsAreRefusedWithoutAnOriginRequest() throws {
            origin.serve("/secret.bin", Resource(TestBytes.make(10_000, seed: 801)))
            let server = try ServeFixture(cache: harness.scratch.cache)
            let local = try server.localURL(origin.url("/secret.bin"))
            let parts = local.components(separatedBy: "/m/")
            let token = String(parts[1].prefix(40))
            var altered = Array(token)
            altered[0] = altered[0] == "a" ? "b" : "a"
            let forged = parts[0] + "/m/" + String(altered) + "/secret.bin"
            #expect(try CurlResponse.fetch(forged).status == 403)
            #expect(try CurlResponse.fetch(parts[0] + "/m/../../etc/passwd").status == 404)
            let rebound = try CurlResponse.fetch(local, ["-H", "Host: attacker.example"])
            #expect(rebound.status == 421)
            // Under a real token only the registered name answers: a name a player resolves
            // relative to the local URL (a playlist's segment) is not this object.
            let sibling = parts[0] + "/m/" + token + "/segment1.ts"
            let wrongName = try CurlResponse.fetch(sibling)
            #expect(wrongName.status == 404)
            #expect(String(decoding: wrongName.body, as: UTF8.self).contains("this local URL serves secret.bin only"))
            #expect(origin.requests(for: "/secret.bin").isEmpty, "a refused request reached the origin")
            // The real one works, and the status page names what it holds as `ls` does.
            #expect(try CurlResponse.fetch(local).status == 200)
            let page = try CurlResponse.fetch(server.baseURL + "/")
            #expect(page.status == 200 && String(decoding: page.body, as: UTF8.self).contains(origin.url("/secret.bin")))
        }

        /// ffprobe opens a moov-at-end MP4 whose download takes over ten seconds: the
        /// moov is fetched first, so it knows the duration within three; ffmpeg then reads
        /// every frame through the server while it downloads.
        @Test func aPlayerReadsALateMoovFileWhileItDownloads() throws {
            let sample = try MediaSample.videoMP4.make(in: harness.scratch.path)
            let bytes = try #require(TestBytes.read(sample))
            var faults = Faults()
            faults.bytesPerSecond = bytes.count / 10
            origin.serve("/late.mp4", Resource(bytes, contentType: "video/mp4", faults: faults))
            let url = origin.url("/late.mp4")
            let server = try ServeFixture(cache: harness.scratch.cache, ["-x", "1", "--json"])
            let local = try server.localURL(url)

            let whileDownloading = try CurlResponse.fetch(local, ["-I"])
            #expect(whileDownloading.headers["content-type"] == "video/mp4")
            let originLayout = try #require(whileDownloading.headers["etag"])
            let probe = try FFmpeg.probeDuration(local)
            #expect(probe.seconds < 3, "ffprobe took \(probe.seconds) s")
            #expect(abs(probe.duration - 8) < 0.5, "duration \(probe.duration)")
            #expect(try FFmpeg.frameMD5(local) == FFmpeg.frameMD5(sample))

            // The download goes on to its commit; the origin sent each byte about once.
            #expect(Harness.waitUntil(timeout: 20) { (try? harness.cachedBytes(url)) != nil })
            #expect(Harness.bytesServed(origin, "/late.mp4") <= bytes.count + bytes.count / 10)
            // Stored as it was played, not relocated: a player that read the moov where the
            // origin put it seeks after the commit without If-Range (Chromium and ffmpeg
            // send none), and relocated bytes under the same URL failed its decoder.
            let stored = try #require(try harness.cachedBytes(url))
            #expect(stored == bytes, "the layout a player read changed under its URL")
            let seek = try CurlResponse.fetch(local, ["-r", "\(bytes.count / 2)-\(bytes.count / 2 + 99)"])
            #expect(seek.status == 206 && seek.body == Array(bytes[(bytes.count / 2)..<(bytes.count / 2 + 100)]))
            let afterCommit = try CurlResponse.fetch(local, ["-r", "0-99", "-H", "If-Range: \(originLayout)"])
            #expect(afterCommit.status == 206 && afterCommit.body == Array(bytes.prefix(100)))
            #expect(afterCommit.headers["etag"] == originLayout)
            let listed = try harness.run(["ls", "--json"]).stdout
            #expect(listed.contains("played while it downloaded"), "\(listed)")
            let stopped = server.stop()
            #expect(stopped.status == 143, "\(stopped.stderr)")
            #expect(stopped.stdout.contains("\"event\":\"request\""), "\(stopped.stdout)")
        }

        /// An origin that states no length (chunked): the body goes out whole as it arrives,
        /// and the answer says ranges do not work yet. Told they did, ffmpeg asked for one,
        /// got the file's start and misread it; a HEAD said `Content-Length: 0`.
        @Test func aDownloadOfUnknownLengthSaysRangesDoNotWorkYet() throws {
            let bytes = TestBytes.make(1 << 20, seed: 823)
            var faults = Faults()
            faults.chunked = true
            faults.bytesPerSecond = 256 << 10
            origin.serve("/stream.bin", Resource(bytes, contentType: "video/mp4", faults: faults))
            let url = origin.url("/stream.bin")
            let server = try ServeFixture(cache: harness.scratch.cache, ["-x", "1"])
            let local = try server.localURL(url)
            let head = try CurlResponse.fetch(local, ["-I"])
            #expect(head.status == 200)
            #expect(head.headers["accept-ranges"] == "none", "\(head.headers)")
            #expect(head.headers["content-length"] == nil, "\(head.headers)")
            let whole = try CurlResponse.fetch(local)
            #expect(whole.status == 200 && whole.body == bytes)
            #expect(whole.headers["accept-ranges"] == "none")
        }

        /// An origin that names no version (no ETag, no Last-Modified): every response
        /// of the download still carries an ETag naming its bytes, the same for each
        /// request, so a player's If-Range keeps its range while the download runs and
        /// gets the whole object, never a splice, once the stored object replaces it.
        @Test func responsesOfADownloadCarryAnETagEvenWhenTheOriginSendsNone() throws {
            let bytes = TestBytes.make(2 << 20, seed: 811)
            var faults = Faults()
            faults.bytesPerSecond = 512 << 10
            origin.serve("/plain.bin", Resource(bytes, contentType: "video/mp4", etag: nil, lastModified: nil, faults: faults))
            let url = origin.url("/plain.bin")
            let server = try ServeFixture(cache: harness.scratch.cache, ["-x", "2"])
            let local = try server.localURL(url)

            let first = try CurlResponse.fetch(local, ["-r", "0-9"])
            let etag = try #require(first.headers["etag"], "no ETag while downloading: \(first.headers)")
            let again = try CurlResponse.fetch(local, ["-r", "10-19", "-H", "If-Range: \(etag)"])
            #expect(again.status == 206 && again.body == Array(bytes[10..<20]) && again.headers["etag"] == etag)
            #expect(Harness.waitUntil(timeout: 20) { (try? harness.cachedBytes(url)) != nil })
            let afterCommit = try CurlResponse.fetch(local, ["-r", "0-99", "-H", "If-Range: \(etag)"])
            #expect(afterCommit.status == 200 && afterCommit.body == bytes, "\(afterCommit.status)")
            #expect(afterCommit.headers["etag"] != nil && afterCommit.headers["etag"] != etag)
        }

        /// A seek near the end of an uncached 40 MiB file (1 MiB/s per connection) is
        /// answered within three seconds; four readers of the whole file at once each get
        /// every byte, from one download.
        @Test func seeksAndConcurrentReadersOfAnUncachedFile() throws {
            let size = 40 << 20
            let bytes = origin.serveRandom("/big.bin", size: size, seed: 803, bytesPerSecond: 1 << 20).bytes
            let server = try ServeFixture(cache: harness.scratch.cache)
            let local = try server.localURL(origin.url("/big.bin"))
            let started = Date()
            let seek = try CurlResponse.fetch(local, ["-r", "\(size - (2 << 20))-\(size - (2 << 20) + 65535)"])
            let seconds = Date().timeIntervalSince(started)
            #expect(seek.status == 206 && seek.body == Array(bytes[(size - (2 << 20))..<(size - (2 << 20) + 65536)]))
            #expect(seconds < 3, "the seek took \(seconds) s")

            let results = LockedResults()
            let readers = (0..<4).map { _ in
                Thread { results.append((try? CurlResponse.fetch(local, timeout: 60))?.body == bytes) }
            }
            readers.forEach { $0.start() }
            #expect(Harness.waitUntil(timeout: 60) { results.count == 4 })
            #expect(results.all == [true, true, true, true])
            // One download: each byte came from the origin about once.
            #expect(Harness.bytesServed(origin, "/big.bin") <= size + size / 10)
            #expect(Harness.waitUntil(timeout: 20) { (try? harness.cachedBytes(origin.url("/big.bin"))) == bytes })
        }

        /// Twenty players that read a little and hang up at random offsets: the server
        /// stays up and the download still ends committed and exact.
        @Test func readersThatHangUpLeaveTheServerAndTheDownloadWhole() throws {
            let size = 6 << 20
            let bytes = origin.serveRandom("/hangup.bin", size: size, seed: 804, bytesPerSecond: 1 << 20).bytes
            let server = try ServeFixture(cache: harness.scratch.cache, ["-x", "4"])
            let local = try server.localURL(origin.url("/hangup.bin"))
            var generator = SeededGenerator(seed: 805)
            let offsets = (0..<20).map { _ in Int.random(in: 0..<size, using: &generator) }
            let done = LockedResults()
            for offset in offsets {
                Thread {
                    _ = try? CurlResponse.fetch(local, ["-r", "\(offset)-", "--max-filesize", "100000"], timeout: 1)
                    done.append(true)
                }.start()
            }
            #expect(Harness.waitUntil(timeout: 30) { done.count == 20 })
            let check = try CurlResponse.fetch(local, ["-r", "0-99"])
            #expect(check.status == 206 && check.body == Array(bytes.prefix(100)), "the server is not answering")
            #expect(Harness.waitUntil(timeout: 30) { (try? harness.cachedBytes(origin.url("/hangup.bin"))) == bytes })
        }

        /// An origin that takes the connection and never answers: the player hears a
        /// gateway timeout (504), not a bad gateway, once the stall timeout and the
        /// retries are used up; and an origin that says 503 to the end is a 502.
        @Test func anOriginThatNeverAnswersIsAGatewayTimeout() throws {
            let silent = try SilentOrigin()
            var busy503 = Faults()
            busy503.statusSequence = Array(repeating: ScriptedStatus(503), count: 10)
            origin.serve("/busy.mp4", Resource(TestBytes.make(1000, seed: 811), faults: busy503))
            let server = try ServeFixture(cache: harness.scratch.cache, ["--timeout", "1", "--retries", "0"])
            let hung = try CurlResponse.fetch(try server.localURL(silent.url("/hung.mp4")), timeout: 30)
            #expect(hung.status == 504, "\(hung.status) \(String(decoding: hung.body, as: UTF8.self))")
            #expect(String(decoding: hung.body, as: UTF8.self).contains("could not fetch \(silent.url("/hung.mp4"))"))
            let busy = try CurlResponse.fetch(try server.localURL(origin.url("/busy.mp4")), timeout: 30)
            #expect(busy.status == 502, "\(busy.status) \(String(decoding: busy.body, as: UTF8.self))")
            #expect(String(decoding: busy.body, as: UTF8.self).contains("503"))
        }

        /// An origin that says "come back in 120 s" (503 or 429 with Retry-After): the player
        /// hears it at once, with the same status and when the download asks again, not as a
        /// silent origin's 504 after --timeout; the download goes on.
        @Test(arguments: [503, 429])
        func anOriginsBusyAnswerReachesThePlayerAtOnce(status: Int) throws {
            var busy = Faults()
            busy.statusSequence = [ScriptedStatus(status, retryAfter: "120")]
            origin.serve("/busy.mp4", Resource(TestBytes.make(1000, seed: 812), contentType: "video/mp4", faults: busy))
            let server = try ServeFixture(cache: harness.scratch.cache, ["--timeout", "5"])
            let started = Date()
            let answer = try CurlResponse.fetch(try server.localURL(origin.url("/busy.mp4")), timeout: 30)
            let text = String(decoding: answer.body, as: UTF8.self)
            #expect(answer.status == status, "\(answer.status) \(text)")
            #expect(Date().timeIntervalSince(started) < 4, "after \(Date().timeIntervalSince(started)) s")
            #expect(text.contains("\(status)") && text.contains("asks again"), "\(text)")
            let retryAfter = Int(answer.headers["retry-after"] ?? "") ?? 0
            #expect((100...121).contains(retryAfter), "Retry-After: \(retryAfter)")
        }

        /// The origin's 404 reaches the player as 404 (it should not try again), naming
        /// the origin's answer; its 500 as a bad gateway.
        @Test func anOriginErrorBeforeTheFirstByteIsAnsweredNamingIt() throws {
            var broken = Faults()
            broken.statusSequence = Array(repeating: ScriptedStatus(500), count: 10)
            origin.serve("/broken.mp4", Resource(TestBytes.make(1000, seed: 812), faults: broken))
            let server = try ServeFixture(cache: harness.scratch.cache, ["--retries", "0"])
            let local = try server.localURL(origin.url("/nowhere.mp4"))
            let response = try CurlResponse.fetch(local)
            #expect(response.status == 404)
            #expect(String(decoding: response.body, as: UTF8.self).contains("404"), "\(response.body.count) bytes")
            let failing = try CurlResponse.fetch(try server.localURL(origin.url("/broken.mp4")))
            #expect(failing.status == 502, "\(String(decoding: failing.body, as: UTF8.self))")
            #expect(String(decoding: failing.body, as: UTF8.self).contains("500"))
            // A request that is not HTTP gets 400, and the server goes on.
            let port = try #require(server.baseURL.split(separator: ":").last)
            let garbage = Process()
            garbage.executableURL = URL(fileURLWithPath: "/bin/bash")
            garbage.arguments = [
                "-c", "exec 3<>/dev/tcp/127.0.0.1/\(port); printf 'NOT HTTP AT ALL\\r\\n\\r\\n' >&3; timeout 5 head -c 12 <&3",
            ]
            let out = Pipe()
            garbage.standardOutput = out
            try garbage.run()
            let answer = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            garbage.waitUntilExit()
            #expect(answer == "HTTP/1.1 400", "answered \(answer)")
            #expect(try CurlResponse.fetch(server.baseURL + "/").status == 200)
        }

        /// Headers given to `url` reach the origin (and only it); a `file://` source is refused.
        @Test func anAuthorizationGivenToURLReachesTheOrigin() throws {
            _ = origin.serveRandom("/private.bin", size: 50_000, seed: 806)
            let server = try ServeFixture(cache: harness.scratch.cache)
            let local = try server.localURL(origin.url("/private.bin"), ["-H", "Authorization: Bearer t0ken"])
            #expect(!local.contains("t0ken"))
            #expect(try CurlResponse.fetch(local).status == 200)
            let seen = origin.requests(for: "/private.bin").map { $0.headers["authorization"] }
            #expect(!seen.isEmpty && seen.allSatisfy { $0 == "Bearer t0ken" }, "\(seen)")
            let file = try harness.run(["url", "file:///etc/passwd"])
            #expect(file.status == 2, "\(file.stderr)")
        }

        /// `kill -9` of the server mid-download: `resume` finishes the object with little
        /// fetched again.
        @Test func killedServerThenResumeCompletesTheObject() throws {
            let size = 8 << 20
            let bytes = origin.serveRandom("/killed.bin", size: size, seed: 807, bytesPerSecond: 512 << 10).bytes
            let server = try ServeFixture(cache: harness.scratch.cache, ["-x", "2"])
            let local = try server.localURL(origin.url("/killed.bin"))
            Thread { _ = try? CurlResponse.fetch(local, timeout: 30) }.start()
            #expect(Harness.waitUntil(timeout: 15) { ((try? harness.savedBytes()) ?? 0) >= 1 << 20 })
            server.stop(SIGKILL)
            let saved = try harness.savedBytes()
            let requestsBefore = origin.requests(for: "/killed.bin").count
            let resumed = try harness.run(["resume", "-x", "8"], timeout: 60)
            #expect(resumed.status == 0, "\(resumed.stderr)")
            #expect(try harness.cachedBytes(origin.url("/killed.bin")) == bytes)
            let fetchedAgain = origin.requests(for: "/killed.bin").dropFirst(requestsBefore).reduce(0) { $0 + $1.bodyBytesSent }
            #expect(fetchedAgain <= size - Int(saved) + (1 << 20), "fetched \(fetchedAgain) of \(size), \(saved) saved")
        }

        /// What a person sees: headless Chromium renders the status page with the cached
        /// object and its player, and plays a served MP4 in a `<video>` element (its
        /// `currentTime` advances).
        @Test func chromiumShowsTheStatusPageAndPlaysAServedMP4() throws {
            let sample = try MediaSample.videoMP4.make(in: harness.scratch.path)
            let bytes = try #require(TestBytes.read(sample))
            origin.serve("/movie.mp4", Resource(bytes, contentType: "video/mp4"))
            let url = origin.url("/movie.mp4")
            #expect(try harness.prefetch(list: url).status == 0)
            let server = try ServeFixture(cache: harness.scratch.cache)
            let local = try server.localURL(url)

            let chromium = Chromium(profile: harness.scratch.path + "/chromium")
            let shot = harness.scratch.path + "/status.png"
            let screenshot = try chromium.run(["--screenshot=\(shot)", "--window-size=1000,700", server.baseURL + "/"])
            #expect((TestBytes.read(shot)?.count ?? 0) > 5000, "no screenshot: \(screenshot.stderr)")
            let page = try chromium.run(["--dump-dom", server.baseURL + "/"]).stdout
            #expect(page.contains("movie.mp4") && page.contains("<video"), "\(page)")

            let playback = try ChromiumPlayback(playing: local, chromium: chromium, origin: origin)
            defer { playback.stop() }
            #expect(playback.waitUntilPlayed(seconds: 1.5, timeout: 20), "currentTime did not advance: \(playback.reports.suffix(3))")
            #expect(playback.reports.allSatisfy { $0.hasSuffix("error=0") }, "\(playback.reports.suffix(3))")
        }

        /// A web player on another origin (hls.js, dash.js and Shaka fetch with ranges)
        /// reads a local URL in Chromium: the preflight its Range header needs is answered,
        /// and the ranged answer and its Content-Range are shared (CORS). The status page,
        /// which lists local URLs, is not shared with other sites.
        @Test func aPageOfAnotherSiteFetchesALocalURLWithARange() throws {
            let bytes = TestBytes.make(300_000, seed: 801)
            origin.serve("/clip.mp4", Resource(bytes, contentType: "video/mp4"))
            #expect(try harness.prefetch(list: origin.url("/clip.mp4")).status == 0)
            let server = try ServeFixture(cache: harness.scratch.cache)
            let local = try server.localURL(origin.url("/clip.mp4"))
            let page = """
                <!doctype html><html><body><pre id="out">waiting</pre><script>
                (async () => {
                  const lines = [];
                  try {
                    const r = await fetch('\(local)', { headers: { Range: 'bytes=100-199' } });
                    const b = new Uint8Array(await r.arrayBuffer());
                    lines.push(['media', r.status, b.length, r.headers.get('content-range'), b[0]].join(' '));
                  } catch (e) { lines.push('media refused'); }
                  try { await fetch('\(server.baseURL)/status.json'); lines.push('status read'); } catch (e) { lines.push('status refused'); }
                  document.getElementById('out').textContent = lines.join('; ');
                })();
                </script></body></html>
                """
            origin.serve("/player.html", Resource(Array(page.utf8), contentType: "text/html"))
            let chromium = Chromium(profile: harness.scratch.path + "/chromium")
            let result = try chromium.act(
                origin.url("/player.html"),
                [["until": "(document.getElementById('out')?.textContent ?? 'waiting') != 'waiting'"],
                 ["eval": "document.getElementById('out').textContent"]])
            #expect(result.stdout.contains("media 206 100 bytes 100-199/300000 \(bytes[100])"), "\(result.stdout) \(result.stderr)")
            #expect(result.stdout.contains("status refused"), "\(result.stdout)")
        }

        /// The status page's play link of a download in progress plays in Chromium while
        /// the download runs (a moov-at-end MP4 of 30 s at 1 Mbit/s, from an origin that
        /// needs about as long to send it).
        @Test func chromiumPlaysADownloadInProgressFromItsPlayLink() throws {
            let sample = try MediaSample.longVideoMP4.make(in: harness.scratch.path)
            let bytes = try #require(TestBytes.read(sample))
            var faults = Faults()
            faults.bytesPerSecond = 64 << 10
            origin.serve("/movie.mp4", Resource(bytes, contentType: "video/mp4", faults: faults))
            let server = try ServeFixture(cache: harness.scratch.cache, ["-x", "2"])
            let local = try server.localURL(origin.url("/movie.mp4"))
            #expect(try CurlResponse.fetch(local, ["-r", "0-65535"]).status == 206)
            func downloading() throws -> [[String: Any]] {
                let body = try CurlResponse.fetch(server.baseURL + "/status.json").body
                let snapshot = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
                return snapshot?["downloads"] as? [[String: Any]] ?? []
            }
            let play = try #require(try downloading().first?["play"] as? String)

            let chromium = Chromium(profile: harness.scratch.path + "/chromium")
            let playback = try ChromiumPlayback(playing: server.baseURL + play, chromium: chromium, origin: origin)
            defer { playback.stop() }
            #expect(playback.waitUntilPlayed(seconds: 1.5, timeout: 20), "currentTime did not advance: \(playback.reports.suffix(3))")
            #expect(try !downloading().isEmpty, "the download ended before playback got 1.5 s in")
            #expect(playback.reports.allSatisfy { $0.hasSuffix("error=0") }, "\(playback.reports.suffix(3))")
        }

        /// The origin changes the file while a player reads it: the download starts
        /// over, and the player's response stops short, every byte it got the old
        /// version's (never a splice).
        @Test func aDownloadThatStartsOverMidResponseClosesTheConnection() throws {
            let size = 4 << 20
            var faults = Faults()
            faults.bytesPerSecond = 1 << 20
            // The first response breaks off, so the rest is asked for again, of the new version.
            faults.dropAfterBytes = 3 << 19
            let first = TestBytes.make(size, seed: 809)
            origin.serve("/changing.bin", Resource(first, faults: faults))
            let server = try ServeFixture(cache: harness.scratch.cache, ["-x", "1"])
            let local = try server.localURL(origin.url("/changing.bin"))
            let response = LockedValue<CurlResponse?>(nil)
            let reader = Thread { response.value = try? CurlResponse.fetch(local, timeout: 30) }
            reader.start()
            #expect(Harness.waitUntil(timeout: 10) { Harness.bytesServed(origin, "/changing.bin") > 1 << 20 })
            origin.serve("/changing.bin", Resource(TestBytes.make(size, seed: 810), faults: faults))
            #expect(Harness.waitUntil(timeout: 30) { response.value != nil })
            let got = try #require(response.value)
            #expect(got.exitCode != 0 && got.body.count < size, "curl exit \(got.exitCode), \(got.body.count) bytes")
            #expect(got.body == Array(first.prefix(got.body.count)), "bytes of two versions were spliced")
        }

        /// Lists given to `serve` are fetched in the background while it serves.
        @Test func listsGivenToServeAreFetchedInTheBackground() throws {
            let bytes = TestBytes.make(200_000, seed: 811)
            origin.serve("/listed.bin", Resource(bytes))
            let list = harness.scratch.write("background.txt", origin.url("/listed.bin"))
            let server = try ServeFixture(cache: harness.scratch.cache, [list])
            #expect(Harness.waitUntil(timeout: 20) { (try? harness.cachedBytes(origin.url("/listed.bin"))) == bytes })
            #expect(try CurlResponse.fetch(server.baseURL + "/").status == 200, "the server stopped after its list")
            server.stop()

            // The address is the first line, before any event of the list's downloads
            // (here, at once: retries of a refused connection).
            let refused = harness.scratch.write("refused.txt", "http://127.0.0.1:9/gone.bin\n")
            let json = try ServeFixture(cache: harness.scratch.cache, ["--json", refused])
            #expect(Harness.waitUntil(timeout: 10) { json.process.stdoutSoFar.contains("\"event\":\"retry\"") })
            #expect(json.process.stdoutSoFar.hasPrefix("listening on "), "\(json.process.stdoutSoFar.prefix(300))")
        }

        @Test func urlNeedsARunningServerAndAnHTTPURL() throws {
            let none = try harness.run(["url", "http://127.0.0.1:1/a.mp4"])
            #expect(none.status == 1)
            #expect(none.stderr.contains("no `mediacache serve` is running"), "\(none.stderr)")
            let given = try harness.run(["url", "http://127.0.0.1:1/a.mp4", "--server", "http://127.0.0.1:9"])
            #expect(given.status == 0 && given.stdout.hasPrefix("http://127.0.0.1:9/m/"), "\(given.stdout)")
            let wildcard = try harness.run(["serve", "--listen", "0.0.0.0:0"])
            #expect(wildcard.status == 2 && wildcard.stderr.contains("every interface"), "\(wildcard.stderr)")
            let ftp = try harness.run(["url", "ftp://example.com/a.mp4", "--server", "http://127.0.0.1:9"])
            #expect(ftp.status == 2 && ftp.stderr.contains("not an http or https URL"), "\(ftp.stderr)")
            let badServer = try harness.run(["url", "http://127.0.0.1:1/a.mp4", "--server", "notaurl"])
            #expect(badServer.status == 2 && badServer.stderr.contains("--server 'notaurl' is not an http or https URL"), "\(badServer.stderr)")
            // A mistyped option is named as such, not its value as a URL.
            let mistyped = try harness.run(["url", "--port", "5", "http://127.0.0.1:1/a.mp4"])
            #expect(mistyped.status == 2 && mistyped.stderr.contains("Unknown option '--port'"), "\(mistyped.stderr)")
            // Headers live in the cache directory, never in the local URL.
            let secret = try harness.run(
                ["url", "http://127.0.0.1:1/a.mp4", "-H", "Authorization: Bearer s3cr3t", "--server", "http://h:1"])
            #expect(secret.status == 0 && !secret.stdout.contains("s3cr3t"))
            // ... they are kept server-side, readable by the owner only.
            let token = try #require(secret.stdout.components(separatedBy: "/m/").last?.prefix(40))
            let stored = harness.scratch.cache + "/serve/sources/" + token
            let mode = try FileManager.default.attributesOfItem(atPath: stored)[.posixPermissions] as? Int
            #expect(mode == 0o600, "mode \(String(mode ?? 0, radix: 8))")
            #expect(String(decoding: TestBytes.read(stored) ?? [], as: UTF8.self).contains("Bearer s3cr3t"))
        }

        /// SIGTERM while a player reads a slow download: out within two seconds, the
        /// download's progress saved, the server's address record gone.
        @Test func sigtermStopsWithinTwoSecondsAndSavesProgress() throws {
            _ = origin.serveRandom("/slow.bin", size: 8 << 20, seed: 802, bytesPerSecond: 256 << 10)
            let server = try ServeFixture(cache: harness.scratch.cache, ["-x", "2"])
            let local = try server.localURL(origin.url("/slow.bin"))
            let reader = Thread { _ = try? CurlResponse.fetch(local, timeout: 20) }
            reader.start()
            #expect(Harness.waitUntil(timeout: 10) { ((try? harness.savedBytes()) ?? 0) > 0 })
            let started = Date()
            let stopped = server.stop(SIGTERM)
            #expect(Date().timeIntervalSince(started) < 2.5, "took \(Date().timeIntervalSince(started)) s")
            #expect(stopped.status == 143, "\(stopped.stderr)")
            #expect(try harness.savedBytes() > 0)
            let records = ((try? FileManager.default.contentsOfDirectory(atPath: harness.scratch.cache + "/serve")) ?? []).filter { $0.hasPrefix("address") }
            #expect(records.isEmpty, "\(records)")
            let after = try harness.run(["url", origin.url("/slow.bin")])
            #expect(after.status == 1, "a stopped server still looks like it runs")
        }

        /// Ctrl-C while a player holds a cached file's answer and reads none of it: the
        /// server's graceful shutdown would wait for that answer forever, so what is left
        /// of it after the grace period is cut; out within two seconds all the same.
        @Test func ctrlCWithAPlayerThatStoppedReadingStopsWithinTwoSeconds() throws {
            let bytes = TestBytes.make(16 << 20, seed: 812)
            origin.serve("/held.mp4", Resource(bytes, contentType: "video/mp4"))
            let url = origin.url("/held.mp4")
            #expect(try harness.prefetch(list: url).status == 0)
            let server = try ServeFixture(cache: harness.scratch.cache)
            let path = try #require(URL(string: try server.localURL(url))?.path)
            let host = String(server.baseURL.dropFirst("http://".count))
            let port = Int(host.split(separator: ":").last ?? "") ?? 0
            let clients = RawHTTP.openIdle(1, port: port, sending: "GET \(path) HTTP/1.1\r\nHost: \(host)\r\n\r\n")
            defer { clients.forEach { close($0) } }
            #expect(clients.count == 1)
            Thread.sleep(forTimeInterval: 0.5)
            let started = Date()
            let stopped = server.stop(SIGINT)
            #expect(Date().timeIntervalSince(started) < 2.5, "took \(Date().timeIntervalSince(started)) s")
            #expect(stopped.status == 130, "\(stopped.stderr)")
            #expect(stopped.stderr.contains("stopping, saving progress"), "\(stopped.stderr)")
            let records = ((try? FileManager.default.contentsOfDirectory(atPath: harness.scratch.cache + "/serve")) ?? []).filter { $0.hasPrefix("address") }
            #expect(records.isEmpty, "\(records)")
        }

        /// Two servers on one cache (say, one for this machine and one for the LAN): each
        /// keeps its own address record, `url` names the newest running one, and when
        /// that one stops, the other again.
        @Test func twoServersOnOneCacheKeepTheirOwnAddresses() throws {
            let url = origin.url("/a.mp4")
            let first = try ServeFixture(cache: harness.scratch.cache)
            Thread.sleep(forTimeInterval: 0.05)
            let second = try ServeFixture(cache: harness.scratch.cache)
            #expect(try second.localURL(url).hasPrefix(second.baseURL + "/m/"))
            #expect(second.stop().status == 143)
            #expect(try first.localURL(url).hasPrefix(first.baseURL + "/m/"))
        }

        /// Four background downloads hold every connection to their host with 4 MiB
        /// ranges at 256 KiB/s (16 s each): a player's first 64 KiB of another file from
        /// that host still arrive within 1.5 s, since its request takes a background
        /// range's connection (that range ends where it got to; its rest waits). The
        /// background files then finish, exact, with at most 1 % fetched twice. (Without
        /// preemption the player waited 16.1 s here; with it, 0.25 s and 0.16 % more.)
        @Test func aPlayerGoesAheadOfBackgroundDownloadsOfTheSameHost() throws {
            var faults = Faults()
            faults.bytesPerSecond = 256 << 10
            var files: [[UInt8]] = []
            for index in 0..<4 {
                files.append(TestBytes.make(16 << 20, seed: UInt64(840 + index)))
                origin.serve("/bg\(index).bin", Resource(files[index], contentType: "video/mp4", faults: faults))
            }
            let movie = TestBytes.make(4 << 20, seed: 850)
            origin.serve("/new.mp4", Resource(movie, contentType: "video/mp4", faults: faults))
            let urls = (0..<4).map { origin.url("/bg\($0).bin") }
            let list = harness.scratch.write("background.txt", urls.joined(separator: "\n") + "\n")
            let server = try ServeFixture(cache: harness.scratch.cache, [list, "-x", "4"])
            // 4 files of 4 connections: every one of the host's 16 is taken.
            func running() -> Int { (0..<4).reduce(0) { total, index in total + origin.requests(for: "/bg\(index).bin").filter { !$0.finished }.count } }
            #expect(Harness.waitUntil(timeout: 15) { running() >= 16 }, "\(running()) background requests running")
            let local = try server.localURL(origin.url("/new.mp4"))
            let started = Date()
            let first = try CurlResponse.fetch(local, ["-r", "0-65535"])
            let waited = Date().timeIntervalSince(started)
            #expect(first.status == 206 && first.body == Array(movie.prefix(65536)))
            #expect(waited <= 1.5, "the player waited \(waited) s for its first 64 KiB")

            #expect(Harness.waitUntil(timeout: 90) { urls.allSatisfy { (try? harness.cachedBytes($0)) != nil } })
            for (url, bytes) in zip(urls, files) { #expect(try harness.cachedBytes(url) == bytes) }
            let sent = (0..<4).reduce(0) { $0 + Harness.bytesServed(origin, "/bg\($1).bin") }
            let total = files.reduce(0) { $0 + $1.count }
            #expect(Double(sent) <= Double(total) * 1.01, "\(sent) bytes sent for \(total)")
        }

        /// `--limit-rate` goes to the player first: with four background files spending
        /// the whole limit, a player's 1 MiB comes at about the limit (4 s at 256 KiB/s),
        /// not at a share of it (8 s); the background list goes on once the player is done.
        @Test func theRateLimitGoesToThePlayerFirst() throws {
            var files: [[UInt8]] = []
            for index in 0..<4 {
                files.append(TestBytes.make(1 << 20, seed: UInt64(872 + index)))
                origin.serve("/bulk\(index).bin", Resource(files[index], contentType: "video/mp4"))
            }
            let movie = TestBytes.make(1 << 20, seed: 871)
            origin.serve("/watch.mp4", Resource(movie, contentType: "video/mp4"))
            let urls = (0..<4).map { origin.url("/bulk\($0).bin") }
            let list = harness.scratch.write("background.txt", urls.joined(separator: "\n") + "\n")
            let server = try ServeFixture(cache: harness.scratch.cache, [list, "--limit-rate", "256K", "-j", "4"])
            #expect(Harness.waitUntil(timeout: 15) { urls.allSatisfy { !origin.requests(for: URL(string: $0)!.path).isEmpty } })
            Thread.sleep(forTimeInterval: 1)
            let local = try server.localURL(origin.url("/watch.mp4"))
            let started = Date()
            let whole = try CurlResponse.fetch(local, timeout: 60)
            let took = Date().timeIntervalSince(started)
            #expect(whole.status == 200 && whole.body == movie)
            // Alone at the limit: 4 s (and the bucket's first burst); shared, 8 s or more.
            #expect(took < 6, "the player's 1 MiB took \(took) s at --limit-rate 256K")
            #expect(Harness.waitUntil(timeout: 60) { zip(urls, files).allSatisfy { (try? harness.cachedBytes($0)) == $1 } })
        }

        /// A 2.7 Mbit/s file on an origin that gives each connection 256 KiB/s: after a
        /// seek to 90 %, the next 2 MiB (6 s of video) come over several connections in
        /// at most 3 s, where one connection needs 8. The file still ends exact, and what
        /// the seek took from other ranges is not fetched twice.
        @Test func aSeekIsFedOverSeveralConnections() throws {
            var faults = Faults()
            faults.bytesPerSecond = 256 << 10
            let movie = TestBytes.make(32 << 20, seed: 860)
            origin.serve("/seek.mp4", Resource(movie, contentType: "video/mp4", faults: faults))
            let server = try ServeFixture(cache: harness.scratch.cache)
            let local = try server.localURL(origin.url("/seek.mp4"))
            #expect(try CurlResponse.fetch(local, ["-r", "0-65535"]).status == 206)
            let seek = movie.count * 9 / 10
            let started = Date()
            let after = try CurlResponse.fetch(local, ["-r", "\(seek)-\(seek + (2 << 20) - 1)"])
            let waited = Date().timeIntervalSince(started)
            #expect(after.status == 206 && after.body == Array(movie[seek..<seek + (2 << 20)]))
            #expect(waited <= 3, "the 2 MiB after the seek point took \(waited) s")

            #expect(Harness.waitUntil(timeout: 60) { (try? harness.cachedBytes(origin.url("/seek.mp4"))) == movie })
            let sent = Harness.bytesServed(origin, "/seek.mp4")
            #expect(Double(sent) <= Double(movie.count) * 1.01, "\(sent) bytes sent for \(movie.count)")
        }

        /// A player that hangs up while its response waits for bytes (it sought elsewhere,
        /// or quit) is gone at once: its request ends then, in the log too, and its wants
        /// stop taking the file's connections, rather than when the bytes it waited for
        /// arrive (here, never: the origin sends heads and no body).
        @Test func aPlayerThatHangsUpWhileWaitingIsGoneAtOnce() throws {
            var faults = Faults()
            faults.stallAfterBytes = 0
            faults.stallCount = 1000
            origin.serve("/silent.mp4", Resource(TestBytes.make(1 << 20, seed: 870), contentType: "video/mp4", faults: faults))
            let server = try ServeFixture(cache: harness.scratch.cache, ["--json"])
            let local = try server.localURL(origin.url("/silent.mp4"))
            let hungUp = try CurlResponse.fetch(local, ["-r", "0-65535"], timeout: 1)
            #expect(hungUp.status == 206 && hungUp.body.isEmpty && hungUp.exitCode == 28)
            let ended = Harness.waitUntil(timeout: 2) {
                server.process.stdoutSoFar.split(separator: "\n").contains {
                    $0.contains("\"event\":\"request-end\"") && $0.contains("\"range\":\"bytes=0-65535\"")
                }
            }
            #expect(ended, "no request-end within 2 s of the hang-up: \(server.process.stdoutSoFar.suffix(600))")
        }

        /// The status page is live: a download shows its bytes growing, its held ranges,
        /// rate and connections, and a play link that plays it while it downloads;
        /// headless Chromium renders it. Its actions (fetch URLs, remove an object) work
        /// from the page's script, and are refused to anything else.
        @Test func theStatusPageIsLiveAndItsActionsWork() throws {
            // About a minute to fetch on two connections: the steps before `stop` (several
            // Chromium runs) take half of that on a busy machine.
            let bytes = TestBytes.make(16 << 20, seed: 830)
            var faults = Faults()
            faults.bytesPerSecond = 128 << 10
            origin.serve("/slow.mp4", Resource(bytes, contentType: "video/mp4", faults: faults))
            let added = TestBytes.make(100_000, seed: 831)
            origin.serve("/added.mp4", Resource(added, contentType: "video/mp4"))
            let server = try ServeFixture(cache: harness.scratch.cache, ["-x", "2"])
            let local = try server.localURL(origin.url("/slow.mp4"))
            // A player starts the download, takes 64 KiB and leaves; the download goes on.
            #expect(try CurlResponse.fetch(local, ["-r", "0-65535"]).status == 206)
            func snapshot() throws -> [String: Any] {
                let body = try CurlResponse.fetch(server.baseURL + "/status.json").body
                return try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
            }
            func downloads(_ snapshot: [String: Any]) -> [[String: Any]] { snapshot["downloads"] as? [[String: Any]] ?? [] }
            let first = try #require(downloads(try snapshot()).first)
            Thread.sleep(forTimeInterval: 1.5)
            let second = try #require(downloads(try snapshot()).first)
            #expect(first["name"] as? String == origin.url("/slow.mp4"))
            let (heldBefore, heldAfter) = (first["held"] as? Int ?? 0, second["held"] as? Int ?? 0)
            #expect(heldAfter > heldBefore && heldAfter < bytes.count, "held \(heldBefore) then \(heldAfter)")
            #expect(!((second["ranges"] as? [[Int]]) ?? []).isEmpty && (second["connections"] as? Int ?? 0) >= 1)
            let play = try #require(second["play"] as? String)
            let played = try CurlResponse.fetch(server.baseURL + play, ["-r", "0-999"])
            #expect(played.status == 206 && played.body == Array(bytes.prefix(1000)))

            // What a person sees: the page shows the download, and shows it moving.
            let chromium = Chromium(profile: harness.scratch.path + "/chromium")
            func heldOnThePage() throws -> (Int, String) {
                let dom = try chromium.run(["--dump-dom", "--virtual-time-budget=1500", server.baseURL + "/"]).stdout
                let held = dom.components(separatedBy: "data-held=\"").dropFirst().first?.prefix { $0.isNumber }
                return (Int(held ?? "") ?? -1, dom)
            }
            let (shownFirst, dom) = try heldOnThePage()
            #expect(dom.contains("Downloading (1)") && dom.contains("connection") && dom.contains(">play</button>"), "\(dom)")
            #expect(dom.contains(origin.url("/slow.mp4")), "\(dom)")
            let shot = harness.scratch.path + "/status.png"
            _ = try chromium.run(["--screenshot=\(shot)", "--window-size=1000,700", "--virtual-time-budget=1500", server.baseURL + "/"])
            #expect((TestBytes.read(shot)?.count ?? 0) > 5000)
            let (shownLater, _) = try heldOnThePage()
            #expect(shownFirst > 0 && shownLater > shownFirst, "the page showed \(shownFirst), then \(shownLater) bytes held")

            // Actions: what the page's script sends works; the same without its header
            // (a form another site posts) is refused.
            let text = "{\"text\": \"\(origin.url("/added.mp4"))\"}"
            let json = ["-X", "POST", "-H", "Content-Type: application/json", "--data", text]
            #expect(try CurlResponse.fetch(server.baseURL + "/actions/add", json).status == 403)
            let foreign = json + ["-H", "X-Mediacache-Action: 1", "-H", "Origin: http://evil.example"]
            #expect(try CurlResponse.fetch(server.baseURL + "/actions/add", foreign).status == 403)
            let add = try CurlResponse.fetch(server.baseURL + "/actions/add", json + ["-H", "X-Mediacache-Action: 1"])
            #expect(add.status == 202, "\(String(decoding: add.body, as: UTF8.self))")
            #expect(Harness.waitUntil(timeout: 20) { (try? harness.cachedBytes(origin.url("/added.mp4"))) == added })
            // Remove, from the page as a person does it: the object's remove button, then OK.
            func click(_ label: String, inRowOf name: String, kind: String) -> String {
                """
                (() => {
                  const row = [...document.querySelectorAll('.item.\(kind)')].find(r => r.textContent.includes('\(name)'));
                  const button = row && [...row.querySelectorAll('button')].find(b => b.textContent === '\(label)');
                  if (!button) return false;
                  button.click();
                  return true;
                })()
                """
            }
            // The page says what the server answered: the step waits for it.
            let answered = ["until": "document.getElementById('note').textContent.startsWith('removed')"]
            let noted = ["eval": "document.getElementById('note').textContent"]
            let clicked = try chromium.act(
                server.baseURL + "/", [["until": click("remove", inRowOf: origin.url("/added.mp4"), kind: "object")], answered, noted])
            #expect(clicked.status == 0 && clicked.stdout.contains("removed \(origin.url("/added.mp4"))"), "\(clicked.stdout) \(clicked.stderr)")
            #expect(Harness.waitUntil(timeout: 10) { (try? harness.run(["path", origin.url("/added.mp4")]).status) == 1 })

            // Stop: the download ends, what it holds is kept for `resume`.
            let key = try #require(second["key"] as? String)
            let stop = try CurlResponse.fetch(
                server.baseURL + "/actions/stop",
                ["-X", "POST", "-H", "Content-Type: application/json", "-H", "X-Mediacache-Action: 1",
                 "--data", "{\"key\": \"\(key)\"}"])
            #expect(stop.status == 200, "\(String(decoding: stop.body, as: UTF8.self))")
            #expect(Harness.waitUntil(timeout: 10) { ((try? downloads(snapshot())) ?? [[:]]).isEmpty })
            #expect(try harness.resumableURLs().contains(origin.url("/slow.mp4")))
            #expect(try harness.savedBytes() > 0)

            // Remove a download, from the page: it ends and what it held is gone.
            #expect(try CurlResponse.fetch(local, ["-r", "0-65535"]).status == 206)
            let removing = try chromium.act(
                server.baseURL + "/", [["until": click("remove", inRowOf: origin.url("/slow.mp4"), kind: "download")], answered, noted])
            #expect(removing.status == 0 && removing.stdout.contains("removed the download and the"), "\(removing.stdout) \(removing.stderr)")
            #expect(Harness.waitUntil(timeout: 10) { ((try? downloads(snapshot())) ?? [[:]]).isEmpty })
            #expect(try !harness.resumableURLs().contains(origin.url("/slow.mp4")))
            #expect(try harness.savedBytes() == 0)
        }

        /// The cache directory removed under a running server: it stops (exit 3) and
        /// says why, instead of writing on into an index nobody else can see.
        @Test func serveStopsWhenItsCacheIsRemoved() throws {
            let server = try ServeFixture(cache: harness.scratch.cache)
            try FileManager.default.removeItem(atPath: harness.scratch.cache)
            #expect(Harness.waitUntil(timeout: 5) { !server.process.process.isRunning })
            let result = server.stop()
            #expect(result.status == 3, "\(result.status) \(result.stderr)")
            #expect(result.stderr.contains("was removed or replaced while serving"), "\(result.stderr)")
        }
    }
}

/// Debian's headless Chromium, for what a person sees in a browser.
struct Chromium {
    /// Its profile directory (inside the test's scratch, so it goes with it).
    let profile: String

    /// Runs until it has done what `arguments` ask (`--screenshot`, `--dump-dom`).
    func run(_ arguments: [String]) throws -> RunResult {
        try ExternalTool.run(Self.path, baseArguments + arguments)
    }

    /// Opens a page and keeps it open until the process is terminated.
    func start(_ arguments: [String]) throws -> Process {
        guard FileManager.default.isExecutableFile(atPath: Self.path) else { throw ExternalTool.Missing(path: Self.path) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.path)
        process.arguments = baseArguments + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Opens `url` and acts on it as a person would, through the DevTools protocol
    /// (`Support/chromium-page.py`): each step `["until": JS]` waits until JS is true,
    /// `["eval": JS]` runs it; confirmations are answered OK. Returns the last value as JSON.
    func act(_ url: String, _ steps: [[String: String]], file: String = #filePath) throws -> RunResult {
        let helper = URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent("Support/chromium-page.py")
        let argv = try JSONSerialization.data(withJSONObject: [Self.binary] + baseArguments)
        let script = try JSONSerialization.data(withJSONObject: steps)
        return try ExternalTool.run(
            "/usr/bin/python3", [helper.path, String(decoding: argv, as: UTF8.self), url, String(decoding: script, as: UTF8.self)])
    }

    private static let path = "/usr/bin/chromium"
    /// The browser itself, without Debian's launcher script.
    private static let binary = "/usr/lib/chromium/chromium"

    /// Headless, in a profile of its own (as root it needs --no-sandbox).
    private var baseArguments: [String] {
        ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=\(profile)"]
    }
}

/// Results that threads add to.
final class LockedResults: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Bool] = []

    func append(_ value: Bool) { lock.withLock { values.append(value) } }
    var count: Int { lock.withLock { values.count } }
    var all: [Bool] { lock.withLock { values } }
}

extension FFmpeg {
    /// ffprobe's idea of the duration of `url`, and how long it took to get it.
    static func probeDuration(_ url: String) throws -> (duration: Double, seconds: Double) {
        let result = try ExternalTool.run(
            "/usr/bin/ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", url])
        return (Double(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1, result.seconds)
    }
}

/// A page on the test origin that plays a URL in headless Chromium and reports the
/// video's `currentTime` (and its error code) back to the origin every 0.3 s.
struct ChromiumPlayback {
    let browser: Process
    let origin: TestOrigin

    init(playing url: String, chromium: Chromium, origin: TestOrigin) throws {
        self.origin = origin
        origin.serve("/report.txt", Resource(Array("ok".utf8), contentType: "text/plain"))
        let html = """
            <!doctype html><html><head><title>play</title></head><body>
            <video id=v src="\(url)" muted autoplay playsinline></video>
            <script>
            const v = document.getElementById('v');
            setInterval(() => {
              fetch('/report.txt?t=' + v.currentTime.toFixed(2) + '&error=' + (v.error ? v.error.code : 0)).catch(() => {});
            }, 300);
            </script></body></html>
            """
        origin.serve("/play.html", Resource(Array(html.utf8), contentType: "text/html"))
        browser = try chromium.start(["--autoplay-policy=no-user-gesture-required", origin.url("/play.html")])
    }

    /// The reports so far, as `t=SECONDS&error=CODE`.
    var reports: [String] { origin.requests(for: "/report.txt").compactMap(\.query) }

    /// Waits until a report says playback got past `seconds`.
    func waitUntilPlayed(seconds: Double, timeout: Double) -> Bool {
        Harness.waitUntil(timeout: timeout) {
            reports.contains { Double($0.dropFirst(2).prefix { $0 != "&" }).map { $0 > seconds } ?? false }
        }
    }

    func stop() {
        browser.terminate()
        browser.waitUntilExit()
    }
}
