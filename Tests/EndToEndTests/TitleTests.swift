import Foundation
import Testing
import TestOrigin

/// Streaming titles end to end: a fixture made by ffmpeg served by the test origin,
/// prefetched, then played offline from `mediacache path` by ffmpeg with the origin gone.
extension EndToEnd {
    @Suite struct Titles {
        /// Serves every file of `title` under `/t/`, playlists with their type.
        static func serve(_ title: StreamingTitle, on origin: TestOrigin, faults: [String: Faults] = [:]) throws {
            for file in try TitleFixtures.files(in: title.directory) {
                let type = file.hasSuffix(".m3u8") ? "application/vnd.apple.mpegurl" : "application/octet-stream"
                origin.serve("/t/" + file, Resource(file: title.path(file), contentType: type, faults: faults[file] ?? Faults()))
            }
        }

        /// `title` with its media (every file but its playlists) sent at `rate` bytes a
        /// second per answer; the media's names.
        @discardableResult
        static func serve(_ title: StreamingTitle, on origin: TestOrigin, mediaAt rate: Int) throws -> [String] {
            var paced = Faults()
            paced.bytesPerSecond = rate
            let media = title.resources.filter { !$0.hasSuffix(".m3u8") }
            try serve(title, on: origin, faults: Dictionary(uniqueKeysWithValues: media.map { ($0, paced) }))
            return media
        }

        /// The files a title's saved progress holds whole (each with its hash): 0 until
        /// a download in `harness`'s cache saved any.
        static func filesHeld(_ harness: Harness) -> Int {
            let progress = harness.scratch.cache + "/partial"
            guard let file = ((try? TitleFixtures.files(in: progress)) ?? []).first(where: { $0.hasSuffix("progress.json") }),
                let text = try? TitleFixtures.read(progress + "/" + file)
            else { return 0 }
            return text.components(separatedBy: "sha256").count - 1
        }

