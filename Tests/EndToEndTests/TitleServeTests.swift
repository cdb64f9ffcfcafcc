import Foundation
import Testing
import TestOrigin

/// `serve` of a cached streaming title: the local URL `mediacache url` prints answers
/// with the title's entry playlist or MPD, and every file of the title answers under it,
/// so players play it through the server with the origin gone.
extension EndToEnd {
    @Suite struct ServeTitles {
        let harness = Harness()

        /// A cached title, a server on its cache, the origin stopped, and the title's local URL.
        struct Served {
            let title: StreamingTitle
            let server: ServeFixture
            let local: String
            /// The cached title's directory and its `title.json` members by path.
            let directory: String
            let members: [String: (size: Int, sha256: String)]

            /// `local` with its last part replaced by `member`.
            func url(of member: String) -> String { (local as NSString).deletingLastPathComponent + "/" + member }
        }

        func serve(_ fixture: TitleFixture) throws -> Served {
            let title = try fixture.make()
            let origin = try TestOrigin()
            try Titles.serve(title, on: origin)
            let url = origin.url("/t/" + title.entry)
            let prefetch = try harness.prefetch(list: url)
            #expect(prefetch.status == 0, "\(prefetch.stderr)")
            origin.stop()
            let path = try harness.run(["path", url]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let directory = (path as NSString).deletingLastPathComponent
            let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory + "/title.json")))
            let list = (manifest as? [String: Any])?["members"] as? [[String: Any]] ?? []
            var members: [String: (size: Int, sha256: String)] = [:]
            for member in list {
                guard let path = member["path"] as? String, let size = member["size"] as? Int, let sha = member["sha256"] as? String
                else { continue }
                members[path] = (size, sha)
            }
            let server = try ServeFixture(cache: harness.scratch.cache)
            return Served(
                title: title, server: server, local: try server.localURL(url), directory: directory, members: members)
        }

        /// ffmpeg plays the title through the server, frame for frame as the origin's
        /// files: keys, init sections, an audio group and a DASH MPD all resolve from
        /// the local URL.
        @Test(arguments: [TitleFixture.hlsAES, .hlsKeyRotation, .hlsMasterFMP4, .dashTemplate])
        func ffmpegPlaysACachedTitleThroughTheServer(fixture: TitleFixture) throws {
            let served = try serve(fixture)
            let result = try ExternalTool.run(
                "/usr/bin/ffmpeg",
                ["-nostdin", "-v", "error", "-xerror", "-i", served.local, "-map", "0", "-c", "copy", "-f", "framemd5", "-"],
                timeout: 60)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == (try TitleFixtures.fingerprint(served.title)))
            let log = served.server.stop().stderr
            #expect(log.contains(", from the cache"), "\(log)")
            #expect(!log.contains("an error answer"), "\(log)")
        }

        /// Each file: its bytes, Range and If-Range, HEAD, the type a player checks; the
        /// local URL itself is the entry playlist as stored.
        @Test func everyFileOfATitleAnswersWithRangesAndItsType() throws {
            let served = try serve(.hlsAES)
            let entry = try CurlResponse.fetch(served.local)
            #expect(entry.status == 200)
            #expect(entry.headers["content-type"] == "application/vnd.apple.mpegurl")
            #expect(entry.body == TestBytes.read(served.directory + "/index.m3u8"))
            // Its name in the title answers too (the same file).
            #expect(try CurlResponse.fetch(served.url(of: "index.m3u8")).body == entry.body)

            let segment = try #require(served.members.keys.filter { $0.hasSuffix(".ts") && !$0.contains("key") }.sorted().first)
            let bytes = try #require(TestBytes.read(served.directory + "/" + segment))
            let part = try CurlResponse.fetch(served.url(of: segment), ["-r", "1000-2999"])
            #expect(part.status == 206)
            #expect(part.body == Array(bytes[1000..<3000]))
            #expect(part.headers["content-range"] == "bytes 1000-2999/\(bytes.count)")
            #expect(part.headers["content-type"] == "video/mp2t")
            #expect(part.headers["accept-ranges"] == "bytes")
            #expect(part.headers["last-modified"] != nil)
            let etag = try #require(part.headers["etag"])
            #expect(etag == "\"\(served.members[segment]!.sha256.prefix(32))\"")
            let suffix = try CurlResponse.fetch(served.url(of: segment), ["-H", "Range: bytes=-100"])
            #expect(suffix.status == 206 && suffix.body == Array(bytes.suffix(100)))
            let beyond = try CurlResponse.fetch(served.url(of: segment), ["-H", "Range: bytes=\(bytes.count)-"])
            #expect(beyond.status == 416 && beyond.headers["content-range"] == "bytes */\(bytes.count)")
            let same = try CurlResponse.fetch(served.url(of: segment), ["-r", "0-9", "-H", "If-Range: \(etag)"])
            #expect(same.status == 206 && same.body == Array(bytes.prefix(10)))
            let other = try CurlResponse.fetch(served.url(of: segment), ["-r", "0-9", "-H", "If-Range: \"old\""])
            #expect(other.status == 200 && other.body == bytes)
            let head = try CurlResponse.fetch(served.url(of: segment), ["-I"])
            #expect(head.status == 200 && head.headers["content-length"] == String(bytes.count))

            // A key is stored as `key-N.key.ts` (for ffmpeg offline) but is sent as what it is.
            let key = try #require(served.members.keys.first { $0.hasSuffix(".key.ts") })
            let keyAnswer = try CurlResponse.fetch(served.url(of: key))
            #expect(keyAnswer.status == 200 && keyAnswer.body == TitleFixtures.aesKey)
            #expect(keyAnswer.headers["content-type"] == "application/octet-stream")
        }

        @Test func anFMP4TitleSendsMP4TypesByRendition() throws {
            let served = try serve(.hlsMasterFMP4)
            for (path, _) in served.members where path.hasSuffix(".m4s") || path.hasSuffix(".mp4") {
                let answer = try CurlResponse.fetch(served.url(of: path), ["-I"])
                #expect(answer.status == 200, "\(path)")
                #expect(answer.headers["content-type"] == (path.hasPrefix("audio-") ? "audio/mp4" : "video/mp4"), "\(path)")
            }
            #expect(served.members.keys.contains { $0.hasPrefix("audio-") }, "\(served.members.keys.sorted())")
        }

        /// Only what title.json lists answers; a bad token and a foreign Host get what
        /// they get for a file's local URL.
        @Test func pathsOutsideTheTitleAndBadTokensAreRefused() throws {
            let served = try serve(.hlsTS)
            let base = served.local.components(separatedBy: "/m/")[0]
            let token = String(served.local.components(separatedBy: "/m/")[1].prefix(40))
            for outside in ["title.json", "media/s99.ts", "media", "nothing.m3u8", "media/index.m3u8/x"] {
                let answer = try CurlResponse.fetch(served.url(of: outside))
                #expect(answer.status == 404, "\(outside): \(answer.status)")
            }
            let climbing = try CurlResponse.fetch(base + "/m/" + token + "/media/../../../index.sqlite", ["--path-as-is"])
            #expect(climbing.status == 404)
            let encoded = try CurlResponse.fetch(base + "/m/" + token + "/%2E%2E/title.json", ["--path-as-is"])
            #expect(encoded.status == 404)

            let member = try #require(served.members.keys.filter { $0.hasSuffix(".ts") }.sorted().first)
            var forged = Array(token)
            forged[0] = forged[0] == "a" ? "b" : "a"
            let forgedAnswer = try CurlResponse.fetch(base + "/m/" + String(forged) + "/" + member)
            #expect(forgedAnswer.status == 403)
            #expect(String(decoding: forgedAnswer.body, as: UTF8.self).contains("unknown local URL"))
            #expect(try CurlResponse.fetch(served.url(of: member), ["-H", "Host: attacker.example"]).status == 421)
            #expect(try CurlResponse.fetch(served.url(of: member)).status == 200)
        }

        /// A title with a file gone answers a clear error naming it; the server goes on.
        @Test func aDamagedTitleNamesWhatIsMissing() throws {
            let served = try serve(.hlsTS)
            let member = try #require(served.members.keys.filter { $0.hasSuffix(".ts") }.sorted().last)
            try FileManager.default.removeItem(atPath: served.directory + "/" + member)
            let answer = try CurlResponse.fetch(served.url(of: member))
            #expect(answer.status == 500)
            let text = String(decoding: answer.body, as: UTF8.self)
            #expect(text.contains(member) && text.contains("missing") && text.contains("verify --repair"), "\(text)")
            #expect(try CurlResponse.fetch(served.local).status == 200)
            #expect(served.server.process.process.isRunning)
        }

        /// A title not cached yet plays while it downloads, from an origin that sends
        /// each segment in about 1.5 s over one connection (`-x 1`: about 6 s for the
        /// title): its playlist answers at once, a segment asked for jumps the queue,
        /// ffprobe answers within 3 s, ffmpeg reads every frame, and the title ends
        /// committed.
        @Test func aTitlePlaysWhileItDownloads() throws {
            let title = try TitleFixture.hlsTS.make()
            let segments = title.resources.filter { $0.hasSuffix(".ts") }.sorted()
            let sizes = try segments.map { try Data(contentsOf: URL(fileURLWithPath: title.path($0))).count }
            var slow = Faults()
            slow.bytesPerSecond = max(1, (sizes.max() ?? 1) * 2 / 3)
            let origin = try TestOrigin()
            try Titles.serve(title, on: origin, faults: Dictionary(uniqueKeysWithValues: segments.map { ($0, slow) }))
            let server = try ServeFixture(cache: harness.scratch.cache, ["-x", "1"])
            let url = origin.url("/t/" + title.entry)
            let local = try server.localURL(url)

            let playlist = try CurlResponse.fetch(local)
            #expect(playlist.status == 200, "\(String(decoding: playlist.body, as: UTF8.self))")
            #expect(playlist.headers["content-type"] == "application/vnd.apple.mpegurl")
            let text = String(decoding: playlist.body, as: UTF8.self)
            #expect(text.contains("media/s0.ts") && !text.contains("127.0.0.1"), "\(text)")

            // The last segment would come last with one connection; asked for, it comes now.
            let started = Date()
            let last = (local as NSString).deletingLastPathComponent + "/media/s\(segments.count - 1).ts"
            let answer = try CurlResponse.fetch(last)
            #expect(answer.status == 200 && answer.headers["content-type"] == "video/mp2t")
            #expect(answer.body == TestBytes.read(title.path(segments[segments.count - 1])))
            #expect(Date().timeIntervalSince(started) < 4, "the asked-for segment took \(Date().timeIntervalSince(started)) s")
            #expect((try? harness.run(["path", url]).status) != 0, "the title was already whole: nothing was shown while it downloads")

            let probe = try FFmpeg.probeDuration(local)
            #expect(probe.seconds < 3, "ffprobe took \(probe.seconds) s")
            #expect(abs(probe.duration - Double(TitleFixtures.duration)) < 1, "duration \(probe.duration)")
            let result = try ExternalTool.run(
                "/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-xerror", "-i", local, "-map", "0", "-c", "copy", "-f", "framemd5", "-"],
                timeout: 60)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == (try TitleFixtures.fingerprint(title)))
            #expect(Harness.waitUntil(timeout: 30) { (try? harness.run(["path", url]).status) == 0 })
            // Once committed, the same URLs answer from the cache.
            origin.stop()
            #expect(try CurlResponse.fetch(last).body == answer.body)
        }

        /// A title whose last segment is gone at the origin fails; for the moment its
        /// failure stands (`RecentFailures`), a player still gets the playlist and every
        /// segment the title holds, and only the missing one gets the failure, as a
        /// player reading the origin itself would (it skips the hole).
        @Test func aTitleThatFailedStillServesWhatItHolds() throws {
            let title = try TitleFixture.hlsTS.make()
            let segments = title.resources.filter { $0.hasSuffix(".ts") }
            func uris(_ text: String) -> [String] { text.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") } }
            let order = uris(try String(contentsOfFile: title.path(title.entry), encoding: .utf8))
            let last = try #require(order.last)
            let origin = try TestOrigin()
            var gone = Faults()
            gone.statusSequence = Array(repeating: ScriptedStatus(404), count: 20)
            try Titles.serve(title, on: origin, faults: [last: gone])
            let server = try ServeFixture(cache: harness.scratch.cache, ["-x", "1"])
            let local = try server.localURL(origin.url("/t/" + title.entry))
            let folder = (local as NSString).deletingLastPathComponent
            let playlist = try CurlResponse.fetch(local)
            #expect(playlist.status == 200)
            let stored = uris(String(decoding: playlist.body, as: UTF8.self))
            #expect(stored.count == order.count && segments.count >= 3)

            let missing = try CurlResponse.fetch(folder + "/" + stored[stored.count - 1])
            #expect(missing.status == 502, "\(missing.status) \(String(decoding: missing.body, as: UTF8.self))")
            let first = try CurlResponse.fetch(folder + "/" + stored[0])
            #expect(first.status == 200, "\(String(decoding: first.body, as: UTF8.self))")
            let same = first.body == TestBytes.read(title.path(order[0]))
            #expect(same, "\(first.body.count) bytes, not the origin's first segment")
            #expect(try CurlResponse.fetch(local).status == 200)
            #expect(try CurlResponse.fetch(folder + "/" + stored[stored.count - 1]).status == 502)
        }

        /// A segment whose origin never answers: the player hears 504 a second after
        /// --timeout, as for a plain file, not after every retry (over three minutes with
        /// the defaults); the segments that answer play.
        @Test func aSegmentWhoseOriginIsSilentIsAGatewayTimeoutAfterTimeout() throws {
            let silent = try SilentOrigin()
            let origin = try TestOrigin()
            origin.serve("/t/s0.ts", Resource(TestBytes.make(20_000, seed: 840), contentType: "video/mp2t"))
            let playlist = """
                #EXTM3U
                #EXT-X-TARGETDURATION:2
                #EXT-X-PLAYLIST-TYPE:VOD
                #EXTINF:2,
                s0.ts
                #EXTINF:2,
                \(silent.url("/s1.ts"))
                #EXT-X-ENDLIST

                """
            origin.serve("/t/index.m3u8", Resource(Array(playlist.utf8), contentType: "application/vnd.apple.mpegurl"))
            let server = try ServeFixture(cache: harness.scratch.cache, ["--timeout", "2"])
            let local = try server.localURL(origin.url("/t/index.m3u8"))
            let stored = try CurlResponse.fetch(local)
            let uris = String(decoding: stored.body, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") }
            try #require(stored.status == 200 && uris.count == 2, "\(stored.status) \(uris)")
            let folder = (local as NSString).deletingLastPathComponent
            let before = try CurlResponse.fetch(folder + "/" + uris[0])
            #expect(before.body == TestBytes.make(20_000, seed: 840), "\(before.status) \(String(decoding: before.body.prefix(300), as: UTF8.self))")
            let started = Date()
            let hung = try CurlResponse.fetch(folder + "/" + uris[1], timeout: 60)
            #expect(hung.status == 504, "\(hung.status) \(String(decoding: hung.body, as: UTF8.self))")
            #expect(Date().timeIntervalSince(started) < 8, "answered after \(Date().timeIntervalSince(started)) s")
        }

        /// The largest segment of `hlsTS`, served paced by `faults`, and a server on a
        /// fresh cache with `-x 1` whose title has begun (its playlist was asked for).
        func slowSegment(_ faults: (Int) -> Faults) throws -> (url: String, bytes: [UInt8], origin: TestOrigin, server: ServeFixture) {
            let title = try TitleFixture.hlsTS.make()
            let segments = title.resources.filter { $0.hasSuffix(".ts") }
            let largest = try #require(segments.max { (TestBytes.read(title.path($0))?.count ?? 0) < (TestBytes.read(title.path($1))?.count ?? 0) })
            let bytes = try #require(TestBytes.read(title.path(largest)))
            let origin = try TestOrigin()
            try Titles.serve(title, on: origin, faults: [largest: faults(bytes.count)])
            let server = try ServeFixture(cache: harness.scratch.cache, ["-x", "1"])
            let local = try server.localURL(origin.url("/t/" + title.entry))
            let playlist = try CurlResponse.fetch(local)
            #expect(playlist.status == 200)
            // The local playlist lists the segments in the origin's order, under names of its own.
            func uris(_ text: String) -> [String] { text.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") } }
            let originURIs = uris(try String(contentsOfFile: title.path(title.entry), encoding: .utf8))
            let place = try #require(originURIs.firstIndex(of: largest), "\(largest) is not in \(originURIs)")
            let stored = uris(String(decoding: playlist.body, as: UTF8.self))[place]
            return ((local as NSString).deletingLastPathComponent + "/" + stored, bytes, origin, server)
        }

        /// A segment on its way is sent as its bytes land: a player has its first bytes
        /// long before the origin sent the last, a range of it answers 206 at once, and
        /// every byte is the origin's.
        @Test func aSegmentIsSentAsItLands() throws {
            let (url, bytes, origin, server) = try slowSegment { size in
                var slow = Faults()
                slow.bytesPerSecond = max(1, size / 6)
                return slow
            }
            defer { _ = (origin, server) }
            // Within 2 s of the 6 the origin takes to send it all.
            let early = try CurlResponse.fetch(url, timeout: 2)
            #expect(early.status == 200 && early.headers["content-length"] == String(bytes.count), "\(url): \(early.headers)")
            #expect(early.headers["etag"] == nil && early.headers["content-type"] == "video/mp2t")
            #expect(early.body.count > 0 && early.body.count < bytes.count, "\(early.body.count) of \(bytes.count) bytes in 2 s")
            #expect(early.body == Array(bytes.prefix(early.body.count)), "not the origin's first bytes")
            // A range from what has landed to the end, asked while the rest is on its way.
            let half = bytes.count / 3
            let ranged = try CurlResponse.fetch(url, ["-H", "Range: bytes=\(half)-"])
            #expect(ranged.status == 206 && ranged.headers["content-range"] == "bytes \(half)-\(bytes.count - 1)/\(bytes.count)")
            #expect(ranged.body == Array(bytes[half...]), "not the origin's bytes from \(half)")
            let whole = try CurlResponse.fetch(url)
            #expect(whole.status == 200 && whole.headers["etag"] != nil)
            #expect(whole.body == bytes, "\(whole.body.count) bytes, not the origin's \(bytes.count)")
        }

        /// A segment sent as it lands goes on across a retry that continues its bytes, and
        /// across one that has to fetch it whole again (the origin ignores Range, as a
        /// title's other copy whose validators differ does): its bytes are compared with
        /// those sent, which they equal, so the player's answer is not cut. (Bytes that
        /// differ cut it where they differ: `ResourceSinkTests`.)
        @Test(arguments: [true, false])
        func aSegmentSentAsItLandsSurvivesARetry(originServesRanges: Bool) throws {
            let (url, bytes, origin, server) = try slowSegment { size in
                var faults = Faults()
                faults.bytesPerSecond = max(1, size / 3)
                faults.dropAfterBytes = size / 2
                faults.ignoreRange = !originServesRanges
                return faults
            }
            defer { _ = (origin, server) }
            let first = try CurlResponse.fetch(url)
            #expect(first.exitCode == 0 && first.body == bytes, "\(first.exitCode): \(first.body.count) of \(bytes.count) bytes")
            // The origin's first answer was cut halfway (and the second sent it all again
            // when it ignores Range).
            #expect(origin.requests.contains { $0.bodyBytesSent == bytes.count / 2 }, "\(origin.requests.map(\.bodyBytesSent))")
            if !originServesRanges { #expect(origin.requests.contains { $0.bodyBytesSent == bytes.count }) }
        }

        /// The status page links a cached title; Chromium, which plays HLS itself, plays
        /// it from that link in a `<video>`.
        @Test func theStatusPageLinksATitleAndChromiumPlaysIt() throws {
            let served = try serve(.hlsTS)
            let body = try CurlResponse.fetch(served.server.baseURL + "/status.json").body
            let snapshot = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
            let object = try #require((snapshot?["objects"] as? [[String: Any]])?.first)
            let link = try #require(object["local"] as? String)
            #expect(served.local.hasSuffix(link), "\(link)")
            #expect(object["playType"] as? String == "application/vnd.apple.mpegurl")

            let origin = try TestOrigin()
            let chromium = Chromium(profile: harness.scratch.path + "/chromium")
            let playback = try ChromiumPlayback(playing: served.local, chromium: chromium, origin: origin)
            defer { playback.stop() }
            #expect(playback.waitUntilPlayed(seconds: 1.5, timeout: 20), "currentTime did not advance: \(playback.reports.suffix(3))")
            #expect(playback.reports.allSatisfy { $0.hasSuffix("error=0") }, "\(playback.reports.suffix(3))")
        }
    }
}
