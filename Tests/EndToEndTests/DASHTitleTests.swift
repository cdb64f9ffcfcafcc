import Foundation
import Testing
import TestOrigin

/// DASH titles end to end: an MPD made by ffmpeg served by the test origin (as
/// `application/octet-stream`, so the MPD is known by its root element), prefetched,
/// then played offline from `mediacache path` with the origin gone.
extension EndToEnd {
    @Suite struct DASHTitles {
        @Test(arguments: [TitleFixture.dashTemplate, .dashNumber, .dashList, .dashSingleFile])
        func aDASHTitleIsCachedWholeAndPlaysOffline(fixture: TitleFixture) throws {
            let title = try fixture.make()
            let origin = try TestOrigin()
            try Titles.serve(title, on: origin)
            let harness = Harness()
            let url = origin.url("/t/" + title.entry)
            let result = try harness.prefetch(list: url)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("1 done, 0 failed"), "\(result.stderr)")
            #expect(result.stderr.contains("a DASH title: video-0, audio-und-1"), "\(result.stderr)")
            // The MPD is asked for once: the request that found it is read on.
            #expect(origin.requests(for: "/t/" + title.entry).count == 1)
            origin.stop()

            let (path, frames) = try Titles.playOffline(harness, url)
            #expect(path.hasSuffix(".title/index.mpd"))
            // A single-file or SegmentList title is the same encode as the template one, cut
            // differently; ffmpeg 5.1 does not play the origin's own MPD of either to the
            // end, and plays the local one (a SegmentList with a SegmentTimeline) whole.
            let reference = [.dashSingleFile, .dashList].contains(fixture) ? try TitleFixture.dashTemplate.make() : title
            #expect(frames == (try TitleFixtures.fingerprint(reference)))
            if fixture != .dashSingleFile {
                // A seek reads from the segment holding the time asked for, not from the
                // start (ffmpeg's demuxer seeks only by a timeline on the AdaptationSet).
                let probe = try ExternalTool.run(
                    "/usr/bin/ffprobe",
                    ["-v", "error", "-read_intervals", "4%+0.1", "-select_streams", "v", "-show_entries", "packet=pts_time",
                        "-of", "csv=p=0", path], timeout: 60)
                let first = Double(probe.stdout.split(separator: "\n").first ?? "") ?? -1
                #expect(first >= 3.9 && first < 4.5, "a seek to 4 s read from \(first) s: \(probe.stderr)")
            }
            let directory = (path as NSString).deletingLastPathComponent
            #expect(!(try TitleFixtures.read(path)).contains("http"), "the local MPD names the origin")
            if fixture == .dashSingleFile {
                // One request per representation's file, not one per range.
                for file in title.resources where file.hasSuffix(".mp4") {
                    #expect(origin.requests(for: "/t/" + file).count == 1, "\(file)")
                }
            } else {
                // Stored as served: every media file of the origin is in the title, unchanged.
                let cached = Set(try TitleFixtures.files(in: directory).map { try Titles.sha256(directory + "/" + $0) })
                for file in title.resources where !file.hasSuffix(".mpd") {
                    #expect(cached.contains(try Titles.sha256(title.path(file))), "\(file) is not in the cached title")
                }
            }
            #expect(try harness.run(["verify"]).status == 0)
            let listed = try harness.run(["ls"])
            #expect(listed.stdout.contains("dash title, 2 renditions, "), "\(listed.stdout)")
            // `info` lists the renditions the title holds, each with its segments.
            let info = try harness.run(["info", url])
            #expect(info.status == 0, "\(info.stderr)")
            for rendition in ["video-0 (video): ", "audio-und-1 (audio): "] {
                #expect(info.stdout.contains(rendition), "\(info.stdout)")
            }
        }