        /// `ffmpeg -xerror … -f framemd5` of the cached title, as a user would run it: no
        /// options beyond the playlist `mediacache path` prints.
        static func playOffline(_ harness: Harness, _ url: String) throws -> (path: String, frames: String) {
            let path = try harness.run(["path", url]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let result = try ExternalTool.run(
                "/usr/bin/ffmpeg",
                ["-nostdin", "-v", "error", "-xerror", "-i", path, "-map", "0", "-c", "copy", "-f", "framemd5", "-"],
                timeout: 60)
            #expect(result.status == 0, "\(result.stderr)")
            return (path, result.stdout)
        }

        /// A master playlist listing one variant at each of `copies` (the same stream on
        /// other servers: backup streams).
        static func masterOfCopies(_ copies: [String]) -> Resource {
            let inf = "#EXT-X-STREAM-INF:BANDWIDTH=1000000,RESOLUTION=320x240"
            let text = "#EXTM3U\n" + copies.map { "\(inf)\n\($0)\n" }.joined()
            return Resource(Array(text.utf8), contentType: "application/vnd.apple.mpegurl")
        }

        /// Whether the cached title at `url` has a variant that plays frame for frame as
        /// `title`'s entry.
        static func cachedVariantPlays(_ title: StreamingTitle, _ harness: Harness, _ url: String) throws -> Bool {
            let path = try harness.run(["path", url]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let directory = (path as NSString).deletingLastPathComponent
            return try TitleFixtures.fingerprint(entry: directory + "/variant-0/index.m3u8")
                == TitleFixtures.fingerprint(entry: title.path(title.entry))
        }

        /// Every kind of HLS title is cached and plays, with the origin stopped, frame for
        /// frame as the origin's; the bytes of every media file are the origin's.
        @Test(arguments: [
            TitleFixture.hlsTS, .hlsFMP4, .hlsSingleFile, .hlsAES, .hlsKeyRotation, .hlsTwoMaps,
        ])
        func aTitleIsCachedWholeAndPlaysOffline(fixture: TitleFixture) throws {
            let title = try fixture.make()
            let origin = try TestOrigin()
            try Self.serve(title, on: origin)
            let harness = Harness()
            let url = origin.url("/t/" + title.entry)
            let result = try harness.prefetch(list: url)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("1 done, 0 failed"), "\(result.stderr)")
            // The playlist is asked for once: the request that found it is read on.
            #expect(origin.requests(for: "/t/" + title.entry).count == 1)
            origin.stop()

            let (path, frames) = try Self.playOffline(harness, url)
            #expect(path.hasSuffix(".title/index.m3u8"))
            #expect(frames == (try TitleFixtures.fingerprint(title)))
            // Stored as served: every media file of the origin is in the title, unchanged.
            let directory = (path as NSString).deletingLastPathComponent
            let cached = Set(try TitleFixtures.files(in: directory).map { try Self.sha256(directory + "/" + $0) })
            for file in title.resources where !file.hasSuffix(".m3u8") {
                #expect(cached.contains(try Self.sha256(title.path(file))), "\(file) is not in the cached title")
            }
            // Every URI of the local playlists is relative: nothing points at the origin.
            for file in try TitleFixtures.files(in: directory) where file.hasSuffix(".m3u8") {
                #expect(!(try TitleFixtures.read(directory + "/" + file)).contains("http"), "\(file)")
            }
            if fixture == .hlsSingleFile {
                // A byte-range title is one request for its one file, not one per range.
                #expect(origin.requests(for: "/t/media.ts").count == 1)
            }
            // A key is a secret: only its owner may read it.
            let keys = try TitleFixtures.files(in: directory).filter { $0.contains(".key") }
            #expect(keys.isEmpty == ![.hlsAES, .hlsKeyRotation].contains(fixture), "\(keys)")
            for key in keys {
                let mode = try #require(try FileManager.default.attributesOfItem(atPath: directory + "/" + key)[.posixPermissions] as? Int)
                #expect(mode & 0o777 == 0o600, "\(key): mode \(String(mode, radix: 8))")
            }
        }

        /// Playlists and an MPD stored gzipped and served with `Content-Encoding: gzip`
        /// whatever was asked (S3 serves an object stored so): decoded, as players decode
        /// them, with the title's type given or only its URL's name; the title plays.
        @Test(arguments: [(TitleFixture.hlsMasterFMP4, true), (.hlsTS, false), (.dashTemplate, true)])
        func gzippedPlaylistsAreDecoded(fixture: TitleFixture, typed: Bool) throws {
            let title = try fixture.make()
            let origin = try TestOrigin()
            var gzipped = Faults()
            gzipped.contentEncoding = "gzip"
            for file in try TitleFixtures.files(in: title.directory) {
                let isPlaylist = file.hasSuffix(".m3u8") || file.hasSuffix(".mpd")
                guard isPlaylist else {
                    origin.serve("/t/" + file, Resource(file: title.path(file), contentType: "application/octet-stream"))
                    continue
                }
                let packed = try ExternalTool.run("/bin/sh", ["-c", "gzip -c < '\(title.path(file))' | base64 -w0"], timeout: 10).stdout
                let type = !typed ? "application/octet-stream" : file.hasSuffix(".mpd") ? "application/dash+xml" : "application/vnd.apple.mpegurl"
                origin.serve("/t/" + file, Resource(Array(Data(base64Encoded: packed)!), contentType: type, faults: gzipped))
            }
            let harness = Harness()
            let url = origin.url("/t/" + title.entry)
            let result = try harness.prefetch(list: url)
            #expect(result.status == 0 && result.stderr.contains("1 done, 0 failed"), "\(result.stderr)")
            origin.stop()
            let path = try harness.run(["path", url]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(try TitleFixtures.fingerprint(entry: path) == TitleFixtures.fingerprint(title))
        }

        /// The default choice: the best variant with its audio and subtitles; the other
        /// variants' segments are never asked for.
        /// A key written into the playlist as a `data:` URI is stored like a fetched one
        /// (nothing asks the origin for it), and the title plays offline frame for frame.
        @Test func aKeyWrittenIntoThePlaylistIsStoredAndPlays() throws {
            let title = try TitleFixture.hlsAES.make()
            let origin = try TestOrigin()
            try Self.serve(title, on: origin)
            let key = Data(try #require(TestBytes.read(title.path("key.bin")))).base64EncodedString()
            let playlist = try TitleFixtures.read(title.entryPath)
                .replacingOccurrences(of: "URI=\"key.bin\"", with: "URI=\"data:text/plain;base64,\(key)\"")
            #expect(playlist.contains("data:text/plain;base64,"), "\(playlist)")
            origin.serve("/t/inline.m3u8", Resource(Array(playlist.utf8), contentType: "application/vnd.apple.mpegurl"))
            let harness = Harness()
            let url = origin.url("/t/inline.m3u8")
            let result = try harness.prefetch(list: url)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(origin.requests(for: "/t/key.bin").isEmpty)
            origin.stop()
            let (path, frames) = try Self.playOffline(harness, url)
            #expect(frames == (try TitleFixtures.fingerprint(title)))
            let local = try TitleFixtures.read(path)
            #expect(!local.contains("data:") && local.contains(".key.ts"), "\(local)")

            // One that is not 16 bytes is refused by name.
            let short = playlist.replacingOccurrences(of: key, with: "AAAA")
            let second = try TestOrigin()
            second.serve("/t/short.m3u8", Resource(Array(short.utf8), contentType: "application/vnd.apple.mpegurl"))
            let refused = try harness.prefetch(list: second.url("/t/short.m3u8"))
            #expect(refused.status == 1 && refused.stderr.contains("the key's data: URI holds 3 bytes, not 16"), "\(refused.stderr)")
        }

        @Test func aMasterPlaylistFetchesTheBestVariantAndItsAudioOnly() throws {
            let title = try TitleFixture.hlsMaster.make()
            let origin = try TestOrigin()
            try Self.serve(title, on: origin)
            let harness = Harness()
            let url = origin.url("/t/master.m3u8")
            let result = try harness.prefetch(list: url)
            #expect(result.status == 0, "\(result.stderr)")
            let asked = Set(origin.requests.map(\.path))
            #expect(!asked.contains { $0.hasPrefix("/t/v1") || $0.hasPrefix("/t/v2") }, "\(asked.sorted())")
            #expect(asked.contains("/t/v0_0.ts") && asked.contains("/t/v3_0.ts"), "\(asked.sorted())")
            // Its subtitles too (WebVTT, in the group the best variant names).
            #expect(asked.contains { $0.hasSuffix(".vtt") }, "\(asked.sorted())")
            #expect(origin.requests(for: "/t/master.m3u8").count == 1)
            origin.stop()
            // The cached variant and audio play as the origin's.
            let path = try harness.run(["path", url]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let local = try TitleFixtures.read(path)
            #expect(local.components(separatedBy: "#EXT-X-STREAM-INF").count == 2, "\(local)")
            let directory = (path as NSString).deletingLastPathComponent
            #expect(
                try TitleFixtures.fingerprint(entry: directory + "/variant-0/index.m3u8")
                    == TitleFixtures.fingerprint(entry: title.path("v0.m3u8")))
            let ls = try harness.run(["ls"])
            #expect(ls.stdout.contains("hls title"), "\(ls.stdout)")
        }

        /// A variant listed twice, on two servers (a backup stream): the first server's
        /// playlist is gone, and the title is fetched from the second, whole, and plays as
        /// the origin's; the run says which copy it used.
        @Test func aVariantWhosePlaylistIsGoneIsFetchedFromItsBackup() throws {
            let title = try TitleFixture.hlsTS.make()
            let origin = try TestOrigin()
            try Self.serve(title, on: origin)
            origin.serve("/m/master.m3u8", Self.masterOfCopies([origin.url("/gone/\(title.entry)"), "/t/" + title.entry]))
            let harness = Harness()
            let url = origin.url("/m/master.m3u8")
            let result = try harness.prefetch(list: url)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("using the copy at"), "\(result.stderr)")
            #expect(origin.requests(for: "/gone/\(title.entry)").count >= 1)
            origin.stop()
            #expect(try Self.cachedVariantPlays(title, harness, url))
            // One entry: the copy's own is not another rendition.
            let path = try harness.run(["path", url]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let local = try TitleFixtures.read(path)
            #expect(local.components(separatedBy: "#EXT-X-STREAM-INF").count == 2, "\(local)")
        }

        /// A variant listed twice (a backup stream), whose first copy lacks every segment
        /// but the first: the title is finished from the second copy, the segment already
        /// held is not fetched again, the run says so, and it plays as the origin's.
        @Test func aSegmentTheFirstCopyLacksIsFetchedFromTheNext() throws {
            let title = try TitleFixture.hlsTS.make()
            let origin = try TestOrigin()
            try Self.serve(title, on: origin)
            let playlist = "application/vnd.apple.mpegurl"
            origin.serve("/p/\(title.entry)", Resource(file: title.path(title.entry), contentType: playlist))
            origin.serve("/p/seg0.ts", Resource(file: title.path("seg0.ts"), contentType: "video/mp2t"))
            origin.serve("/m/master.m3u8", Self.masterOfCopies(["/p/" + title.entry, "/t/" + title.entry]))
            let harness = Harness()
            let url = origin.url("/m/master.m3u8")
            let result = try harness.prefetch(list: url, ["-x", "1"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("HTTP 404") && result.stderr.contains("trying the title's copy 2 of 2"), "\(result.stderr)")
            let segments = title.resources.filter { $0.hasSuffix(".ts") }
            #expect(segments.count >= 3)
            #expect(origin.requests(for: "/p/seg0.ts").count == 1 && origin.requests(for: "/t/seg0.ts").isEmpty)
            #expect(origin.requests(for: "/p/seg1.ts").count == 1)
            for segment in segments where segment != "seg0.ts" {
                #expect(origin.requests(for: "/t/" + segment).count == 1, "\(segment)")
            }
            origin.stop()
            #expect(try Self.cachedVariantPlays(title, harness, url))
        }

        /// The first copy's server fails every segment with 503 (it is down behind its
        /// balancer): after two failures of one segment the next copy is used, not the
        /// whole retry budget spent on the first; the title completes from the second
        /// server and plays as the origin's.
        @Test func aCopyWhoseServerKeepsFailingIsGivenUpForTheNext() throws {
            let title = try TitleFixture.hlsTS.make()
            let backup = try TestOrigin()
            try Self.serve(title, on: backup)
            let failing = try TestOrigin()
            var down = Faults()
            down.statusSequence = Array(repeating: ScriptedStatus(503), count: 100)
            for file in title.resources {
                let isPlaylist = file.hasSuffix(".m3u8")
                failing.serve(
                    "/p/" + file,
                    Resource(
                        file: title.path(file), contentType: isPlaylist ? "application/vnd.apple.mpegurl" : "video/mp2t",
                        faults: isPlaylist ? Faults() : down))
            }
            backup.serve("/m/master.m3u8", Self.masterOfCopies([failing.url("/p/" + title.entry), "/t/" + title.entry]))
            let harness = Harness()
            let url = backup.url("/m/master.m3u8")
            let result = try harness.prefetch(list: url, ["--retries", "8"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("trying the title's copy 2 of 2"), "\(result.stderr)")
            let segments = title.resources.filter { $0.hasSuffix(".ts") }
            let media = failing.requests.filter { $0.path.hasSuffix(".ts") }
            #expect(!media.isEmpty && media.count <= 2 * segments.count, "\(media.map(\.path))")
            failing.stop()
            backup.stop()
            #expect(try Self.cachedVariantPlays(title, harness, url))
        }

        /// A backup stream whose audio has a group of its own on the second server (a
        /// group names each rendition once): the first server lacks the audio from its
        /// second segment on, and the title, audio included, is finished from the second.
        @Test func aBackupStreamsOwnAudioGroupIsUsedWhenTheFirstAudioFails() throws {
            let title = try TitleFixture.hlsMaster.make()
            let origin = try TestOrigin()
            try Self.serve(title, on: origin)
            let playlist = "application/vnd.apple.mpegurl"
            for file in title.resources {
                let type = file.hasSuffix(".m3u8") ? playlist : "video/mp2t"
                origin.serve("/b/" + file, Resource(file: title.path(file), contentType: type))
            }
            let audio = title.resources.filter { $0.hasPrefix("v3_") && $0.hasSuffix(".ts") }.sorted()
            #expect(audio.count >= 3, "\(title.resources)")
            var gone = Faults()
            gone.statusSequence = Array(repeating: ScriptedStatus(404), count: 50)
            for file in audio where file != "v3_0.ts" {
                origin.serve("/t/" + file, Resource(file: title.path(file), contentType: "video/mp2t", faults: gone))
            }
            // Every group and variant again, on /b/, the groups renamed.
            var lines: [String] = []
            var copies: [String] = []
            var pendingVariant: String?
            for line in try TitleFixtures.read(title.entryPath).split(separator: "\n").map(String.init) {
                if let variant = pendingVariant {
                    lines += [variant, line]
                    copies += [variant.replacingOccurrences(of: "AUDIO=\"", with: "AUDIO=\"b"), "/b/" + line]
                    pendingVariant = nil
                } else if line.hasPrefix("#EXT-X-STREAM-INF") {
                    pendingVariant = line
                } else if line.hasPrefix("#EXT-X-MEDIA:TYPE=AUDIO") {
                    lines.append(line)
                    copies.append(
                        line.replacingOccurrences(of: "GROUP-ID=\"", with: "GROUP-ID=\"b").replacingOccurrences(of: "URI=\"", with: "URI=\"/b/"))
                } else {
                    lines.append(line)
                }
            }
            let master = (lines + copies).joined(separator: "\n") + "\n"
            origin.serve("/t/backed.m3u8", Resource(Array(master.utf8), contentType: playlist))
            let harness = Harness()
            let url = origin.url("/t/backed.m3u8")
            let result = try harness.prefetch(list: url)
            #expect(result.status == 0, "\(result.stderr)\n\(master)")
            #expect(result.stderr.contains("trying the title's copy 2 of 2"), "\(result.stderr)")
            #expect(!origin.requests(for: "/b/" + audio[1]).isEmpty)
            origin.stop()
            let path = try harness.run(["path", url]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let local = try TitleFixtures.read(path)
            #expect(!local.contains("GROUP-ID=\"b"), "the backup's group is in the local master: \(local)")
            let directory = (path as NSString).deletingLastPathComponent
            let audioPlaylist = try #require(
                try TitleFixtures.files(in: directory).first { $0.hasPrefix("audio-") && $0.hasSuffix(".m3u8") })
            #expect(
                try TitleFixtures.fingerprint(entry: directory + "/" + audioPlaylist)
                    == TitleFixtures.fingerprint(entry: title.path("v3.m3u8")))
        }

        /// A title that fails before it holds anything is kept for `resume` as a file is:
        /// when what failed may go better later (503), not when it will not (404), which
        /// leaves nothing behind.
        @Test func aTitleFailingWithNothingHeldIsKeptOnlyWhenItMayGoBetter() throws {
            let title = try TitleFixture.hlsTS.make()
            let origin = try TestOrigin()
            try Self.serve(title, on: origin)
            var gone = Faults()
            gone.statusSequence = Array(repeating: ScriptedStatus(404), count: 20)
            let segments = title.resources.filter { $0.hasSuffix(".ts") }
            for segment in segments {
                origin.serve("/t/" + segment, Resource(file: title.path(segment), contentType: "video/mp2t", faults: gone))
            }
            let harness = Harness()
            let url = origin.url("/t/" + title.entry)
            let lost = try harness.prefetch(list: url)
            #expect(lost.status == 1 && lost.stderr.contains("not kept for resume: fix the URL"), "\(lost.stderr)")
            #expect(try harness.run(["resume"]).stderr.contains("nothing to resume"))

            var busy = Faults()
            busy.statusSequence = Array(repeating: ScriptedStatus(503), count: 2)
            for segment in segments {
                origin.serve("/t/" + segment, Resource(file: title.path(segment), contentType: "video/mp2t", faults: busy))
            }
            let later = try harness.prefetch(list: url, ["--retries", "1"])
            #expect(later.status == 1 && later.stderr.contains("kept for resume: `mediacache resume` tries again"), "\(later.stderr)")
            let resumed = try harness.run(["resume"])
            #expect(resumed.status == 0 && resumed.stderr.contains("1 done, 0 failed"), "\(resumed.stderr)")
            #expect(try harness.run(["path", url]).status == 0)
        }

        /// `--max-height` chooses the best variant no taller: 144 lines takes the second
        /// variant (256x144) with its audio; the others' segments are never asked for.
        @Test func maxHeightChoosesTheBestVariantNoTaller() throws {
            let title = try TitleFixture.hlsMaster.make()
            let origin = try TestOrigin()
            try Self.serve(title, on: origin)
            let harness = Harness()
            let url = origin.url("/t/master.m3u8")
            let result = try harness.prefetch(list: url, ["--max-height", "144"])
            #expect(result.status == 0, "\(result.stderr)")
            let asked = Set(origin.requests.map(\.path))
            // The subtitle rendition is taken whichever variant is (its files are named v0…).
            let media = asked.filter { !$0.hasSuffix(".vtt") && !$0.hasSuffix("_vtt.m3u8") }
            #expect(!media.contains { $0.hasPrefix("/t/v0") || $0.hasPrefix("/t/v2") }, "\(asked.sorted())")
            #expect(media.contains("/t/v1_0.ts") && media.contains("/t/v3_0.ts"), "\(asked.sorted())")
            origin.stop()
            let path = try harness.run(["path", url]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let local = try TitleFixtures.read(path)
            #expect(local.contains("RESOLUTION=256x144") && !local.contains("RESOLUTION=320x180"), "\(local)")
            // Cached by one choice, asked by another: said, not silently taken as done.
            let same = try harness.prefetch(list: url, ["--max-height", "144"])
            #expect(same.status == 0 && !same.stderr.contains("note "), "\(same.stderr)")
            let other = try harness.prefetch(list: url, ["--all-variants"])
            #expect(other.status == 0, "\(other.stderr)")
            #expect(other.stderr.contains(
                "note     \(url): cached by --max-height 144 (variant-1, audio-group_aud-audio_3, subtitles-subs-subtitle_0), "), "\(other.stderr)")
            #expect(other.stderr.contains(
                "not by this run's choice: --all-variants; to fetch it by these, `mediacache rm URL`, then prefetch it again"),
                "\(other.stderr)")
        }

        /// `EXT-X-GAP`: the marked segment is never asked for (the origin has no such file),
        /// the title completes, and its local playlist keeps the gap where it was, so a
        /// player skips it as it would on the origin's; every other segment is the origin's.
        @Test func aGapIsNeverFetchedAndStaysAGapOffline() throws {
            let title = try TitleFixture.hlsGap.make()
            let origin = try TestOrigin()
            try Self.serve(title, on: origin)
            let harness = Harness()
            let url = origin.url("/t/" + title.entry)
            let result = try harness.prefetch(list: url)
            #expect(result.status == 0 && result.stderr.contains("1 done, 0 failed"), "\(result.stderr)")
            #expect(origin.requests(for: "/t/seg2.ts").isEmpty)
            #expect(["/t/seg0.ts", "/t/seg1.ts", "/t/seg3.ts"].allSatisfy { origin.requests(for: $0).count == 1 })
            origin.stop()

            let path = try harness.run(["path", url]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let directory = (path as NSString).deletingLastPathComponent
            // A media playlist of its own, or the entry itself when the title has one rendition.
            let media = try TitleFixtures.files(in: directory).first { $0.hasSuffix(".m3u8") && $0.contains("/") }
                ?? (path as NSString).lastPathComponent
            let lines = try TitleFixtures.read(directory + "/" + media).split(separator: "\n").map(String.init)
            let uris = lines.filter { !$0.hasPrefix("#") }
            #expect(uris.count == 4, "\(lines)")
            // The gap stays on the third segment, whose file there is none of.
            let gap = try #require(lines.firstIndex(of: "#EXT-X-GAP"), "\(lines)")
            let gapURI = try #require(lines[gap...].first { !$0.hasPrefix("#") })
            #expect(gapURI == uris[2], "\(lines)")
            let folder = (media as NSString).deletingLastPathComponent
            #expect(!FileManager.default.fileExists(atPath: directory + "/" + folder + "/" + gapURI))
            for (uri, segment) in zip(uris, ["seg0.ts", "seg1.ts", "", "seg3.ts"]) where !segment.isEmpty {
                #expect(try Self.sha256(directory + "/" + folder + "/" + uri) == (try Self.sha256(title.path(segment))), "\(uri)")
            }
            #expect(try harness.run(["verify"]).status == 0)
        }

        /// A segment that cannot be had fails the title, naming it; what was fetched is
        /// kept, and the next run, with fresh tokens in every URL, fetches only the rest.
        @Test func aMissingSegmentFailsTheTitleAndTheNextRunFetchesOnlyTheRest() throws {
            let title = try TitleFixture.hlsTS.make()
            let origin = try TestOrigin()
            try Self.serve(title, on: origin)
            let segments = title.resources.filter { $0.hasSuffix(".ts") }.sorted()
            let missing = try #require(segments.last)
            origin.remove("/t/" + missing)
            let playlist = try TitleFixtures.read(title.entryPath)
            func tokened(_ token: String) -> String {
                playlist.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                    line.hasSuffix(".ts") ? "\(line)?token=\(token)" : String(line)
                }.joined(separator: "\n")
            }
            origin.serve("/t/title.m3u8", Resource(Array(tokened("first").utf8), contentType: "application/vnd.apple.mpegurl"))
            let harness = Harness()
            let url = origin.url("/t/title.m3u8")
            let failed = try harness.prefetch(list: url)
            #expect(failed.status == 1)
            #expect(failed.stderr.contains("HTTP 404 for segment"), "\(failed.stderr)")
            #expect(failed.stderr.contains(missing), "\(failed.stderr)")
            #expect(failed.stderr.contains("kept"), "\(failed.stderr)")
            #expect(failed.stderr.contains("start    \(url) (streaming title, \(segments.count) segments)"), "\(failed.stderr)")

            origin.clearLog()
            origin.serve("/t/" + missing, Resource(file: title.path(missing)))
            origin.serve("/t/title.m3u8", Resource(Array(tokened("second").utf8), contentType: "application/vnd.apple.mpegurl"))
            let healed = try harness.prefetch(list: url)
            #expect(healed.status == 0, "\(healed.stderr)")
            let resumed = "resume   \(url) at \(segments.count - 1) of \(segments.count) segments (streaming title)"
            #expect(healed.stderr.contains(resumed), "\(healed.stderr)")
            let segmentsAsked = origin.requests.map(\.path).filter { $0.hasSuffix(".ts") }
            #expect(segmentsAsked == ["/t/" + missing], "\(segmentsAsked)")
            origin.stop()
            #expect(try Self.playOffline(harness, url).frames == (try TitleFixtures.fingerprint(title)))
        }

        /// `kill -9` mid-title, twice: the title completes, and the origin sent at most
        /// 1.15 × its bytes.
        @Test func aTitleKilledTwiceCompletesWithoutFetchingMuchTwice() throws {
            let title = try TitleFixture.hlsFMP4.make()
            let origin = try TestOrigin()
            let media = try Self.serve(title, on: origin, mediaAt: 50_000)
            let harness = Harness()
            let url = origin.url("/t/" + title.entry)
            let size = try media.reduce(0) { $0 + (try FileManager.default.attributesOfItem(atPath: title.path($1))[.size] as! Int) }
            for round in 1...2 {
                let run = try harness.startPrefetch(list: url, ["-x", "2"])
                let saved = Harness.waitUntil(timeout: 20) { Self.filesHeld(harness) >= round }
                #expect(saved, "round \(round): no progress saved")
                run.signal(SIGKILL)
                _ = run.wait()
            }
            let done = try harness.prefetch(list: url)
            #expect(done.status == 0, "\(done.stderr)")
            let served = media.reduce(0) { $0 + Harness.bytesServed(origin, "/t/" + $1) }
            #expect(Double(served) <= 1.15 * Double(size), "served \(served) of \(size)")
            origin.stop()
            #expect(try Self.playOffline(harness, url).frames == (try TitleFixtures.fingerprint(title)))
        }

        /// Ctrl-C mid-title: `status` shows the title with what it holds, and `resume`
        /// (no list given) finishes it from there; it plays as the origin's.
        @Test func anInterruptedTitleShowsInStatusAndResumeFinishesIt() throws {
            let title = try TitleFixture.hlsFMP4.make()
            let origin = try TestOrigin()
            let media = try Self.serve(title, on: origin, mediaAt: 50_000)
            let harness = Harness()
            let url = origin.url("/t/" + title.entry)
            let run = try harness.startPrefetch(list: url, ["-x", "2"])
            #expect(Harness.waitUntil(timeout: 20) { Self.filesHeld(harness) >= 2 }, "no progress saved")
            run.signal(SIGINT)
            #expect(run.wait().status == 130)
            let status = try harness.run(["status"])
            #expect(status.stdout.contains(url) || status.stderr.contains(url), "\(status.stdout)\(status.stderr)")
            #expect(!(status.stdout + status.stderr).contains("no interrupted downloads"))
            // `info` knows it too (it said "not cached and no unfinished download").
            let info = try harness.run(["info", url])
            #expect(info.status == 0, "\(info.stderr)")
            #expect(info.stdout.contains("unfinished streaming title"), "\(info.stdout)")
            #expect(!info.stdout.contains("bytes_done"), "\(info.stdout)")

            try Self.serve(title, on: origin)
            origin.clearLog()
            let resumed = try harness.run(["resume"])
            #expect(resumed.status == 0, "\(resumed.stderr)")
            #expect(resumed.stderr.contains("1 done, 0 failed"), "\(resumed.stderr)")
            // What the first run held is not asked for again.
            let asked = origin.requests.map(\.path).filter { $0.hasSuffix(".m4s") }
            #expect(asked.count < media.count - 1, "\(asked)")
            origin.stop()
            #expect(try Self.playOffline(harness, url).frames == (try TitleFixtures.fingerprint(title)))
        }

        /// A segment whose URL answers 401, 403 or 410 (an expired token) has the
        /// playlists read again once; the title completes.
        @Test(arguments: [401, 403, 410])
        func aForbiddenSegmentReadsThePlaylistsAgain(status: Int) throws {
            let title = try TitleFixture.hlsTS.make()
            let segment = try #require(title.resources.filter { $0.hasSuffix(".ts") }.sorted().dropFirst().first)
            var forbidden = Faults()
            forbidden.statusSequence = [ScriptedStatus(status)]
            let origin = try TestOrigin()
            try Self.serve(title, on: origin, faults: [segment: forbidden])
            let harness = Harness()
            let url = origin.url("/t/" + title.entry)
            let result = try harness.prefetch(list: url)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("reading the playlists again"), "\(result.stderr)")
            // Once when the title is found, once again for fresh URLs.
            #expect(origin.requests(for: "/t/" + title.entry).count == 2)
            #expect(origin.requests(for: "/t/" + segment).map(\.status) == [status, 200])
        }

