import Foundation
import MediaCacheKit
import Testing
import TestOrigin

extension EndToEnd {
    /// Lists, options and media that are garbage or lie: the tool names the problem and
    /// exits with the documented code; it never crashes, hangs or writes outside the cache.
    @Suite struct HostileInput {
        let origin: TestOrigin
        let harness = Harness()

        init() throws { origin = try TestOrigin() }

        private func prefetch(listBytes: [UInt8], _ extra: [String] = []) throws -> RunResult {
            let file = harness.scratch.writeBytes("list.txt", listBytes)
            return try MediaCacheProcess.run(["prefetch", file, "--cache-dir", harness.scratch.cache] + extra)
        }

        /// No escape sequences or NULs reach the terminal from a list.
        private func expectPrintable(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
            let bad = text.unicodeScalars.filter { $0 != "\n" && $0.properties.generalCategory == .control }
            #expect(bad.isEmpty, "control characters in output: \(bad.map { $0.value })", sourceLocation: sourceLocation)
        }

        /// Range and If- headers are mediacache's own: `-H` with one is a usage error before
        /// any request (one made every answer the same 11 bytes, asked again ~5,000 times a
        /// second); `header=` with one skips its entry.
        @Test func aRangeOrConditionalHeaderOfTheUsersIsRefused() throws {
            origin.serve("/a.bin", Resource(TestBytes.make(50_000, seed: 64)))
            let url = origin.url("/a.bin")
            let option = try harness.run(["prefetch", "-H", "Range: bytes=0-10", url], timeout: 20)
            #expect(option.status == 2, "\(option.stderr)")
            #expect(option.stderr.contains("-H Range is refused: mediacache sets Range"), "\(option.stderr)")
            #expect(origin.requests.isEmpty)
            let listed = try harness.prefetch(list: "\(url)\n  header=If-None-Match: \"v1\"\n", timeout: 20)
            #expect(listed.status == 1, "\(listed.stderr)")
            #expect(listed.stderr.contains("list.txt:2: header= If-None-Match is refused"), "\(listed.stderr)")
            #expect(origin.requests.isEmpty)
            // A browser's "Copy as cURL" sends one: the answer would be gzip, not the file.
            let encoding = try harness.run(["prefetch", "-H", "Accept-Encoding: gzip, deflate, br", url], timeout: 20)
            #expect(encoding.status == 2, "\(encoding.stderr)")
            #expect(encoding.stderr.contains("-H Accept-Encoding is refused: mediacache asks for the file's own bytes"), "\(encoding.stderr)")
            #expect(origin.requests.isEmpty)
        }

        /// A login page answering a playlist's URL (as HTML or as plain text) is refused, not
        /// cached as the title for every later run to find.
        @Test(arguments: [("/t/master.m3u8", "text/html"), ("/t/manifest.mpd", "text/plain"), ("/t/v.m3u8", "application/octet-stream")])
        func aPageAtAPlaylistsURLIsNotCached(path: String, type: String) throws {
            let page = "<!doctype html><html><body>Please log in</body></html>\n"
            origin.serve(path, Resource(Array(page.utf8), contentType: type))
            let url = origin.url(path)
            let result = try harness.prefetch(list: url, timeout: 20)
            #expect(result.status == 1, "\(result.stderr)")
            let named = path.hasSuffix(".mpd") ? "not a DASH MPD" : "not an HLS playlist"
            #expect(result.stderr.contains("the origin's answer is \(named)"), "\(result.stderr)")
            #expect(try harness.run(["path", url]).status == 1)
        }

