import Foundation
import MediaCacheKit
import Testing
import TestOrigin

extension EndToEnd {
    /// Real moov-at-end media from ffmpeg through the test origin (docs/guide.md, "MP4 and MOV:
    /// playable early, stored faststart").
    @Suite struct Faststart {
        let origin: TestOrigin
        let harness = Harness()

        init() throws { origin = try TestOrigin() }

        /// A file that starts as an MP4 but whose boxes do not tile it (the origin's file
        /// is cut short, or a tool appended a trailer) is the origin's file all the same:
        /// stored byte for byte, as curl and aria2 save it, and recorded as not relocated.
        @Test(arguments: ["cut", "trailer"])
        func anMP4WhoseBoxesDoNotTileItIsStoredAsTheOriginSentIt(damage: String) throws {
            let source = try MediaSample.videoMP4.make(in: harness.scratch.path)
            let bytes = try #require(TestBytes.read(source))
            let served = damage == "cut" ? Array(bytes.prefix(bytes.count * 2 / 3)) : bytes + Array("\n\0\0".utf8)
            origin.serve("/damaged.mp4", Resource(served, contentType: "video/mp4"))
            let url = origin.url("/damaged.mp4")
            let result = try harness.prefetch(list: url)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try harness.cachedBytes(url) == served)
            let info = try harness.run(["info", url]).stdout
            #expect(info.contains("its MP4 structure is damaged"), "\(info)")
        }