        /// A title's segments go out in parallel, as many at once as `-x` says and no more
        /// than the per-host cap allows, asked for in presentation order.
        @Test(arguments: [(["-x", "3"], 3), (["-x", "3", "--max-connections-per-host", "2"], 2)])
        func segmentsGoOutInParallelWithinTheCaps(flags: [String], peak: Int) throws {
            let title = try TitleFixture.hlsTS.make()
            let origin = try TestOrigin()
            let segments = try Self.serve(title, on: origin, mediaAt: 60_000).sorted()
            #expect(segments.count > peak && segments.allSatisfy { $0.hasSuffix(".ts") }, "\(segments)")
            let harness = Harness()
            let result = try harness.prefetch(list: origin.url("/t/" + title.entry), flags)
            #expect(result.status == 0, "\(result.stderr)")
            let asked = origin.requests.filter { $0.path.hasSuffix(".ts") }
            // Each once; the first ones together are the first of the title (those that go
            // out at once may arrive in either order, over their own connections).
            #expect(asked.map(\.path).sorted() == segments.map { "/t/" + $0 })
            #expect(Set(asked.prefix(peak).map(\.path)) == Set(segments.prefix(peak).map { "/t/" + $0 }), "\(asked.map(\.path))")
            #expect(PiecedTitles.peakOverlap(asked) == peak, "\(asked.map { ($0.startedAt, $0.finishedAt) })")
        }

