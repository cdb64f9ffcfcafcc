import Foundation
import Synchronization
import Testing
import TestOrigin

extension EndToEnd {
    /// `serve` and a `prefetch` of the same URL in two processes on one cache: the
    /// player plays what the prefetch has written, and the origin sends the file once.
    @Suite struct ServeBesidePrefetch {
        let origin: TestOrigin
        let harness = Harness()
        let bytes = TestBytes.make(3 << 20, seed: 5_501)

        init() throws {
            origin = try TestOrigin()
            var paced = Faults()
            paced.bytesPerSecond = 256 << 10
            origin.serve("/film.mp4", Resource(bytes, contentType: "video/mp4", faults: paced))
        }

        /// A `prefetch` at 512 KiB/s (two connections at 256 KiB/s), then `serve`:
        /// the first bytes reach the player at once, though the prefetch holds the key;
        /// the whole file, asked for while it arrives, is the origin's to the last byte
        /// (read on past the other process's commit); serve asks the origin nothing.
        @Test func aPlayerReadsWhatAPrefetchInAnotherProcessHasWritten() throws {
            let prefetch = try startPrefetch()
            let server = try ServeFixture(cache: harness.scratch.cache)
            let local = try server.localURL(origin.url("/film.mp4"))

            let started = Date()
            let first = try CurlResponse.fetch(local, ["-H", "Range: bytes=0-65535"])
            let took = Date().timeIntervalSince(started)
            #expect(first.status == 206, "\(first.status) \(first.headers)")
            #expect(first.body == Array(bytes.prefix(65536)), "not the origin's first 64 KiB")
            #expect(took < 3, "the first bytes took \(took) s")
            #expect(prefetch.process.isRunning, "the prefetch had already finished: nothing was read beside it")

            // The status page shows the download as the other process's, at its rate.
            var shown: [String: Any]?
            let deadline = Date() + 5
            while shown == nil, Date() < deadline, prefetch.process.isRunning {
                let body = try CurlResponse.fetch(server.baseURL + "/status.json").body
                let snapshot = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
                shown = (snapshot?["downloads"] as? [[String: Any]] ?? []).first {
                    $0["inAnotherProcess"] as? Bool == true && ($0["rate"] as? Double ?? 0) > 100_000
                }
                if shown == nil { Thread.sleep(forTimeInterval: 0.2) }
            }
            #expect(shown != nil, "the status page never showed the other process's download at its rate")

            let whole = try CurlResponse.fetch(local, timeout: 60)
            #expect(whole.status == 200 && whole.body == bytes, "\(whole.status): \(whole.body.count) bytes, not the origin's")
            let result = prefetch.wait(timeout: 60)
            #expect(result.status == 0, "\(result.stderr)")
            let sent = origin.requests(for: "/film.mp4").reduce(0) { $0 + $1.bodyBytesSent }
            #expect(sent <= bytes.count + bytes.count / 20, "the origin sent \(sent) bytes for a file of \(bytes.count)")
            _ = server
        }

        /// The prefetch is killed while a player reads the whole file beside it: `serve`
        /// takes the key over and goes on from what the prefetch wrote, and the player
        /// reads on, through the change of hands, to the origin's last byte.
        @Test func aPrefetchKilledMidwayIsTakenOverAndThePlayerReadsOn() throws {
            let prefetch = try startPrefetch()
            let server = try ServeFixture(cache: harness.scratch.cache)
            let local = try server.localURL(origin.url("/film.mp4"))
            let started = Date()
            let first = try CurlResponse.fetch(local, ["-H", "Range: bytes=0-65535"])
            #expect(first.status == 206 && first.body == Array(bytes.prefix(65536)), "\(first.status)")
            #expect(Date().timeIntervalSince(started) < 3 && prefetch.process.isRunning, "the player waited for the prefetch")

            let reading = DispatchGroup()
            nonisolated(unsafe) var whole: CurlResponse?
            DispatchQueue.global().async(group: reading) { whole = try? CurlResponse.fetch(local, timeout: 60) }
            Thread.sleep(forTimeInterval: 0.5)
            prefetch.signal(SIGKILL)
            _ = prefetch.wait(timeout: 10)
            #expect(reading.wait(timeout: .now() + 70) == .success)
            let body = try #require(whole)
            #expect(body.status == 200 && body.body == bytes, "\(body.status): \(body.body.count) bytes, not the origin's")
            #expect(Harness.waitUntil(timeout: 30) { (try? harness.run(["path", origin.url("/film.mp4")]).status) == 0 })
            _ = server
        }