        @Test func garbageListNamesEachBadLineAndTheGoodEntryStillRuns() throws {
            let body = TestBytes.make(20_000, seed: 61)
            origin.serve("/good.bin", Resource(body))
            // ASCII junk, control characters and NULs included (still UTF-8, so every line is read).
            let junk = TestBytes.make(4000, seed: 62).map { $0 & 0x7F }
            let junkLines = junk.filter { $0 == 0x0A }.count
            let list = Array("# junk follows\n".utf8) + junk + Array("\n\(origin.url("/good.bin"))\n".utf8)
            let result = try prefetch(listBytes: list)
            #expect(result.status == 1, "\(result.stderr)")
            let prefix = harness.scratch.path + "/list.txt:"
            let located = result.stderr.split(separator: "\n").filter { $0.hasPrefix(prefix) }
            #expect(!located.isEmpty, "\(result.stderr)")
            for line in located {
                let number = Int(line.dropFirst(prefix.count).prefix { $0.isNumber }) ?? 0
                #expect((2...junkLines + 2).contains(number), "\(line)")
            }
            expectPrintable(result.stderr)
            #expect(try harness.cachedBytes(origin.url("/good.bin")) == body)
        }

        @Test func binaryListIsOneLocatedError() throws {
            let result = try prefetch(listBytes: [0xFF, 0xFE, 0x00, 0x80] + Array("https://127.0.0.1:9/x.mp4\n".utf8))
            #expect(result.status == 1)
            #expect(result.stderr.contains("list.txt:1: line is not UTF-8 text"), "\(result.stderr)")
            #expect(harness.scratch.objectFiles.isEmpty)
        }

        /// Latin-1 bytes in a comment and in one URL line: the other entries are cached,
        /// the bad line is named, exit 1 (one byte used to reject the whole list as line 1).
        @Test func latin1InACommentAndOneURLLineLeavesTheRestRunning() throws {
            let a = TestBytes.make(30_000, seed: 66)
            let b = TestBytes.make(40_000, seed: 67)
            origin.serve("/a.bin", Resource(a))
            origin.serve("/b.bin", Resource(b))
            var list = Array("# exported by caf".utf8) + [0xE9] + Array("\n\(origin.url("/a.bin"))\n".utf8)
            list += Array(origin.url("/caf").utf8) + [0xE9] + Array(".bin\n  out=cafe.bin\n\(origin.url("/b.bin"))\n".utf8)
            let result = try prefetch(listBytes: list)
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.contains("list.txt:3: line is not UTF-8 text (save the list as UTF-8); entry skipped"), "\(result.stderr)")
            #expect(!result.stderr.contains("list.txt:1:") && !result.stderr.contains("list.txt:4:"), "\(result.stderr)")
            #expect(try harness.cachedBytes(origin.url("/a.bin")) == a)
            #expect(try harness.cachedBytes(origin.url("/b.bin")) == b)
            #expect(origin.requests(for: "/caf\u{E9}.bin").isEmpty)
        }

        @Test func endlessListIsRefusedNotReadIntoMemory() throws {
            let result = try MediaCacheProcess.run(
                ["prefetch", "/dev/zero", "--cache-dir", harness.scratch.cache], timeout: 30)
            #expect(result.status == 2)
            #expect(result.stderr.contains("list /dev/zero is larger than 64 MiB"), "\(result.stderr)")
        }