        /// A title re-cut on the origin between two runs (its playlist gives its segments
        /// other durations) is not spliced from the two: the next run says so and fetches the
        /// rendition again, the segments the first run held included.
        @Test func aRenditionRecutBetweenRunsIsFetchedAgainWhole() throws {
            let title = try TitleFixture.hlsTS.make()
            let segments = title.resources.filter { $0.hasSuffix(".ts") }.sorted()
            let origin = try TestOrigin()
            try Self.serve(title, on: origin)
            origin.remove("/t/" + segments[2])
            let harness = Harness()
            let url = origin.url("/t/" + title.entry)
            #expect(try harness.prefetch(list: url, ["--retries", "0"]).status == 1)
            #expect(origin.requests(for: "/t/" + segments[0]).count == 1)

            let recut = try TitleFixtures.read(title.entryPath).split(separator: "\n", omittingEmptySubsequences: false)
                .map { $0.hasPrefix("#EXTINF:") ? "#EXTINF:1.950000," : String($0) }.joined(separator: "\n")
            origin.serve("/t/" + title.entry, Resource(Array(recut.utf8), contentType: "application/vnd.apple.mpegurl"))
            origin.serve("/t/" + segments[2], Resource(file: title.path(segments[2]), contentType: "video/mp2t"))
            let result = try harness.prefetch(list: url)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("changed on the origin since the last run; fetching it again"), "\(result.stderr)")
            for segment in segments where segment != segments[2] {
                #expect(origin.requests(for: "/t/" + segment).filter { $0.status == 200 }.count == 2, "\(segment)")
            }
            #expect(try harness.run(["verify"]).status == 0)
        }