        @Test(arguments: [MediaSample.videoMP4, MediaSample.audioM4A])
        func lateMoovIsFetchedFirstAndRelocated(sample: MediaSample) throws {
            let source = try sample.make(in: harness.scratch.path)
            let bytes = try #require(TestBytes.read(source))
            let layout = try TopLevelBoxes.scan(MemoryBytes(bytes), length: Int64(bytes.count))
            let mdat = try #require(layout.first { $0.type == "mdat" })
            #expect(layout.last?.type == "moov", "ffmpeg wrote the moov at the end")

            var faults = Faults()
            faults.bytesPerSecond = 1_500_000
            origin.serve("/" + sample.name, Resource(bytes, contentType: sample.contentType, faults: faults))
            let url = origin.url("/" + sample.name)
            let result = try harness.prefetch(list: url, ["-x", "4", "--min-fragment", "128K", "--json"])
            #expect(result.status == 0, "\(result.stderr)")

            // The tail after mdat was asked for before the middle of mdat.
            let requests = origin.requests(for: "/" + sample.name)
            let tail = try #require(requests.firstIndex { $0.range?.lowerBound == Int(mdat.end) }, "\(requests.map(\.rangeHeader))")
            let middle = Int(mdat.offset + mdat.size / 2)
            let firstMiddle = requests.firstIndex { ($0.range?.lowerBound ?? 0) >= middle && $0.range?.lowerBound != Int(mdat.end) }
            #expect(tail < (firstMiddle ?? Int.max), "tail request #\(tail), first mid-mdat request #\(firstMiddle ?? -1)")

            let events = result.stdout.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            let found = try #require(events.first { $0["event"] as? String == "moov-found" })
            #expect((found["offset"] as? NSNumber)?.int64Value == mdat.end)
            let received = (found["bytes_received"] as? NSNumber)?.doubleValue ?? 0
            print("\(sample.name): moov on disk after \(String(format: "%.1f", received * 100 / Double(bytes.count))) % of the file")
            #expect(received < Double(bytes.count) * 0.6)
            let committed = try #require(events.first { $0["event"] as? String == "committed" })
            #expect(committed["faststart"] as? String == "relocated")

            let cachedPath = try harness.run(["path", url]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let cached = try #require(TestBytes.read(cachedPath))
            let stored = try TopLevelBoxes.scan(MemoryBytes(cached), length: Int64(cached.count))
            let moovIndex = try #require(stored.firstIndex { $0.type == "moov" })
            let mdatIndex = try #require(stored.firstIndex { $0.type == "mdat" })
            #expect(moovIndex < mdatIndex)
            #expect(stored.first?.type == "ftyp")

            let listing = try harness.run(["ls", "--json"])
            let row = try #require(try JSONSerialization.jsonObject(with: Data(listing.stdout.utf8)) as? [String: Any])
            #expect(row["faststart"] as? String == "relocated")
            #expect(row["size"] as? Int == cached.count)
            #expect(try harness.run(["ls"]).stdout.contains("relocated"))

            let decode = try FFmpeg.run(["-v", "error", "-i", cachedPath, "-f", "null", "-"])
            #expect(decode.status == 0 && decode.stderr.isEmpty, "ffmpeg: \(decode.stderr)")
            #expect(try FFmpeg.frameMD5(cachedPath) == FFmpeg.frameMD5(source))
        }

        @Test func noFaststartKeepsOriginBytes() throws {
            let source = try MediaSample.videoMP4.make(in: harness.scratch.path)
            let bytes = try #require(TestBytes.read(source))
            origin.serve("/clip.mp4", Resource(bytes, contentType: "video/mp4"))
            let result = try harness.prefetch(list: origin.url("/clip.mp4"), ["--no-faststart", "--json"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("\"faststart\":\"skipped(disabled)\""))
            #expect(try harness.cachedBytes(origin.url("/clip.mp4")) == bytes)
        }

        /// Cached relocated by an earlier run, asked for with `--no-faststart`: the run
        /// says the cached file is not the origin's layout, and how to have that.
        @Test func noFaststartOnARelocatedObjectIsSaid() throws {
            let source = try MediaSample.videoMP4.make(in: harness.scratch.path)
            origin.serve("/clip.mp4", Resource(try #require(TestBytes.read(source)), contentType: "video/mp4"))
            let url = origin.url("/clip.mp4")
            #expect(try harness.prefetch(list: url).status == 0)
            let again = try harness.prefetch(list: url, ["--no-faststart"])
            #expect(again.status == 0 && again.stderr.contains("already cached"), "\(again.stderr)")
            #expect(again.stderr.contains("cached with its moov moved to the front (faststart)"), "\(again.stderr)")
            #expect(again.stderr.contains("`mediacache rm URL`, then prefetch it again"), "\(again.stderr)")
        }

        @Test func alreadyFaststartFileIsStoredAsItIs() throws {
            let source = try MediaSample.videoMP4.make(in: harness.scratch.path, faststart: true)
            let bytes = try #require(TestBytes.read(source))
            origin.serve("/fast.mp4", Resource(bytes, contentType: "video/mp4"))
            let result = try harness.prefetch(list: origin.url("/fast.mp4"), ["--json"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("\"faststart\":\"original\""))
            #expect(try harness.cachedBytes(origin.url("/fast.mp4")) == bytes)
        }
    }
}

/// Media made by ffmpeg for the tests; ffmpeg's default MP4 layout has moov at the end.
struct MediaSample: Sendable, CustomStringConvertible {
    var name: String
    var contentType: String
    var inputs: [String]

    static let videoMP4 = MediaSample(
        name: "clip.mp4", contentType: "video/mp4",
        inputs: [
            "-f", "lavfi", "-i", "testsrc=duration=8:size=640x360:rate=25", "-f", "lavfi", "-i",
            "sine=frequency=440:duration=8", "-c:v", "libx264", "-preset", "ultrafast", "-b:v", "2M", "-c:a", "aac",
            "-shortest",
        ])
    /// Half a minute at 1 Mbit/s: long enough to play while it downloads.
    static let longVideoMP4 = MediaSample(
        name: "long.mp4", contentType: "video/mp4",
        inputs: [
            "-f", "lavfi", "-i", "testsrc=duration=30:size=426x240:rate=25", "-c:v", "libx264", "-preset", "ultrafast",
            "-b:v", "1M",
        ])
    static let audioM4A = MediaSample(
        name: "tone.m4a", contentType: "audio/mp4",
        inputs: ["-f", "lavfi", "-i", "sine=frequency=330:duration=60", "-c:a", "aac", "-b:a", "192k"])

    func make(in directory: String, faststart: Bool = false) throws -> String {
        let path = directory + "/" + name
        let result = try FFmpeg.run(inputs + (faststart ? ["-movflags", "+faststart"] : []) + ["-y", path])
        guard result.status == 0 else { throw FFmpegFailed(message: result.stderr) }
        return path
    }

    var description: String { name }
}

enum FFmpeg {
    static func run(_ arguments: [String]) throws -> RunResult {
        try ExternalTool.run("/usr/bin/ffmpeg", ["-nostdin", "-hide_banner"] + arguments)
    }

    /// Per-frame MD5s of every stream, copied without decoding: equal iff the media is.
    static func frameMD5(_ path: String) throws -> String {
        let result = try run(["-v", "error", "-i", path, "-map", "0", "-c", "copy", "-f", "framemd5", "-"])
        guard result.status == 0 else { throw FFmpegFailed(message: result.stderr) }
        return result.stdout
    }
}

struct FFmpegFailed: Error, CustomStringConvertible {
    var message: String
    var description: String { "ffmpeg failed: \(message)" }
}

extension EndToEnd.Faststart {
    /// Files of 32 MiB and more are hashed while they arrive (front to back); the index
    /// must still record the exact SHA-256 of what is stored, relocated or not.
    @Test func bigFilesHashedWhileDownloadingVerify() throws {
        let mdat = TestBytes.make(40 << 20, seed: 77)
        let ftyp = SyntheticMP4.box("ftyp", Array("isom".utf8) + [0, 0, 2, 0] + Array("isomiso2".utf8))
        let mdatStart = Int64(ftyp.count + 8)
        let offsets = stride(from: Int64(0), to: Int64(mdat.count), by: 1 << 20).map { mdatStart + $0 }
        let movie = ftyp + SyntheticMP4.box("mdat", mdat) + SyntheticMP4.moov(chunkOffsets: offsets)
        origin.serve("/big.mp4", Resource(movie, contentType: "video/mp4"))
        origin.serve("/big.bin", Resource(mdat))
        let result = try harness.prefetch(
            list: origin.url("/big.mp4") + "\n" + origin.url("/big.bin"), ["-x", "4", "--min-fragment", "1M", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("\"faststart\":\"relocated\""))
        let verify = try harness.run(["verify"])
        #expect(verify.status == 0, "\(verify.stderr)")
        #expect(verify.stdout.contains("2 objects verified"))
        #expect(try harness.cachedBytes(origin.url("/big.bin")) == mdat)
        let stored = try #require(try harness.cachedBytes(origin.url("/big.mp4")))
        #expect(stored.count == movie.count)
        #expect(Array(stored.suffix(mdat.count)) == mdat, "mdat follows the moov unchanged")
    }
}

/// Minimal ISO BMFF writer for synthetic movies.
enum SyntheticMP4 {
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        be32(UInt32(payload.count + 8)) + Array(type.utf8) + payload
    }

    static func moov(chunkOffsets: [Int64]) -> [UInt8] {
        let stco = box("stco", [0, 0, 0, 0] + be32(UInt32(chunkOffsets.count)) + chunkOffsets.flatMap { be32(UInt32($0)) })
        let stbl = box("stbl", box("stsd", [0, 0, 0, 0, 0, 0, 0, 0]) + stco)
        return box("moov", box("mvhd", [UInt8](repeating: 0, count: 100)) + box("trak", box("mdia", box("minf", stbl))))
    }

    static func be32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
