import Foundation
import Testing
import TestOrigin

/// A title whose byte ranges all point into one large file (single-file HLS): the file
/// comes in pieces over several connections, as a progressive file does; a run killed
/// midway keeps what every piece wrote; an origin that cannot give pieces gets asked for
/// the file whole; and a player under `serve` that seeks into the file has bytes from
/// there at once, not after everything before them. `--min-fragment 16K` makes the
/// fixture's file (a few hundred KiB) many pieces.
extension EndToEnd {
    @Suite struct PiecedTitles {
        let harness = Harness()
        static let pieces = ["--min-fragment", "16K"]
        static let file = "media.ts"

        /// The single-file fixture on a fresh origin, `media.ts` served with `faults`.
        func origin(
            _ faults: Faults = Faults(), etag: String? = Resource.automatic, lastModified: String? = Resource.automatic
        ) throws -> (StreamingTitle, TestOrigin, [UInt8]) {
            let title = try TitleFixture.hlsSingleFile.make()
            let origin = try TestOrigin()
            try Titles.serve(title, on: origin)
            origin.serve(
                "/t/" + Self.file,
                Resource(file: title.path(Self.file), contentType: "video/mp2t", etag: etag, lastModified: lastModified, faults: faults))
            return (title, origin, try #require(TestBytes.read(title.path(Self.file))))
        }

        /// The fixture with `media.ts` sent at `rate` bytes a second per answer (nil: at
        /// once) and with `faults` besides, and the title's URL.
        func pacedOrigin(
            _ rate: Int?, etag: String? = Resource.automatic, lastModified: String? = Resource.automatic,
            _ faults: (inout Faults) -> Void = { _ in }
        ) throws -> (title: StreamingTitle, origin: TestOrigin, bytes: [UInt8], url: String) {
            var paced = Faults()
            paced.bytesPerSecond = rate
            faults(&paced)
            let (title, origin, bytes) = try origin(paced, etag: etag, lastModified: lastModified)
            return (title, origin, bytes, origin.url("/t/" + title.entry))
        }

        /// A file shorter than the playlist's byte ranges of it (cut at the origin): the
        /// title fails naming the file, whole or in pieces, instead of being committed with
        /// holes that `verify` would pass and a player could not play.
        @Test(arguments: [[String](), pieces])
        func aFileShorterThanItsByteRangesFailsTheTitle(options: [String]) throws {
            let (title, origin, bytes) = try origin()
            origin.serve("/t/" + Self.file, Resource(Array(bytes.prefix(bytes.count - 5000)), contentType: "video/mp2t"))
            let url = origin.url("/t/" + title.entry)
            let result = try harness.prefetch(list: url, options)
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.contains("the playlist and its file disagree at the origin"), "\(result.stderr)")
            #expect(result.stderr.contains(Self.file), "\(result.stderr)")
            #expect(try harness.run(["path", url]).status != 0)
        }

        /// A prefetch of `url` in pieces, `kill -9`ed once the title's progress holds more
        /// than `ranges` ranges of its file; false if it never did.
        func killOnceSaved(_ url: String, ranges: Int) throws -> Bool {
            let run = try harness.startPrefetch(list: url, Self.pieces + ["-x", "4"])
            let saved = Harness.waitUntil(timeout: 30) { savedRanges() > ranges }
            run.signal(SIGKILL)
            _ = run.wait()
            return saved
        }