        /// `-H` headers and `--load-cookies` go with every request of a title on the
        /// entry's host, as with a file's: its playlists, its key and each segment.
        @Test func headersAndCookiesGoWithEveryRequestOfATitle() throws {
            let title = try TitleFixture.hlsAES.make()
            let origin = try TestOrigin()
            try Self.serve(title, on: origin)
            let harness = Harness()
            let cookies = harness.scratch.write(
                "cookies.txt", "# Netscape HTTP Cookie File\n127.0.0.1\tFALSE\t/t\tFALSE\t0\tsession\tTITLE-COOKIE\n")
            let url = origin.url("/t/" + title.entry)
            let result = try harness.prefetch(list: url, ["-H", "X-Token: title-secret", "--load-cookies", cookies])
            #expect(result.status == 0, "\(result.stderr)")
            let requests = origin.requests
            #expect(requests.count == title.resources.count, "\(requests.map(\.path))")
            #expect(requests.contains { $0.path.contains("key") }, "\(requests.map(\.path))")
            for request in requests {
                #expect(request.headers["x-token"] == "title-secret", "\(request.path): \(request.headers)")
                #expect(request.headers["cookie"] == "session=TITLE-COOKIE", "\(request.path): \(request.headers)")
            }
        }

        /// A list entry's keys hold for a title as for a file: `all-proxy=` carries every
        /// request of it (playlist and segments) through the proxy, and `cache-key=` names
        /// it, so `path` finds it by that key whatever its URL.
        @Test func anEntrysProxyAndCacheKeyApplyToItsTitle() throws {
            let title = try TitleFixture.hlsTS.make()
            let origin = try TestOrigin()
            try Self.serve(title, on: origin)
            let proxy = try TestProxy()
            let harness = Harness()
            let url = origin.url("/t/" + title.entry)
            let list = "\(url)\n  all-proxy=http://127.0.0.1:\(proxy.port)\n  cache-key=talk-title\n"
            let result = try harness.prefetch(list: list)
            #expect(result.status == 0, "\(result.stderr)")
            let forwarded = proxy.requests.filter { $0.method == "GET" }.map(\.target)
            #expect(forwarded.count == title.resources.count && forwarded.count == origin.requests.count, "\(forwarded)")
            #expect(Set(forwarded) == Set(origin.requests.map { origin.url($0.path) }), "\(forwarded)")
            origin.stop()
            let path = try harness.run(["path", "talk-title"])
            #expect(path.status == 0 && path.stdout.hasSuffix(".title/index.m3u8\n"), "\(path.stdout)\(path.stderr)")
        }