        /// A URL of megabytes on one line: refused at parse time naming the line, in a
        /// short message, never requested, never left as a partial job; the next entry runs.
        @Test func giantURLIsALineErrorNotARequest() throws {
            let body = TestBytes.make(20_000, seed: 64)
            origin.serve("/good.bin", Resource(body))
            let giant = origin.url("/g.mp4?") + String(repeating: "a", count: 20 << 20)
            let result = try MediaCacheProcess.run(
                ["prefetch", "-", "--cache-dir", harness.scratch.cache],
                stdin: giant + "\n" + origin.url("/good.bin") + "\n", timeout: 60)
            #expect(result.status == 1, "\(result.stderr.prefix(2000))")
            #expect(
                result.stderr.contains(
                    "<stdin>:1: line is \(giant.utf8.count) bytes long; no URL or option may be longer than 65536 bytes; entry skipped"),
                "\(result.stderr.prefix(2000))")
            #expect(result.stderr.utf8.count < 4000, "stderr is \(result.stderr.utf8.count) bytes")
            #expect(origin.requests(for: "/g.mp4").isEmpty)
            #expect(try harness.cachedBytes(origin.url("/good.bin")) == body)
            let status = try harness.run(["status"])
            #expect(!status.stdout.contains("/g.mp4"), "\(status.stdout.prefix(2000))")
        }

        /// A URL whose port is no TCP port (libcurl refused it, after the run had started)
        /// is a bad line, named in a short message, and never a request.
        @Test func aPortOutOfRangeIsABadLine() throws {
            let url = "http://127.0.0.1:99999/x.mp4?" + String(repeating: "b", count: 3000)
            let result = try harness.prefetch(list: url + "\n", timeout: 30)
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.contains("list.txt:1: port 99999 is not a TCP port (1-65535)"), "\(result.stderr.prefix(500))")
            #expect(!result.stderr.contains("retry"), "\(result.stderr.prefix(500))")
            #expect(result.seconds < 5, "took \(result.seconds) s")
            // Named, but cut short.
            #expect(!result.stderr.contains(url), "\(result.stderr.prefix(500))")
            #expect(try harness.resumableURLs().isEmpty)
        }

        @Test(arguments: [
            (["--connections", "999999999"], "--connections must be between 1 and 32"),
            (["--jobs", "0"], "--jobs must be between 1 and 64"),
            (["--min-fragment", "8000000T"], "--min-fragment must be a size between 16K and 1T"),
            (["--min-fragment", "0.5"], "--min-fragment must be a size between 16K and 1T"),
            (["--timeout", "99999999999999999999"], "--timeout"),
        ])
        func absurdNumbersAreUsageErrors(options: [String], message: String) throws {
            let result = try harness.prefetch(list: "https://127.0.0.1:9/x.mp4\n", options)
            #expect(result.status == 2, "\(result.stderr)")
            #expect(result.stderr.contains(message), "\(result.stderr)")
        }

        /// A `#fragment` never reaches the server: `v.mp4#t=10` and `v.mp4` are one object,
        /// downloaded once and found by `path` under either spelling.
        @Test func urlFragmentIsNoPartOfTheCacheKey() throws {
            let body = TestBytes.make(300_000, seed: 65)
            origin.serve("/v.mp4", Resource(body, contentType: "video/mp4"))
            let plain = origin.url("/v.mp4")
            let first = try harness.prefetch(list: plain + "#t=10\n" + plain + "#t=20\n", ["--no-faststart"])
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stderr.contains("duplicate of the entry on line 1"), "\(first.stderr)")
            let second = try harness.prefetch(list: plain + "\n", ["--no-faststart"])
            #expect(second.status == 0, "\(second.stderr)")
            #expect(second.stderr.contains("cached   \(plain)"), "\(second.stderr)")
            #expect(Harness.bytesServed(origin, "/v.mp4") == body.count)
            #expect(try harness.cachedBytes(plain + "#t=5") == body)
            #expect(try harness.cachedBytes(plain) == body)
            let listed = try harness.run(["ls", "--json"])
            #expect(!listed.stdout.contains("#t="), "\(listed.stdout)")
            #expect(harness.scratch.objectFiles.count == 1)
        }

        /// An `out=` with `..` never writes outside: its entry is skipped.
        @Test func outWithParentComponentsNeverWritesOutside() throws {
            let a = TestBytes.make(30_000, seed: 63)
            let b = TestBytes.make(30_000, seed: 64)
            origin.serve("/a.mp4", Resource(a))
            origin.serve("/b", Resource(b))
            let list = harness.scratch.write(
                "list.txt",
                "\(origin.url("/a.mp4"))\n  out=../../x\n\(origin.url("/b"))\n  out=../../../../tmp/evil.sh\n")
            let bases: [String] = [
                FileManager.default.currentDirectoryPath, harness.scratch.path, harness.scratch.cache,
                harness.scratch.cache + "/objects", harness.scratch.cache + "/partial",
            ]
            var escapes: [String] = []
            for name in ["../../x", "../../../../tmp/evil.sh"] {
                for base in bases {
                    let path = ((base + "/" + name) as NSString).standardizingPath
                    if !FileManager.default.fileExists(atPath: path) { escapes.append(path) }
                }
            }
            let outsideBefore = harness.scratch.filesOutsideCache

            let result = try MediaCacheProcess.run(["prefetch", list, "--cache-dir", harness.scratch.cache])
            // Each such out= is a bad line, named, and its entry is skipped (as for any
            // bad option): nothing is fetched under another name than the one asked for.
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.contains("list.txt:2: out= ../../x has a '..'"), "\(result.stderr)")
            #expect(result.stderr.contains("list.txt:4: out= ../../../../tmp/evil.sh has a '..'"), "\(result.stderr)")
            #expect(result.stderr.contains("entry skipped"), "\(result.stderr)")
            #expect(harness.scratch.filesOutsideCache == outsideBefore)
            for path in escapes { #expect(!FileManager.default.fileExists(atPath: path), "\(path) was written") }
            #expect(harness.scratch.objectFiles.isEmpty)
            #expect(origin.requests.isEmpty)
            _ = (a, b)
        }

        /// `FaststartPlanner` and `ObjectCommitter`: a file that starts like an MP4 but
        /// whose boxes lie, and one whose moov is well formed but unusual, are the origin's
        /// files all the same: cached byte-exact, never relocated, and recorded as
        /// skipped(reason), the damage named; nothing crashes.
        @Test func hostileMP4IsKeptAsItIs() throws {
            let ftyp = SyntheticMP4.box("ftyp", Array("isom".utf8) + [0, 0, 2, 0] + Array("isomiso2".utf8))
            let mdat = SyntheticMP4.box("mdat", TestBytes.make(4000, seed: 65))
            // A 64-bit size of Int64.max (the overflow FuzzMP4 found: this used to crash the tool).
            let lyingLargesize = ftyp + SyntheticMP4.be32(1) + Array("mdat".utf8) + [0x7F] + [UInt8](repeating: 0xFF, count: 7)
                + TestBytes.make(4000, seed: 66)
            // stco claims 2^29 entries in a 12-byte payload.
            let table = SyntheticMP4.box("stco", [0, 0, 0, 0] + SyntheticMP4.be32(0x2000_0000) + SyntheticMP4.be32(48))
            let lyingTable = ftyp + mdat + SyntheticMP4.box("moov", SyntheticMP4.box("trak", SyntheticMP4.box("mdia",
                SyntheticMP4.box("minf", SyntheticMP4.box("stbl", table)))))
            // Well formed, but its chunk offsets point past the file: kept as it is.
            let outside = ftyp + mdat + SyntheticMP4.moov(chunkOffsets: [1 << 30])
            let files = [("/largesize.mp4", lyingLargesize), ("/table.mp4", lyingTable), ("/outside.mp4", outside)]
            for (path, bytes) in files { origin.serve(path, Resource(bytes, contentType: "video/mp4")) }

            let result = try harness.prefetch(list: files.map { origin.url($0.0) }.joined(separator: "\n"), ["--retries", "1"])
            #expect(result.status == 0, "\(result.stderr)")
            for (path, bytes) in files.prefix(2) {
                let done = result.stderr.split(separator: "\n").first { $0.contains(origin.url(path)) && $0.contains("damaged") }
                #expect(done?.hasPrefix("done") == true, "\(path): \(result.stderr)")
                #expect(try harness.cachedBytes(origin.url(path)) == bytes)
            }
            #expect(result.stderr.contains("past the end of its container"))
            #expect(result.stderr.contains("'stco' table: 536870912 entries do not fit"))
            #expect(try harness.cachedBytes(origin.url("/outside.mp4")) == outside)
            let rows = try harness.run(["ls", "--json"]).stdout.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            let row = try #require(rows.first { $0["url"] as? String == origin.url("/outside.mp4") }, "\(rows)")
            #expect(row["faststart"] as? String == "skipped(chunk offsets outside mdat)")
        }
    }
}