        /// An origin that names no version (no ETag, no Last-Modified): a player reading
        /// the whole file beside the prefetch still reads on past its commit, to the end
        /// (the object is the very file it was reading).
        @Test func aFileWithoutValidatorsIsReadOnPastTheOtherCommit() throws {
            var paced = Faults()
            paced.bytesPerSecond = 256 << 10
            origin.serve("/film.mp4", Resource(bytes, contentType: "video/mp4", etag: nil, lastModified: nil, faults: paced))
            let prefetch = try startPrefetch()
            let server = try ServeFixture(cache: harness.scratch.cache)
            let whole = try CurlResponse.fetch(try server.localURL(origin.url("/film.mp4")), timeout: 60)
            #expect(whole.status == 200 && whole.body == bytes, "\(whole.status): \(whole.body.count) bytes, not the origin's")
            #expect(prefetch.wait(timeout: 60).status == 0)
            _ = server
        }

        /// A prefetch that stops moving (SIGSTOP, Ctrl-Z) does not hold a player for ever:
        /// after `--timeout` without progress its reader's response ends, and a new request
        /// gets the timeout's 504, as when nothing could be read.
        @Test func aFrozenPrefetchEndsThePlayersWaitAfterTheTimeout() throws {
            let prefetch = try startPrefetch()
            defer { end(prefetch) }
            let (server, local) = try serveBeside(prefetch)
            prefetch.signal(SIGSTOP)
            let started = Date()
            let stuck = try CurlResponse.fetch(local, timeout: 30)
            let waited = Date().timeIntervalSince(started)
            #expect(stuck.body.count < bytes.count && waited < 15, "\(stuck.status): \(stuck.body.count) bytes after \(waited) s")
            let again = try CurlResponse.fetch(local, timeout: 30)
            #expect(again.status == 504, "\(again.status) \(again.headers)")
            _ = server
        }

        /// A seek far ahead of what another process's download (one connection, from the
        /// start) has written: the player hears 504 within `--timeout` and a second, not a
        /// 206 whose body waits until that process gets there (minutes on a slow origin).
        @Test func aSeekAheadOfAnotherProcessIsAGatewayTimeoutAfterTimeout() throws {
            let prefetch = try startPrefetch("/film.mp4", ["-x", "1"])
            defer { end(prefetch) }
            let (server, local) = try serveBeside(prefetch)
            let started = Date()
            let end = bytes.count - 1
            let far = try CurlResponse.fetch(local, ["-H", "Range: bytes=\(end - 65535)-\(end)"], timeout: 30)
            let waited = Date().timeIntervalSince(started)
            #expect(prefetch.process.isRunning, "the prefetch had finished: nothing was ahead of it")
            #expect(far.status == 504, "\(far.status) after \(waited) s")
            #expect(waited < 6, "answered after \(waited) s")
            #expect(String(decoding: far.body, as: UTF8.self).contains("byte \(end - 65535) of"), "\(String(decoding: far.body, as: UTF8.self))")
            _ = server
        }

        /// A moov-at-end MP4 played through `serve` while the other process fetches it:
        /// that process stores it as the player read it (the origin's layout), not
        /// relocated, so a seek after its commit gets the bytes the player's moov points at.
        @Test func aLateMoovFilePlayedBesideThePrefetchKeepsItsLayout() throws {
            let sample = try MediaSample.videoMP4.make(in: harness.scratch.path)
            let late = try #require(TestBytes.read(sample))
            var paced = Faults()
            paced.bytesPerSecond = late.count / 5
            origin.serve("/late.mp4", Resource(late, contentType: "video/mp4", faults: paced))
            let prefetch = try startPrefetch("/late.mp4", ["-x", "1"])
            let server = try ServeFixture(cache: harness.scratch.cache)
            let local = try server.localURL(origin.url("/late.mp4"))
            let first = try CurlResponse.fetch(local, ["-H", "Range: bytes=0-1023"])
            #expect(first.status == 206 && first.body == Array(late.prefix(1024)), "\(first.status)")
            #expect(prefetch.process.isRunning, "the prefetch had already finished")

            #expect(prefetch.wait(timeout: 60).status == 0)
            #expect(try harness.cachedBytes(origin.url("/late.mp4")) == late, "the layout the player read changed under its URL")
            let middle = late.count / 2
            let seek = try CurlResponse.fetch(local, ["-r", "\(middle)-\(middle + 99)"])
            #expect(seek.status == 206 && seek.body == Array(late[middle..<(middle + 100)]))
            #expect(try harness.run(["ls", "--json"]).stdout.contains("played while it downloaded"))
            _ = server
        }