        /// A segment that answers 503, then 429, each with `Retry-After: 2`, is asked again
        /// no sooner than it says, and the title completes as the origin's.
        @Test func aBusySegmentIsAskedAgainWhenItsRetryAfterSays() throws {
            let title = try TitleFixture.hlsTS.make()
            let segment = try #require(title.resources.filter { $0.hasSuffix(".ts") }.sorted().dropFirst().first)
            var busy = Faults()
            busy.statusSequence = [ScriptedStatus(503, retryAfter: "2"), ScriptedStatus(429, retryAfter: "2")]
            let origin = try TestOrigin()
            try Self.serve(title, on: origin, faults: [segment: busy])
            let harness = Harness()
            let url = origin.url("/t/" + title.entry)
            let result = try harness.prefetch(list: url)
            #expect(result.status == 0, "\(result.stderr)")
            let requests = origin.requests(for: "/t/" + segment)
            #expect(requests.map(\.status) == [503, 429, 200])
            let starts = requests.compactMap(\.startedAt)
            #expect(starts.count == 3)
            for (earlier, later) in zip(starts, starts.dropFirst()) {
                #expect(later - earlier >= 1.9, "asked again after \(later - earlier) s")
            }
            origin.stop()
            #expect(try Self.playOffline(harness, url).frames == (try TitleFixtures.fingerprint(title)))
        }