        /// The cached copy of the origin's `media.ts`, found by its bytes' hash.
        func cachedFile(_ url: String) throws -> [UInt8]? {
            let path = try harness.run(["path", url]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let directory = (path as NSString).deletingLastPathComponent
            let media = try TitleFixtures.files(in: directory).filter { $0.hasSuffix(".ts") }
            return media.count == 1 ? TestBytes.read(directory + "/" + media[0]) : nil
        }

        /// How many ranges of a file in pieces the title's saved progress holds.
        func savedRanges() -> Int {
            let partial = harness.scratch.cache + "/partial"
            let files = (try? TitleFixtures.files(in: partial)) ?? []
            guard let file = files.first(where: { $0.hasSuffix("progress.json") }),
                let text = try? TitleFixtures.read(partial + "/" + file), text.contains("\"ranges\"")
            else { return 0 }
            return text.components(separatedBy: "\"start\"").count - 1
        }

        /// `title` on a fresh origin that sends each answer for `files` at 150 KB/s,
        /// prefetched in pieces over 4 connections (the run must succeed).
        func prefetchPaced(_ title: StreamingTitle, files: [String]) throws -> (TestOrigin, String) {
            var paced = Faults()
            paced.bytesPerSecond = 150_000
            let origin = try TestOrigin()
            try Titles.serve(title, on: origin, faults: Dictionary(uniqueKeysWithValues: files.map { ($0, paced) }))
            let url = origin.url("/t/" + title.entry)
            let result = try harness.prefetch(list: url, Self.pieces + ["-x", "4"])
            #expect(result.status == 0, "\(result.stderr)")
            return (origin, url)
        }

        /// The most requests for `path` the origin was answering at one moment.
        static func peakOverlap(_ records: [RequestRecord]) -> Int {
            let events = records.compactMap { record in record.startedAt.map { ($0, record.finishedAt ?? .infinity) } }
            return events.map { event in events.filter { $0.0 <= event.0 && $0.1 > event.0 }.count }.max() ?? 0
        }

        /// The file comes as ranges of one version over several connections at once, each
        /// byte sent about once, and the title plays offline as the origin's.
        @Test func aSingleFileTitleComesInPiecesOverSeveralConnections() throws {
            let (title, origin, bytes, url) = try pacedOrigin(150_000)
            let result = try harness.prefetch(list: url, Self.pieces + ["-x", "4"])
            #expect(result.status == 0, "\(result.stderr)")
            let requests = origin.requests(for: "/t/" + Self.file)
            #expect(requests.count > 4 && requests.allSatisfy { $0.status == 206 }, "\(requests.map(\.rangeHeader))")
            // One asks alone; once it is answered, every other piece names its version.
            #expect(requests.filter { $0.headers["if-range"] == nil }.count == 1, "\(requests.map(\.headers))")
            #expect(Self.peakOverlap(requests) > 1, "one piece at a time")
            let served = Harness.bytesServed(origin, "/t/" + Self.file)
            #expect(Double(served) <= 1.1 * Double(bytes.count), "served \(served) of \(bytes.count)")
            origin.stop()
            #expect(try cachedFile(url) == bytes)
            #expect(try Titles.playOffline(harness, url).frames == (try TitleFixtures.fingerprint(title)))
            #expect(try harness.run(["verify"]).status == 0)
        }

        /// A DASH title of two single files (video and audio, `SegmentList` byte ranges):
        /// both come in pieces, together, and the title plays offline as the origin's.
        @Test func aDASHTitleOfTwoFilesFetchesBothInPieces() throws {
            let title = try TitleFixture.dashSingleFile.make()
            let files = title.resources.filter { $0.hasSuffix(".mp4") }
            #expect(files.count == 2)
            let (origin, url) = try prefetchPaced(title, files: files)
            for file in files {
                let requests = origin.requests(for: "/t/" + file)
                #expect(requests.count > 2 && requests.allSatisfy { $0.status == 206 }, "\(file): \(requests.map(\.rangeHeader))")
            }
            origin.stop()
            // The same encode as the template fixture, cut differently (ffmpeg 5.1 does not
            // play the origin's own single-file MPD).
            let (path, frames) = try Titles.playOffline(harness, url)
            #expect(frames == (try TitleFixtures.fingerprint(try TitleFixture.dashTemplate.make())))
            let directory = (path as NSString).deletingLastPathComponent
            let cached = Set(try TitleFixtures.files(in: directory).map { try Titles.sha256(directory + "/" + $0) })
            for file in files {
                #expect(cached.contains(try Titles.sha256(title.path(file))), "\(file) is not in the cached title")
            }
            #expect(try harness.run(["verify"]).status == 0)
        }

        /// A DASH on-demand title (one MP4 per representation, each a `SegmentBase`): no
        /// MPD gives the files' lengths, yet each comes in pieces over several connections,
        /// its first piece alone (its answer tells the length); the title plays offline as
        /// the origin's, and the local MPD says where each file's header and index lie,
        /// as the origin's does.
        @Test func aDASHOnDemandTitleComesInPiecesAndKeepsItsIndex() throws {
            let title = try TitleFixture.dashOnDemand.make()
            let files = ["video.mp4", "audio.mp4"]
            let (origin, url) = try prefetchPaced(title, files: files)
            for file in files {
                let requests = origin.requests(for: "/t/" + file)
                #expect(requests.count > 2 && requests.allSatisfy { $0.status == 206 }, "\(file): \(requests.map(\.rangeHeader))")
                #expect(requests.filter { $0.headers["if-range"] == nil }.count == 1, "\(file): \(requests.map(\.headers))")
                let size = try #require(TestBytes.read(title.path(file))).count
                let served = Harness.bytesServed(origin, "/t/" + file)
                #expect(Double(served) <= 1.1 * Double(size), "\(file): served \(served) of \(size)")
            }
            origin.stop()
            let (path, frames) = try Titles.playOffline(harness, url)
            #expect(frames == (try TitleFixtures.fingerprint(title)))
            let local = try TitleFixtures.read(path)
            let written = try TitleFixtures.read(title.entryPath).components(separatedBy: "<SegmentBase").dropFirst()
            #expect(written.count == 2)
            for element in written {
                let segmentBase = "<SegmentBase" + element.components(separatedBy: "</SegmentBase>")[0] + "</SegmentBase>"
                #expect(local.contains(segmentBase), "\(segmentBase) is not in \(local)")
            }
            #expect(try harness.run(["verify"]).status == 0)
        }

        /// `kill -9` once pieces are saved: the next run asks only for what no piece wrote
        /// (its ranges never start at byte 0 again), and the title is the origin's.
        @Test func aPiecedFileKilledMidwayKeepsWhatEveryPieceWrote() throws {
            let (title, origin, bytes, url) = try pacedOrigin(20_000)
            #expect(try killOnceSaved(url, ranges: 1), "no pieces saved")
            // `status` counts the pieces' bytes as done.
            let status = try harness.run(["status", "--json"]).stdout.split(separator: "\n").first.map(String.init) ?? ""
            let line = try JSONSerialization.jsonObject(with: Data(status.utf8)) as? [String: Any]
            #expect((line?["bytes_done"] as? Int ?? 0) > 0, "\(status)")
            let before = origin.requests(for: "/t/" + Self.file).count
            origin.serve("/t/" + Self.file, Resource(file: title.path(Self.file), contentType: "video/mp2t"))

            let done = try harness.prefetch(list: url, Self.pieces)
            #expect(done.status == 0, "\(done.stderr)")
            let resumed = origin.requests(for: "/t/" + Self.file).dropFirst(before)
            #expect(!resumed.isEmpty && resumed.allSatisfy { ($0.range?.lowerBound ?? 0) > 0 }, "\(resumed.map(\.rangeHeader))")
            let served = Harness.bytesServed(origin, "/t/" + Self.file)
            #expect(Double(served) <= 1.15 * Double(bytes.count), "served \(served) of \(bytes.count)")
            origin.stop()
            #expect(try cachedFile(url) == bytes)
            #expect(try Titles.playOffline(harness, url).frames == (try TitleFixtures.fingerprint(title)))
        }

        /// Pieces whose connections break midway (a clean close, then a reset) are asked
        /// again for the rest only: the file is the origin's, and about each byte came once.
        @Test func piecesThatBreakAreAskedAgainForTheRestOnly() throws {
            let (_, origin, bytes, url) = try pacedOrigin(150_000) { broken in
                broken.dropAfterBytes = 10_000
                broken.dropCount = 3
                broken.resetAfterBytes = [5_000, 7_000]
            }
            let result = try harness.prefetch(list: url, Self.pieces + ["-x", "4"])
            #expect(result.status == 0, "\(result.stderr)")
            let requests = origin.requests(for: "/t/" + Self.file)
            // The origin broke the first five answers where it was told to (and no other);
            // answers that start together may be logged in another order.
            let cut = requests.filter { $0.bodyBytesSent < ($0.range?.count ?? 0) }.map(\.bodyBytesSent)
            #expect(cut.sorted() == [5_000, 7_000, 10_000, 10_000, 10_000], "\(cut)")
            // A piece asked again starts where the broken one stopped, never at its start.
            let starts = requests.compactMap { $0.range?.lowerBound }
            #expect(Set(starts).count == starts.count, "a range asked for twice from the same byte: \(requests.map(\.rangeHeader))")
            let served = Harness.bytesServed(origin, "/t/" + Self.file)
            #expect(Double(served) <= 1.1 * Double(bytes.count), "served \(served) of \(bytes.count)")
            origin.stop()
            #expect(try cachedFile(url) == bytes)
        }

        /// Without validators, a piece answered with another whole length than the first
        /// (a balancer over two versions) starts the file over whole, never spliced.
        @Test func aPieceOfAnotherLengthStartsTheFileOverWhole() throws {
            let (_, origin, bytes, url) = try pacedOrigin(150_000, etag: nil, lastModified: nil) { $0.misstatedTotal = 1 << 40 }
            let result = try harness.prefetch(list: url, Self.pieces + ["-x", "4"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("length of") && result.stderr.contains("fetching it whole"), "\(result.stderr)")
            // One answer brought the whole file, and nothing came after it. A piece cut
            // when the file started over may still be logged after it (it reached the origin
            // late on a loaded machine, as CI saw), but brings no byte.
            let requests = origin.requests(for: "/t/" + Self.file)
            let whole = try #require(
                requests.last { ($0.range?.lowerBound ?? 0) == 0 && $0.bodyBytesSent == bytes.count },
                "\(requests.map { ($0.rangeHeader, $0.bodyBytesSent) })")
            let after = requests.filter { ($0.startedAt ?? 0) > (whole.startedAt ?? 0) }
            #expect(after.allSatisfy { $0.bodyBytesSent == 0 }, "\(after)")
            origin.stop()
            #expect(try cachedFile(url) == bytes)
        }

        /// An origin that answers a range with the whole file gets asked for it whole,
        /// once; one whose file changed since the pieces held has it fetched whole again,
        /// never spliced from two versions.
        @Test(arguments: [true, false])
        func piecesOfAnotherVersionStartTheFileOverWhole(originIgnoresRanges: Bool) throws {
            let (title, origin, bytes, url) = try pacedOrigin(originIgnoresRanges ? nil : 20_000, etag: "\"one\"") {
                $0.ignoreRange = originIgnoresRanges
            }
            if !originIgnoresRanges {
                // Pieces of version "one" held, then the origin's file is version "two".
                #expect(try killOnceSaved(url, ranges: 0), "no pieces saved")
                origin.serve("/t/" + Self.file, Resource(file: title.path(Self.file), contentType: "video/mp2t", etag: "\"two\""))
            }
            let result = try harness.prefetch(list: url, Self.pieces)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("fetching it whole"), "\(result.stderr)")
            let last = try #require(origin.requests(for: "/t/" + Self.file).last)
            // One request for all of it, from byte 0.
            #expect((last.range?.lowerBound ?? 0) == 0 && last.bodyBytesSent == bytes.count, "\(last)")
            origin.stop()
            #expect(try cachedFile(url) == bytes)
        }