        /// A streaming title a `prefetch` in another process downloads (each segment paced
        /// to about 3 s, one at a time): `serve` answers its playlists at once from what
        /// that process planned, a segment it holds at once, one it has not reached with a
        /// 504 after `--timeout` (it cannot jump the other's queue), and ffmpeg reads every
        /// frame of the title while it downloads, the last ones after the other commit;
        /// serve asks the origin nothing.
        @Test func aTitleAPrefetchInAnotherProcessDownloadsPlaysWhileItDownloads() throws {
            let (title, segments, order, url) = try servePacedTitle()
            let prefetch = try startTitlePrefetch(url, ["-x", "1"])
            defer { Self.kill(prefetch) }
            let server = try ServeFixture(cache: harness.scratch.cache, ["--timeout", "2"])
            let local = try server.localURL(url)
            let folder = (local as NSString).deletingLastPathComponent

            let started = Date()
            let playlist = try CurlResponse.fetch(local)
            #expect(playlist.status == 200 && Date().timeIntervalSince(started) < 3, "\(playlist.status) after \(Date().timeIntervalSince(started)) s")
            let stored = Self.uris(String(decoding: playlist.body, as: UTF8.self))
            #expect(stored.count == order.count && order.count >= 3, "\(stored)")
            let first = try CurlResponse.fetch(folder + "/" + stored[0], timeout: 30)
            #expect(first.status == 200 && first.body == TestBytes.read(title.path(order[0])), "\(first.status)")
            let ahead = try CurlResponse.fetch(folder + "/" + stored[stored.count - 1], timeout: 30)
            let stillRunning = prefetch.process.isRunning
            #expect(ahead.status == 504 || !stillRunning, "\(ahead.status): the last segment came before the other process reached it")

            let result = try ExternalTool.run(
                "/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-xerror", "-i", local, "-map", "0", "-c", "copy", "-f", "framemd5", "-"],
                timeout: 90)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == (try TitleFixtures.fingerprint(title)))
            #expect(Harness.waitUntil(timeout: 30) { (try? harness.run(["path", url]).status) == 0 })
            // The origin sent each segment once: to the prefetch.
            for segment in segments {
                #expect(origin.requests(for: "/t/" + segment).count == 1, "\(segment): \(origin.requests(for: "/t/" + segment).count) requests")
            }
            _ = server
        }

        /// A single-file title (byte ranges of one file) that another process fetches in
        /// pieces: a player's range of it is answered from the pieces that process has on
        /// disk, as they land, not after the whole file (a 504 after --timeout before).
        @Test func aSingleFileTitleAnotherProcessFetchesInPiecesPlaysFromItsPieces() throws {
            let title = try TitleFixture.hlsSingleFile.make()
            let media = try #require(TestBytes.read(title.path("media.ts")))
            var slow = Faults()
            slow.bytesPerSecond = 16 << 10
            try Titles.serve(title, on: origin)
            origin.serve("/t/media.ts", Resource(file: title.path("media.ts"), contentType: "video/mp2t", faults: slow))
            let url = origin.url("/t/" + title.entry)
            let prefetch = try startTitlePrefetch(url, ["-x", "2", "--min-fragment", "16K"])
            defer { Self.kill(prefetch) }
            let server = try ServeFixture(cache: harness.scratch.cache, ["--timeout", "20"])
            let local = try server.localURL(url)
            let file = try #require(Self.uris(String(decoding: try CurlResponse.fetch(local).body, as: UTF8.self)).first)
            let started = Date()
            let first = try CurlResponse.fetch((local as NSString).deletingLastPathComponent + "/" + file, ["-r", "0-9999"], timeout: 30)
            let waited = Date().timeIntervalSince(started)
            #expect(first.status == 206 && first.body == Array(media.prefix(10_000)), "\(first.status), \(first.body.count) bytes")
            #expect(waited < 10, "the first range took \(waited) s")
            #expect(prefetch.process.isRunning, "the prefetch had ended: nothing was shown of its pieces (\(media.count) bytes)")
            _ = server
        }

        /// The other process is killed while a player waits for a segment it had not
        /// reached: `serve` takes the title over and the player gets the segment from
        /// its download, not a 503 (which ffmpeg took for a lost segment, with AES).
        @Test func aPlayerWaitingWhenTheOtherProcessDiesGetsItsSegment() throws {
            let (title, _, order, url) = try servePacedTitle()
            let prefetch = try startTitlePrefetch(url, ["-x", "1"])
            defer { Self.kill(prefetch) }
            let server = try ServeFixture(cache: harness.scratch.cache, ["--timeout", "20"])
            let local = try server.localURL(url)
            let folder = (local as NSString).deletingLastPathComponent
            let stored = Self.uris(String(decoding: try CurlResponse.fetch(local).body, as: UTF8.self))
            try #require(stored.count == order.count && order.count >= 3)

            let answer = Mutex<CurlResponse?>(nil)
            let asked = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                answer.withLock { $0 = try? CurlResponse.fetch(folder + "/" + stored[stored.count - 1], timeout: 40) }
                asked.signal()
            }
            Thread.sleep(forTimeInterval: 1)
            prefetch.signal(SIGKILL)
            _ = prefetch.wait(timeout: 10)
            #expect(asked.wait(timeout: .now() + 45) == .success)
            let last = try #require(answer.withLock { $0 })
            #expect(last.status == 200, "\(last.status) \(String(decoding: last.body.prefix(200), as: UTF8.self))")
            let expected = TestBytes.read(title.path(order[order.count - 1]))
            #expect(last.body == expected, "\(last.body.count) bytes, not the origin's \(expected?.count ?? 0)")
            _ = server
        }

        /// The URI lines of a playlist, in order.
        static func uris(_ text: String) -> [String] {
            text.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
        }

        /// `hlsTS` on the origin, each segment sent in about 3 s: its segments, the URIs of
        /// its playlist in order, and its URL.
        private func servePacedTitle() throws -> (title: StreamingTitle, segments: [String], order: [String], url: String) {
            let title = try TitleFixture.hlsTS.make()
            let segments = title.resources.filter { $0.hasSuffix(".ts") }
            let sizes = try segments.map { try #require(TestBytes.read(title.path($0))).count }
            var slow = Faults()
            slow.bytesPerSecond = max(1, (sizes.max() ?? 1) / 3)
            try Titles.serve(title, on: origin, faults: Dictionary(uniqueKeysWithValues: segments.map { ($0, slow) }))
            let order = Self.uris(try String(contentsOfFile: title.path(title.entry), encoding: .utf8))
            return (title, segments, order, origin.url("/t/" + title.entry))
        }

        /// Starts the prefetch of the title at `url` and waits until it has saved its
        /// progress once (what another process can show).
        private func startTitlePrefetch(_ url: String, _ extra: [String]) throws -> MediaCacheProcess.Running {
            let list = harness.scratch.write("titles.txt", url)
            let prefetch = try MediaCacheProcess.start(["prefetch", list, "--cache-dir", harness.scratch.cache, "-q"] + extra)
            let partial = harness.scratch.cache + "/partial"
            let saved = Harness.waitUntil(timeout: 15) {
                ((try? FileManager.default.contentsOfDirectory(atPath: partial)) ?? []).contains {
                    $0.hasSuffix(".title") && FileManager.default.fileExists(atPath: partial + "/" + $0 + "/progress.json")
                }
            }
            if !saved { Self.kill(prefetch) }
            try #require(saved, "the prefetch saved no title progress within 15 s")
            return prefetch
        }

        static func kill(_ process: MediaCacheProcess.Running) {
            process.signal(SIGKILL)
            _ = process.wait(timeout: 10)
        }

        /// Starts the prefetch of `path` and waits until it has saved its state once (what
        /// another process can read).
        /// `serve --timeout 2` on the cache `prefetch` fills, and the film's local URL, once
        /// its first 64 KiB came through it as the origin's.
        private func serveBeside(_ prefetch: MediaCacheProcess.Running) throws -> (ServeFixture, String) {
            let server = try ServeFixture(cache: harness.scratch.cache, ["--timeout", "2"])
            let local = try server.localURL(origin.url("/film.mp4"))
            let first = try CurlResponse.fetch(local, ["-H", "Range: bytes=0-65535"])
            #expect(first.status == 206 && first.body == Array(bytes.prefix(65536)), "\(first.status)")
            return (server, local)
        }

        /// Ends `prefetch`, running or stopped (SIGSTOP).
        private func end(_ prefetch: MediaCacheProcess.Running) {
            prefetch.signal(SIGCONT)
            prefetch.signal(SIGKILL)
            _ = prefetch.wait(timeout: 10)
        }

        private func startPrefetch(_ path: String = "/film.mp4", _ extra: [String] = ["-x", "2"]) throws -> MediaCacheProcess.Running {
            let list = harness.scratch.write("list.txt", origin.url(path))
            let prefetch = try MediaCacheProcess.start(["prefetch", list, "--cache-dir", harness.scratch.cache, "-q"] + extra)
            let partial = harness.scratch.cache + "/partial"
            let saved = Harness.waitUntil(timeout: 10) {
                ((try? FileManager.default.subpathsOfDirectory(atPath: partial)) ?? []).contains { $0.hasSuffix("/state") }
            }
            #expect(saved, "the prefetch saved no state within 10 s")
            return prefetch
        }
    }
}