        /// Tokens expire together: segments in flight that all answer 403 wait for the one
        /// reading of the playlists that the first one started (slow here, so they all
        /// answer during it), and are asked for again with what it gives.
        @Test func segmentsForbiddenTogetherWaitForOneRereadOfThePlaylists() throws {
            let title = try TitleFixture.hlsTS.make()
            let segments = Array(title.resources.filter { $0.hasSuffix(".ts") }.sorted().prefix(3))
            var forbidden = Faults()
            forbidden.statusSequence = [ScriptedStatus(403)]
            var slowPlaylist = Faults()
            slowPlaylist.bytesPerSecond = 300
            let origin = try TestOrigin()
            try Self.serve(title, on: origin, faults: Dictionary(uniqueKeysWithValues: segments.map { ($0, forbidden) }))
            origin.serve("/t/" + title.entry, Resource(file: title.entryPath, contentType: "application/vnd.apple.mpegurl", faults: slowPlaylist))
            let harness = Harness()
            let url = origin.url("/t/" + title.entry)
            let result = try harness.prefetch(list: url, ["-x", "3"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(origin.requests(for: "/t/" + title.entry).count == 2)
            for segment in segments {
                #expect(origin.requests(for: "/t/" + segment).map(\.status) == [403, 200], "\(segment)")
            }
        }

        /// A playlist known only by its first bytes (served as `application/octet-stream`,
        /// as object stores often do) says it started as a title does: once, with no
        /// length but its segment counts, after its plan; not as a file the playlist's size.
        @Test func aPlaylistKnownByItsBytesStartsAsATitle() throws {
            let title = try TitleFixture.hlsTS.make()
            let origin = try TestOrigin()
            for file in try TitleFixtures.files(in: title.directory) {
                origin.serve("/t/" + file, Resource(file: title.path(file), contentType: "application/octet-stream"))
            }
            let harness = Harness()
            let url = origin.url("/t/" + title.entry)
            let result = try harness.prefetch(list: url, ["--json"])
            #expect(result.status == 0, "\(result.stderr)")
            // Cached as a title, which plays frame for frame with the origin gone.
            origin.stop()
            let (path, frames) = try Self.playOffline(harness, url)
            #expect(path.hasSuffix(".title/index.m3u8"), "\(path)")
            #expect(frames == (try TitleFixtures.fingerprint(title)))
            let events = result.stdout.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            let kinds = events.compactMap { $0["event"] as? String }
            let started = events.filter { $0["event"] as? String == "started" }
            #expect(started.count == 1, "\(kinds)")
            #expect(started.first?["length"] == nil, "\(started)")
            // With the title's counts, so a progress bar can be sized from the start.
            let segments = title.resources.filter { $0.hasSuffix(".ts") }.count
            #expect(started.first?["segments_total"] as? Int == segments, "\(started)")
            #expect(started.first?["segments_done"] as? Int == 0, "\(started)")
            #expect((started.first?["files_total"] as? Int ?? 0) >= segments, "\(started)")
            let plan = try #require(kinds.indices.first {
                kinds[$0] == "notice" && (events[$0]["message"] as? String)?.contains("segments") == true
            })
            #expect(plan < kinds.firstIndex(of: "started")!, "\(kinds)")
            #expect(kinds.firstIndex(of: "started")! < kinds.firstIndex(of: "committed")!, "\(kinds)")
        }

        /// An empty answer where a playlist or MPD is expected (by its name, or by the type
        /// of a 200 at another name) is refused, not cached for good as an empty object; an empty
        /// file of another kind is still an empty file.
        @Test func anEmptyPlaylistIsNotCached() throws {
            let origin = try TestOrigin()
            origin.serve("/a/index.m3u8", Resource([], contentType: "text/plain"))
            var whole = Faults()
            whole.ignoreRange = true
            origin.serve("/a/manifest", Resource([], contentType: "application/dash+xml", faults: whole))
            origin.serve("/a/empty.bin", Resource([]))
            let harness = Harness()
            for path in ["/a/index.m3u8", "/a/manifest"] {
                let result = try harness.prefetch(list: origin.url(path))
                #expect(result.status == 1, "\(path): \(result.stderr)")
                #expect(result.stderr.contains("empty body where"), "\(path): \(result.stderr)")
                #expect(try harness.run(["path", origin.url(path)]).status != 0, "\(path) was cached")
            }
            let plain = try harness.prefetch(list: origin.url("/a/empty.bin"))
            #expect(plain.status == 0, "\(plain.stderr)")
        }

