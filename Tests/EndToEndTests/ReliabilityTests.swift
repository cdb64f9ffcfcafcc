import Foundation
import Testing
import TestOrigin

extension EndToEnd {
    /// Inputs that used to hang the tool or fill the disk, and failures that used to
    /// leave debris behind.
    @Suite struct Reliability {
        let origin: TestOrigin
        let harness = Harness()

        init() throws { origin = try TestOrigin() }

        /// A FIFO given where a file is read (`--load-cookies`, `--netrc-file`,
        /// `--config`) is refused at once (exit 2, naming it), never opened: opening a
        /// FIFO nobody writes blocks for ever.
        @Test func aFIFOGivenAsAFileIsRefusedNotOpened() throws {
            let fifo = harness.scratch.path + "/pipe"
            #expect(mkfifo(fifo, 0o600) == 0)
            origin.serve("/a.bin", Resource(TestBytes.make(1000, seed: 2_801)))
            let list = harness.scratch.write("list.txt", origin.url("/a.bin"))
            for option in ["--load-cookies", "--netrc-file", "--config"] {
                let result = try MediaCacheProcess.run(
                    ["prefetch", list, option, fifo, "--cache-dir", harness.scratch.cache], timeout: 10)
                #expect(result.status == 2, "\(option): \(result.status) \(result.stderr)")
                #expect(result.stderr.contains(fifo) && result.stderr.contains("FIFO"), "\(option): \(result.stderr)")
            }
            #expect(origin.requests.isEmpty)
        }

        /// A config line with ESC and BEL is quoted with them replaced.
        @Test func configErrorsShowNoControlCharacters() throws {
            let config = harness.scratch.write("config", "jobs\u{1B}[31m\u{07} = 4\n")
            let result = try MediaCacheProcess.run(["status", "--config", config, "--cache-dir", harness.scratch.cache])
            #expect(result.status == 2, "\(result.stderr)")
            #expect(result.stderr.contains(config + ":1:"), "\(result.stderr)")
            #expect(!result.stderr.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" }, "\(result.stderr)")
        }

        /// An origin that answers a media URL with an HTML page and 200: a player asking
        /// `serve` gets a 502 that names the reason, not a 200 cut short.
        @Test func serveAnswersAnErrorPageWith502() throws {
            let page = Array("<!doctype html><html><body>Please log in</body></html>".utf8)
            origin.serve("/login.mp4", Resource(page, contentType: "text/html"))
            let server = try ServeFixture(cache: harness.scratch.cache)
            let response = try CurlResponse.fetch(try server.localURL(origin.url("/login.mp4")))
            #expect(response.status == 502, "\(response.status) \(response.headers)")
            #expect(String(decoding: response.body, as: UTF8.self).contains("text/html instead of media"), "\(String(decoding: response.body, as: UTF8.self))")
            // A player's retries get the same answer without a new download.
            let asked = origin.requests(for: "/login.mp4").count
            for _ in 0..<3 {
                let again = try CurlResponse.fetch(try server.localURL(origin.url("/login.mp4")))
                #expect(again.status == 502 && again.headers["retry-after"].flatMap { Int($0) }.map { (1...10).contains($0) } == true,
                    "\(again.status) \(again.headers)")
            }
            #expect(origin.requests(for: "/login.mp4").count == asked, "a retry within seconds of the failure asked the origin again")
        }

        /// An origin that takes the connection and never answers, with retries left:
        /// the player hears 504 a second after --timeout (not once every retry is spent,
        /// minutes later), and the download goes on.
        @Test func aSilentOriginIsAGatewayTimeoutSoonAfterTheTimeout() throws {
            let silent = try SilentOrigin()
            let server = try ServeFixture(cache: harness.scratch.cache, ["--timeout", "2"])
            let local = try server.localURL(silent.url("/clip.mp4"))
            let started = Date()
            let response = try CurlResponse.fetch(local)
            let waited = Date().timeIntervalSince(started)
            #expect(response.status == 504, "\(response.status) \(response.headers)")
            #expect(waited >= 2.5 && waited < 8, "answered after \(waited) s")
            let text = String(decoding: response.body, as: UTF8.self)
            #expect(text.contains("has not answered within --timeout (2 s)") && text.contains("the download goes on"), "\(text)")
        }