        /// Under `serve`, with one connection for the title and an origin sending each
        /// answer at 64 KiB/s, a player asking for the file's last bytes has them in a
        /// moment, long before the download gets there; ffprobe answers within 3 s;
        /// ffmpeg reads every frame; the title ends committed with the origin's bytes.
        @Test func aPlayerSeekingIntoTheFileHasBytesFromThereAtOnce() throws {
            let (title, origin, bytes, url) = try pacedOrigin(64 << 10)
            let server = try ServeFixture(cache: harness.scratch.cache, Self.pieces + ["-x", "1"])
            let local = try server.localURL(url)
            let playlist = try CurlResponse.fetch(local)
            #expect(playlist.status == 200)
            let uris = String(decoding: playlist.body, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") }
            let media = (local as NSString).deletingLastPathComponent + "/" + (try #require(uris.first))

            // From the front at 64 KiB/s the download would need about bytes / 64 KiB seconds.
            try expectTailAtOnce(media, of: bytes, tail: 48 << 10, url: url)
            try expectPlaysWhileItDownloads(local, as: title, url: url)
            origin.stop()
            #expect(try cachedFile(url) == bytes)
            _ = server
        }

        /// The same for a DASH on-demand title, whose files' lengths no MPD gives: the
        /// seek waits only for the first piece's answer (which tells the length) and its
        /// own piece. At 32 KiB/s the video file would take about 8 s from the front.
        @Test func aPlayerSeekingIntoAnOnDemandFileHasBytesFromThereAtOnce() throws {
            let title = try TitleFixture.dashOnDemand.make()
            var paced = Faults()
            paced.bytesPerSecond = 32 << 10
            let origin = try TestOrigin()
            try Titles.serve(title, on: origin, faults: ["video.mp4": paced, "audio.mp4": paced])
            let url = origin.url("/t/" + title.entry)
            let server = try ServeFixture(cache: harness.scratch.cache, Self.pieces + ["-x", "1"])
            let local = try server.localURL(url)
            let mpd = try CurlResponse.fetch(local)
            #expect(mpd.status == 200)
            let bases = String(decoding: mpd.body, as: UTF8.self).components(separatedBy: "<BaseURL>").dropFirst()
            let video = try #require(bases.map { $0.components(separatedBy: "</BaseURL>")[0] }.first { $0.hasPrefix("video") })
            let media = (local as NSString).deletingLastPathComponent + "/" + video
            let bytes = try #require(TestBytes.read(title.path("video.mp4")))

            try expectTailAtOnce(media, of: bytes, tail: 16 << 10, url: url)
            try expectPlaysWhileItDownloads(local, as: title, url: url)
            origin.stop()
            let path = try harness.run(["path", url]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let stored = (path as NSString).deletingLastPathComponent + "/" + video
            #expect(TestBytes.read(stored) == bytes)
            _ = server
        }

        /// The last `tail` bytes of `bytes`, asked for at `media` (a local URL of the title
        /// at `url`, not whole yet), come at once.
        func expectTailAtOnce(
            _ media: String, of bytes: [UInt8], tail: Int, url: String, sourceLocation: SourceLocation = #_sourceLocation
        ) throws {
            let started = Date()
            let answer = try CurlResponse.fetch(media, ["-H", "Range: bytes=\(bytes.count - tail)-"])
            let took = Date().timeIntervalSince(started)
            #expect(answer.status == 206, "\(answer.headers)", sourceLocation: sourceLocation)
            #expect(answer.body == Array(bytes.suffix(tail)), "not the origin's last \(tail) bytes", sourceLocation: sourceLocation)
            #expect(took < 3, "the last bytes took \(took) s", sourceLocation: sourceLocation)
            #expect((try? harness.run(["path", url]).status) != 0, "the title was already whole", sourceLocation: sourceLocation)
        }

        /// ffprobe answers at `local` within 3 s, ffmpeg reads every frame of `title`
        /// there, and the title ends committed.
        func expectPlaysWhileItDownloads(
            _ local: String, as title: StreamingTitle, url: String, sourceLocation: SourceLocation = #_sourceLocation
        ) throws {
            let probe = try FFmpeg.probeDuration(local)
            #expect(probe.seconds < 3, "ffprobe took \(probe.seconds) s", sourceLocation: sourceLocation)
            let result = try ExternalTool.run(
                "/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-xerror", "-i", local, "-map", "0", "-c", "copy", "-f", "framemd5", "-"],
                timeout: 90)
            #expect(result.status == 0, "\(result.stderr)", sourceLocation: sourceLocation)
            #expect(result.stdout == (try TitleFixtures.fingerprint(title)), sourceLocation: sourceLocation)
            #expect(Harness.waitUntil(timeout: 60) { (try? harness.run(["path", url]).status) == 0 }, sourceLocation: sourceLocation)
        }
    }
}