        /// Live titles and DRM are refused with a message that says so; the run's other
        /// entries still complete.
        @Test func liveAndDRMTitlesAreRefused() throws {
            let origin = try TestOrigin()
            for fixture in [TitleFixture.hlsLive, .hlsDRM] {
                let title = try fixture.make()
                for file in try TitleFixtures.files(in: title.directory) {
                    origin.serve("/\(fixture)/" + file, Resource(file: title.path(file), contentType: "application/octet-stream"))
                }
            }
            let clip = TestBytes.make(100_000, seed: 4)
            origin.serve("/clip.mp4", Resource(clip, contentType: "video/mp4"))
            let harness = Harness()
            let live = try TitleFixture.hlsLive.make()
            let drm = try TitleFixture.hlsDRM.make()
            let result = try harness.prefetch(
                list: [
                    origin.url("/hlsLive/" + live.entry), origin.url("/hlsDRM/" + drm.entry), origin.url("/clip.mp4"),
                ].joined(separator: "\n"))
            #expect(result.status == 1)
            #expect(result.stderr.contains("is a live playlist"), "\(result.stderr)")
            #expect(result.stderr.contains("DRM"), "\(result.stderr)")
            #expect(result.stderr.contains("1 done, 2 failed"), "\(result.stderr)")
            #expect(try harness.cachedBytes(origin.url("/clip.mp4")) == clip)
        }

        /// `hlsFMP4` prefetched from an origin of its own (kept running): the harness, the
        /// title's URL and the path of its cached entry playlist.
        static func cachedFMP4Title() throws -> (harness: Harness, url: String, path: String, origin: TestOrigin) {
            let title = try TitleFixture.hlsFMP4.make()
            let origin = try TestOrigin()
            try serve(title, on: origin)
            let harness = Harness()
            let url = origin.url("/t/" + title.entry)
            let fetched = try harness.prefetch(list: url)
            try #require(fetched.status == 0, "\(fetched.stderr)")
            let path = try harness.run(["path", url]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            return (harness, url, path, origin)
        }

        /// `verify` re-hashes every part of a title and names a damaged one; `rm` takes
        /// the title whole.
        @Test func verifyAndRemoveTreatATitleAsOneObject() throws {
            let (harness, url, path, origin) = try Self.cachedFMP4Title()
            defer { withExtendedLifetime(origin) {} }
            #expect(try harness.run(["verify"]).status == 0)
            let directory = (path as NSString).deletingLastPathComponent
            let segment = directory + "/media/s1.m4s"
            var bytes = try #require(TestBytes.read(segment))
            bytes[bytes.count / 2] ^= 0xFF
            FileManager.default.createFile(atPath: segment, contents: Data(bytes))
            let verify = try harness.run(["verify"])
            #expect(verify.status != 0)
            #expect(verify.stdout.contains("media/s1.m4s") || verify.stderr.contains("media/s1.m4s"), "\(verify.stdout)\(verify.stderr)")
            #expect(try harness.run(["rm", url]).status == 0)
            #expect(!FileManager.default.fileExists(atPath: directory))
            #expect(try harness.run(["path", url]).status != 0)
        }

        /// A title one of whose files was removed (or cut) is not cached for `path` and
        /// `prefetch`, as a plain file is not: path says it is damaged, and prefetch
        /// fetches the title again, whole and playable.
        @Test(arguments: [true, false])
        func aTitleMissingAFileIsFetchedAgain(removed: Bool) throws {
            let (harness, url, path, origin) = try Self.cachedFMP4Title()
            defer { withExtendedLifetime(origin) {} }
            let segment = (path as NSString).deletingLastPathComponent + "/media/s1.m4s"
            let held = try #require(TestBytes.read(segment))
            if removed {
                try FileManager.default.removeItem(atPath: segment)
            } else {
                FileManager.default.createFile(atPath: segment, contents: Data(held.prefix(held.count / 2)))
            }
            let damaged = try harness.run(["path", url])
            #expect(damaged.status == 1 && damaged.stderr.contains("is damaged"), "\(damaged.stderr)")
            let again = try harness.prefetch(list: url)
            #expect(again.status == 0 && again.stderr.contains("1 done, 0 failed, 0 already cached"), "\(again.stderr)")
            #expect(TestBytes.read(segment) == held)
            #expect(try harness.run(["verify"]).status == 0)
        }

        /// `gc` over its size evicts a title whole, never some of its segments: its folder
        /// goes, `path` no longer finds it, and what is left verifies.
        @Test func gcEvictsATitleWhole() throws {
            let (harness, url, path, origin) = try Self.cachedFMP4Title()
            defer { withExtendedLifetime(origin) {} }
            let directory = (path as NSString).deletingLastPathComponent
            let files = try TitleFixtures.files(in: directory)
            #expect(files.count > 3)
            let kib = try files.reduce(0) { total, file in
                total + ((try FileManager.default.attributesOfItem(atPath: directory + "/" + file)[.size] as? Int) ?? 0)
            } / 1024
            let kept = try harness.run(["gc", "--max-size", "\(2 * kib + 64)K"])
            #expect(kept.status == 0, "\(kept.stderr)")
            #expect(FileManager.default.fileExists(atPath: path), "a title under the size was evicted: \(kept.stderr)")
            let result = try harness.run(["gc", "--max-size", "\(kib / 2)K"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("evicted  \(url)"), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: directory))
            #expect(try harness.run(["path", url]).status != 0)
            #expect(!(try harness.run(["ls"])).stdout.contains("title"))
            #expect(try harness.run(["verify"]).status == 0)
        }

        static func sha256(_ path: String) throws -> String {
            let result = try ExternalTool.run("/usr/bin/sha256sum", [path], timeout: 30)
            return String(result.stdout.prefix(64))
        }
    }
}