        /// Two `BaseURL`s on the MPD (the same files on two servers), the first of which
        /// has none of them: the title comes from the second, segments and files fetched
        /// in pieces alike, the run says so, and it plays as the origin's.
        @Test(arguments: [TitleFixture.dashTemplate, .dashOnDemand])
        func aTitleWhoseFirstBaseURLFailsComesFromTheNext(fixture: TitleFixture) throws {
            let title = try fixture.make()
            let origin = try TestOrigin()
            try Titles.serve(title, on: origin)
            let written = try TitleFixtures.read(title.entryPath)
            let bases = "<BaseURL>\(origin.url("/gone/"))</BaseURL><BaseURL>\(origin.url("/t/"))</BaseURL>"
            let period = try #require(written.range(of: "<Period"))
            let mpd = written.replacingCharacters(in: period.lowerBound..<period.lowerBound, with: bases)
            origin.serve("/m/index.mpd", Resource(Array(mpd.utf8), contentType: "application/dash+xml"))
            let harness = Harness()
            let url = origin.url("/m/index.mpd")
            let result = try harness.prefetch(list: url)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("HTTP 404") && result.stderr.contains("trying the title's copy 2 of 2"), "\(result.stderr)")
            #expect(origin.requests(for: "/m/index.mpd").count == 2)
            for file in title.resources where !file.hasSuffix(".mpd") {
                #expect(origin.requests(for: "/t/" + file).allSatisfy { $0.status == 200 || $0.status == 206 }, "\(file)")
                #expect(!origin.requests(for: "/t/" + file).isEmpty, "\(file) was not fetched from the second copy")
            }
            origin.stop()
            let (_, frames) = try Titles.playOffline(harness, url)
            #expect(frames == (try TitleFixtures.fingerprint(title)))
            #expect(try harness.run(["verify"]).status == 0)
        }

        /// A WebVTT text set: ffmpeg's DASH reader refuses a local `.vtt` (and with it the
        /// whole MPD), so the cached copy's text file ends like media and still opens as WebVTT.
        @Test func aTitleWithWebVTTSubtitlesPlaysOffline() throws {
            let title = try TitleFixture.dashTemplate.make()
            let origin = try TestOrigin()
            try Titles.serve(title, on: origin)
            let mpd = try TitleFixtures.read(title.entryPath).replacingOccurrences(
                of: "</Period>",
                with: "<AdaptationSet contentType=\"text\" mimeType=\"text/vtt\" lang=\"en\">"
                    + "<Representation id=\"subs\" bandwidth=\"100\"><BaseURL>subs.vtt</BaseURL></Representation>"
                    + "</AdaptationSet></Period>")
            origin.serve("/t/" + title.entry, Resource(Array(mpd.utf8), contentType: "application/dash+xml"))
            origin.serve("/t/subs.vtt", Resource(Array("WEBVTT\n\n00:00:00.500 --> 00:00:01.500\nHello\n".utf8), contentType: "text/vtt"))
            let harness = Harness()
            let url = origin.url("/t/" + title.entry)
            let result = try harness.prefetch(list: url)
            #expect(result.status == 0, "\(result.stderr)")
            origin.stop()
            let path = try harness.run(["path", url]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let probe = try ExternalTool.run(
                "/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", path], timeout: 60)
            #expect(probe.status == 0, "\(probe.stderr)")
            #expect(probe.stdout.contains("webvtt"), "\(probe.stdout)")
            let decode = try ExternalTool.run(
                "/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-map", "0:v", "-map", "0:a", "-f", "null", "-"],
                timeout: 60)
            #expect(decode.status == 0, "\(decode.stderr)")
        }

        /// A segment that cannot be had fails the title, naming it; healed, the next run
        /// fetches only what it lacks.
        @Test func aMissingDASHSegmentFailsTheTitleAndTheNextRunFetchesTheRest() throws {
            let title = try TitleFixture.dashNumber.make()
            let origin = try TestOrigin()
            let missing = try #require(title.resources.filter { $0.hasSuffix(".m4s") }.sorted().dropFirst(3).first)
            try Titles.serve(title, on: origin)
            origin.remove("/t/" + missing)
            let harness = Harness()
            let url = origin.url("/t/" + title.entry)
            let failed = try harness.prefetch(list: url, ["--json"])
            #expect(failed.status == 1)
            let events = failed.stdout.split(separator: "\n").compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            }
            let failure = try #require(events.first { $0["event"] as? String == "failed" }, "\(failed.stdout)")
            let reason = failure["reason"] as? String ?? ""
            #expect(reason.contains("HTTP 404") && reason.contains("segment"), "\(reason)")
            #expect(reason.contains("run again to fetch the rest"), "\(reason)")
            // The event says what is missing: the segment's number under its rendition.
            // ffmpeg names it `chunk-stream0-00004.m4s`: representation 0's segment 4.
            #expect(missing.hasPrefix("chunk-stream0-"))
            let number = try #require(missing.split(separator: "-").last.flatMap { Int($0.prefix(while: \.isNumber)) })
            #expect(failure["missing"] as? [String: [String]] == ["video-0": [String(number)]], "\(failure)")
            let total = failure["segments_total"] as? Int ?? 0
            #expect(total > 0 && failure["segments_done"] as? Int == total - 1, "\(failure)")

            origin.clearLog()
            origin.serve("/t/" + missing, Resource(file: title.path(missing)))
            let healed = try harness.prefetch(list: url)
            #expect(healed.status == 0, "\(healed.stderr)")
            // Init sections held are fetched again to compare (the origin may have
            // encoded the title anew since); of the media, only what was missing.
            let again = origin.requests.map(\.path).filter { !$0.hasSuffix(".mpd") && !$0.contains("/init-") }
            #expect(again == ["/t/" + missing], "\(again)")
            origin.stop()
            #expect(try Titles.playOffline(harness, url).frames == (try TitleFixtures.fingerprint(title)))
        }

        /// A live MPD (`type="dynamic"`) and one under a DRM system (`ContentProtection`
        /// with Widevine's id) each fail with a message that says which; the run exits 1
        /// and the list's other entry is cached.
        @Test func liveAndDRMMPDsAreRefused() throws {
            let title = try TitleFixture.dashTemplate.make()
            let mpd = try TitleFixtures.read(title.entryPath)
            #expect(mpd.contains("type=\"static\"") && mpd.contains("contentType=\"video\""))
            let live = mpd.replacingOccurrences(of: "type=\"static\"", with: "type=\"dynamic\" availabilityStartTime=\"2026-01-01T00:00:00Z\"")
            let widevine = #"<ContentProtection schemeIdUri="urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed" value="Widevine"/>"#
            #expect(mpd.contains("<Representation id=\"0\""))
            let drm = mpd.replacingOccurrences(of: "<Representation id=\"0\"", with: widevine + "<Representation id=\"0\"")
            let origin = try TestOrigin()
            try Titles.serve(title, on: origin)
            origin.serve("/t/live.mpd", Resource(Array(live.utf8), contentType: "application/dash+xml"))
            origin.serve("/t/drm.mpd", Resource(Array(drm.utf8), contentType: "application/dash+xml"))
            let clip = TestBytes.make(100_000, seed: 5)
            origin.serve("/clip.mp4", Resource(clip, contentType: "video/mp4"))
            let harness = Harness()
            let list = [origin.url("/t/live.mpd"), origin.url("/t/drm.mpd"), origin.url("/clip.mp4")]
            let result = try harness.prefetch(list: list.joined(separator: "\n"))
            #expect(result.status == 1)
            #expect(result.stderr.contains("is a live MPD (type=\"dynamic\")"), "\(result.stderr)")
            #expect(result.stderr.contains("DRM"), "\(result.stderr)")
            #expect(result.stderr.contains("1 done, 2 failed"), "\(result.stderr)")
            #expect(try harness.cachedBytes(origin.url("/clip.mp4")) == clip)
            #expect(!origin.requests.contains { $0.path.hasSuffix(".m4s") }, "a refused title's segments were asked for")
        }
    }
}