        /// HTTP/1.0 has no chunked encoding and closes after each response unless it
        /// asks for keep-alive: a stream of unknown length reaches a 1.0 client as raw
        /// bytes that end with the connection, and a plain 1.0 request is not left open.
        @Test func http10ClientsGetResponsesTheyCanRead() throws {
            var faults = Faults()
            faults.chunked = true
            let text = String(repeating: "0123456789abcdef", count: 20_000)
            origin.serve("/live.mp3", Resource(Array(text.utf8), contentType: "audio/mpeg", faults: faults))
            let server = try ServeFixture(cache: harness.scratch.cache)
            let path = try #require(URL(string: try server.localURL(origin.url("/live.mp3")))?.path)
            let host = String(server.baseURL.dropFirst("http://".count))
            let port = Int(host.split(separator: ":").last ?? "") ?? 0

            let stream = RawHTTP.send("GET \(path) HTTP/1.0\r\nHost: \(host)\r\n\r\n", port: port, wait: 20)
            #expect(stream.closedByServer && stream.head.hasPrefix("HTTP/1.0 200"), "\(stream.head)")
            #expect(!stream.head.lowercased().contains("transfer-encoding"), "\(stream.head)")
            #expect(stream.text.hasSuffix("\r\n\r\n" + text), "the body is not the stream's bytes, unframed")

            let plain = RawHTTP.send("GET / HTTP/1.0\r\nHost: \(host)\r\n\r\n", port: port)
            #expect(plain.status == 200 && plain.closedByServer, "\(plain.head)")
            let kept = RawHTTP.send("GET / HTTP/1.0\r\nHost: \(host)\r\nConnection: keep-alive\r\n\r\n", port: port, wait: 1.5)
            #expect(kept.status == 200 && !kept.closedByServer, "\(kept.head)")
            #expect(kept.head.lowercased().contains("content-length:"), "\(kept.head)")
            let closing = RawHTTP.send("GET / HTTP/1.1\r\nHost: \(host)\r\nConnection: Close\r\n\r\n", port: port)
            #expect(closing.status == 200 && closing.closedByServer, "\(closing.head)")
        }

        /// RFC 9112's request-line rules: an HTTP/1.1 request without Host is a bad
        /// request (400), a 1.0 one is still answered; a target too long for any URL this
        /// server hands out gets 414. Each refusal closes its connection.
        @Test func aRequestWithoutHostOrWithAnOverlongTargetIsRefused() throws {
            let server = try ServeFixture(cache: harness.scratch.cache)
            let host = String(server.baseURL.dropFirst("http://".count))
            let port = Int(host.split(separator: ":").last ?? "") ?? 0

            let hostless = RawHTTP.send("GET / HTTP/1.1\r\n\r\n", port: port)
            #expect(hostless.status == 400 && hostless.closedByServer, "\(hostless.text)")
            #expect(hostless.text.contains("Host header"), "\(hostless.text)")
            let old = RawHTTP.send("GET / HTTP/1.0\r\n\r\n", port: port)
            #expect(old.status == 200, "\(old.head)")
            let long = RawHTTP.send("GET /m/\(String(repeating: "a", count: 20_000)) HTTP/1.1\r\nHost: \(host)\r\n\r\n", port: port)
            #expect(long.status == 414 && long.closedByServer, "\(long.head)")
        }

        /// A `Content-Length` larger than the disk is refused before anything is
        /// reserved; a smaller lie (4 GiB for 1,000 bytes) is reserved, and given back
        /// when the entry fails, so what `stats` says is on disk is what was received.
        @Test func aLyingLengthReservesNothingItDidNotGet() throws {
            let body = TestBytes.make(1000, seed: 2_803)
            var huge = Faults()
            huge.ignoreRange = true
            huge.overstatedLength = 1 << 50
            origin.serve("/huge.bin", Resource(body, faults: huge))
            let refused = try harness.prefetch(list: origin.url("/huge.bin"), ["--retries", "1"])
            #expect(refused.status == 1, "\(refused.stderr)")
            #expect(refused.stderr.contains("more than the whole disk holds"), "\(refused.stderr)")

            var lying = Faults()
            lying.ignoreRange = true
            lying.overstatedLength = (4 << 30) - 1000
            origin.serve("/lying.bin", Resource(body, faults: lying))
            let failed = try harness.prefetch(list: origin.url("/lying.bin"), ["--retries", "1"])
            #expect(failed.status == 1, "\(failed.stderr)")
            let stats = try harness.run(["stats", "--json"]).stdout
            let fields = try #require(try JSONSerialization.jsonObject(with: Data(stats.utf8)) as? [String: Any])
            let onDisk = try #require(fields["partial_disk_bytes"] as? Int)
            #expect(onDisk < 1 << 20, "\(onDisk) bytes of partial jobs on disk: \(stats)")
        }

        /// A response without a length that never ends (a radio stream) is cut at
        /// `--max-stream-size`, fails its entry and leaves nothing on disk.
        @Test func anEndlessStreamIsCutAtTheLimit() throws {
            var faults = Faults()
            faults.chunked = true
            origin.serve("/radio", Resource(TestBytes.make(3 << 20, seed: 2_804), contentType: "audio/mpeg", faults: faults))
            let result = try harness.prefetch(list: origin.url("/radio"), ["--max-stream-size", "1M"])
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.contains("--max-stream-size"), "\(result.stderr)")
            let left = (try? FileManager.default.contentsOfDirectory(atPath: harness.scratch.cache + "/partial")) ?? []
            #expect(left.filter { !$0.hasPrefix(".") }.isEmpty, "left in partial/: \(left)")
            #expect(try harness.run(["path", origin.url("/radio")]).status == 1)
        }

        /// More silent clients than the open-file limit allows (half of them mid-way
        /// through a request head): `serve` stays up, closes them after
        /// `--idle-timeout`, answers a real request meanwhile, and its descriptors come
        /// back to where they were.
        @Test func serveOutlastsAFloodOfSilentClients() throws {
            let server = try ServeFixture(
                cache: harness.scratch.cache, ["--idle-timeout", "2"], fileLimit: .init(soft: 400, hard: 400, keepsDescriptors: true))
            let pid = server.process.process.processIdentifier
            func descriptors() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1 }
            #expect(try CurlResponse.fetch(server.baseURL + "/").status == 200)
            let before = descriptors()
            let port = Int(server.baseURL.split(separator: ":").last ?? "") ?? 0
            // In rounds, so the server accepts up to its cap before its backlog (256) fills;
            // every other round stops half-way through a request head.
            var clients: [Int32] = []
            for round in 0..<20 {
                let text = round % 2 == 0 ? "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " : ""
                let batch = RawHTTP.openIdle(50, port: port, sending: text)
                clients += batch
                if batch.count < 50 { break }
                Thread.sleep(forTimeInterval: 0.1)
            }
            defer { clients.forEach { close($0) } }
            #expect(clients.count >= 300, "only \(clients.count) connections were made")

            let page = try CurlResponse.fetch(server.baseURL + "/", timeout: 20)
            #expect(page.status == 200, "a real request was not answered while the flood held")
            let allClosed = Harness.waitUntil(timeout: 20) { clients.allSatisfy(RawHTTP.isClosedByPeer) }
            #expect(allClosed, "\(clients.filter { !RawHTTP.isClosedByPeer($0) }.count) silent connections are still open")
            #expect(server.process.process.isRunning, "serve died: \(server.stop().stderr.suffix(500))")
            clients.forEach { close($0) }
            clients = []
            let settled = Harness.waitUntil(timeout: 10) { descriptors() <= before + 4 }
            #expect(settled, "serve holds \(descriptors()) descriptors, \(before) before the flood")
        }

        /// A cached object of `size` bytes under a new `serve`: its bytes, the server, its
        /// local URL and port, and a raw request for it.
        private func serveCached(
            _ name: String, size: Int, seed: UInt64, idleTimeout: Int
        ) throws -> (bytes: [UInt8], server: ServeFixture, local: String, port: Int, request: String) {
            let bytes = TestBytes.make(size, seed: seed)
            origin.serve(name, Resource(bytes, contentType: "video/mp4"))
            let url = origin.url(name)
            #expect(try harness.prefetch(list: url).status == 0)
            let server = try ServeFixture(cache: harness.scratch.cache, ["--idle-timeout", String(idleTimeout)])
            let local = try server.localURL(url)
            let path = try #require(URL(string: local)?.path)
            let host = String(server.baseURL.dropFirst("http://".count))
            let port = Int(host.split(separator: ":").last ?? "") ?? 0
            return (bytes, server, local, port, "GET \(path) HTTP/1.1\r\nHost: \(host)\r\n\r\n")
        }

        /// A client that stops reading its answer is closed after six `--idle-timeout`s
        /// (a paused player's cache may stay full a while): thousands of them once held
        /// about a megabyte each and every slot under the client cap. One that reads on
        /// gets the whole object.
        @Test func aClientThatStopsReadingIsClosed() throws {
            let (bytes, server, _, port, request) = try serveCached("/big.bin", size: 16 << 20, seed: 2_811, idleTimeout: 1)
            let stalled = RawHTTP.openStalled(port: port, sending: request)
            defer { close(stalled) }
            Thread.sleep(forTimeInterval: 8)
            let (received, closed) = RawHTTP.drain(stalled, wait: 5)
            #expect(closed && received < bytes.count, "received \(received) bytes, closed: \(closed)")
            let reader = RawHTTP.openStalled(port: port, sending: request)
            defer { close(reader) }
            let (all, _) = RawHTTP.drain(reader, wait: 10)
            #expect(all > bytes.count, "a client reading on got \(all) bytes")
            #expect(server.process.process.isRunning)
        }

        /// At its connection cap, `serve` closes the connection idle longest to make room:
        /// a player arriving behind a flood of silent connections is answered at once, not
        /// after an idle timeout (here a minute).
        @Test func aFullServerMakesRoomByClosingItsOldestIdleConnection() throws {
            let server = try ServeFixture(
                cache: harness.scratch.cache, ["--idle-timeout", "60"],
                fileLimit: .init(soft: 200, hard: 200, keepsDescriptors: true))
            let port = Int(server.baseURL.split(separator: ":").last ?? "") ?? 0
            var clients: [Int32] = []
            for _ in 0..<6 {
                let batch = RawHTTP.openIdle(50, port: port, sending: "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
                clients += batch
                if batch.count < 50 { break }
                Thread.sleep(forTimeInterval: 0.1)
            }
            defer { clients.forEach { close($0) } }
            #expect(clients.count >= 250, "only \(clients.count) connections were made")
            // Each connection accepted at the cap closes the oldest idle one, so the
            // silent ones queued in the backlog ahead of the player go through one by one:
            // well under a second here, seconds on a loaded machine (10 s was seen in CI),
            // never the idle timeout's minute.
            let started = Date()
            let page = try CurlResponse.fetch(server.baseURL + "/", timeout: 40)
            let waited = Date().timeIntervalSince(started)
            // The server once stayed over its cap after such a burst, owing one eviction
            // for several connections accepted while none was known, and the player had
            // no answer within 40 s (IdleConnectionsTests has that race on its own).
            #expect(page.status == 200 && waited < 30, "status \(page.status) after \(waited) s")
            #expect(RawHTTP.isClosedByPeer(clients[0]), "the oldest idle connection is still open")
            #expect(server.process.process.isRunning)
        }

        /// Players that ask for a large object and never read: what `serve` holds for them
        /// is bounded (a socket buffer and a chunk or two each), and given back to the
        /// system when they leave.
        @Test func clientsThatNeverReadHoldBoundedMemory() throws {
            let (bytes, server, local, port, request) = try serveCached("/big.mp4", size: 24 << 20, seed: 2_806, idleTimeout: 60)
            let pid = server.process.process.processIdentifier
            func resident() -> Int {
                let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
                let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
                return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) << 10
            }
            #expect(try CurlResponse.fetch(local).body.count == bytes.count)
            let before = resident()

            var clients = RawHTTP.openIdle(40, port: port, sending: request)
            defer { clients.forEach { close($0) } }
            #expect(clients.count == 40)
            Thread.sleep(forTimeInterval: 3)
            let held = resident() - before
            #expect(held < 40 * (3 << 20), "40 clients that never read hold \(held >> 20) MiB")
            clients.forEach { close($0) }
            clients = []
            let returned = Harness.waitUntil(timeout: 10) { resident() - before < 32 << 20 }
            #expect(returned, "\((resident() - before) >> 20) MiB more than before the clients came, after they left")
        }

        /// Dead links (404, 410, an HTML page for media) leave no folder in `partial/`:
        /// nothing for `status` to list or `resume` to fetch again.
        @Test func definiteFailuresLeaveNoPartialJob() throws {
            origin.serve("/gone.bin", Resource(TestBytes.make(1000, seed: 2_802), faults: {
                var faults = Faults()
                faults.statusSequence = [ScriptedStatus(410), ScriptedStatus(410), ScriptedStatus(410)]
                return faults
            }()))
            origin.serve("/page.mp4", Resource(Array("<!doctype html><html>login</html>".utf8), contentType: "text/html"))
            let urls = [origin.url("/missing.mp4"), origin.url("/gone.bin"), origin.url("/page.mp4")]
            let result = try harness.prefetch(list: urls.joined(separator: "\n"))
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.components(separatedBy: "FAILED").count - 1 == 3, "\(result.stderr)")
            let partial = harness.scratch.cache + "/partial"
            let left = (try? FileManager.default.contentsOfDirectory(atPath: partial)) ?? []
            #expect(left.filter { !$0.hasPrefix(".") }.isEmpty, "left in partial/: \(left)")
            #expect(try harness.resumableURLs().isEmpty)
            // `status` still says what failed, and that `resume` will not try it.
            let failed = try harness.statusItems(state: "failed")
            #expect(Set(failed.compactMap { $0["url"] as? String }) == Set(urls))
            #expect(failed.allSatisfy { $0["kept_for_resume"] as? Bool == false })
            origin.clearLog()
            let resumed = try harness.run(["resume"])
            #expect(resumed.status == 0, "\(resumed.stderr)")
            #expect(origin.requests.isEmpty, "resume fetched a dead link again")
        }
    }
}
