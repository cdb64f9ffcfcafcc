import CCurl
import Foundation
import Testing
import TestSupport
@testable import MediaCacheKit

/// A title whose segments are byte ranges of one file, driven by scripted transfers:
/// the file comes in pieces, each byte once, and one left whole on disk by a run that
/// stopped before hashing it is hashed, not fetched.
@Suite("TitleDownload in pieces, scripted")
struct PiecedTitleDownloadTests {
    /// A media playlist of `count` byte ranges of `origin.test/t/all.ts`.
    struct SingleFileTitle: Sendable {
        let file: [UInt8]
        let count: Int

        init(size: Int, count: Int, seed: UInt64) {
            var generator = SeededGenerator(seed: seed)
            file = (0..<size).map { $0 % 188 == 0 ? 0x47 : UInt8.random(in: 0...255, using: &generator) }
            self.count = count
        }

        var ranges: [Range<Int>] {
            (0..<count).map { index in file.count * index / count..<file.count * (index + 1) / count }
        }

        var playlist: [UInt8] {
            let lines = ["#EXTM3U", "#EXT-X-VERSION:4", "#EXT-X-TARGETDURATION:2", "#EXT-X-PLAYLIST-TYPE:VOD"]
                + ranges.flatMap { ["#EXTINF:2.0,", "#EXT-X-BYTERANGE:\($0.count)@\($0.lowerBound)", "all.ts"] }
                + ["#EXT-X-ENDLIST", ""]
            return Array(lines.joined(separator: "\n").utf8)
        }

        func answer(_ request: HTTPRequest) -> [ScriptedTransfers.Step] {
            if request.url == TitleDownloadTests.url {
                return ScriptedFile(bytes: playlist, etag: nil, contentType: "application/vnd.apple.mpegurl").answer(request)
            }
            guard request.url.hasSuffix("/all.ts") else { return [.head(status: 404, headers: [("Content-Length", "0")]), .end(CURLE_OK)] }
            return ScriptedFile(bytes: file, etag: "\"all\"", contentType: "video/mp2t", chunk: 16 << 10).answer(request)
        }
    }

    /// Pieces of 64 KiB.
    static func small(_ options: inout PrefetchOptions) { options.minFragment = 64 << 10 }

    static func fileRequests(_ scripted: TitleDownloadTests.Scripted, named name: String = "/all.ts") -> Int {
        scripted.transfers.requests.withLock { $0.filter { $0.url.hasSuffix(name) }.count }
    }

    /// The committed title's file (the one ending in `suffix`), and its path within the title.
    static func committedFile(
        _ result: DownloadResult, in cache: CacheDirectory, suffix: String = ".ts"
    ) throws -> (path: String, bytes: [UInt8]) {
        guard case .committed(let object) = result else {
            Issue.record("not committed: \(result)")
            return ("", [])
        }
        // The title's folder (its path names the entry playlist in it).
        var folder = cache.absolute(object.path)
        if FileSystem.entryType(folder) != S_IFDIR { folder = (folder as NSString).deletingLastPathComponent }
        let path = try #require(FileManager.default.subpaths(atPath: folder)?.first { $0.hasSuffix(suffix) }, "\(folder): \((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])")
        return (path, Array(try #require(FileManager.default.contents(atPath: folder + "/" + path))))
    }

    @Test func theFileComesInPiecesEachByteOnce() async throws {
        let temporary = try TemporaryDirectory("mediacache-title")
        defer { temporary.remove() }
        let title = SingleFileTitle(size: 1_000_003, count: 7, seed: 11)
        let scripted = try TitleDownloadTests.Scripted(cache: temporary.path, configure: Self.small) { title.answer($0) }
        let result = await scripted.download()
        #expect(try Self.committedFile(result, in: scripted.service.cache).bytes == title.file)
        #expect(try TitleDownloadTests.playedSegments(of: result, in: scripted.service.cache).count == 7)
        #expect(Self.fileRequests(scripted) > 8)
        let playlistReads = scripted.transfers.requests.withLock { $0.filter { $0.url == TitleDownloadTests.url }.count }
        #expect(scripted.transfers.bytesTaken.load(ordering: .relaxed) == title.file.count + playlistReads * title.playlist.count)
    }

    /// A fresh run says nothing of resuming: a file to fetch in pieces is not a part held
    /// (it said "resuming: 1 of 2 parts of the title are held" on an empty cache).
    @Test func aFreshTitleInPiecesIsNotResumed() async throws {
        let title = SingleFileTitle(size: 1_000_003, count: 7, seed: 13)
        let scripted = try DownloadJobTests.Scripted(minFragment: 64 << 10) { title.answer($0) }
        let result = await scripted.download([TitleDownloadTests.url])
        #expect(try Self.committedFile(result, in: scripted.service.cache).bytes == title.file)
        #expect(!scripted.events.notices.contains { $0.hasPrefix("resuming") }, "\(scripted.events.notices)")
    }

    /// A run that stopped once every piece was on disk, before the file was hashed (its
    /// progress names all of it as pieces): the next run hashes it and commits, asking
    /// the origin for none of it.
    @Test func aFileWholeInPiecesOnDiskIsHashedNotFetched() async throws {
        let temporary = try TemporaryDirectory("mediacache-title")
        defer { temporary.remove() }
        let title = SingleFileTitle(size: 500_000, count: 5, seed: 12)
        // Where the title keeps the file: from a run to the end in a cache of its own.
        let first = try TitleDownloadTests.Scripted(cache: temporary.path + "/first", configure: Self.small) { title.answer($0) }
        let stored = try Self.committedFile(await first.download(), in: first.service.cache).path

        let cache = CacheDirectory(root: temporary.path + "/second")
        let staging = TitleLayout.staging(key: CacheKey(identity: TitleDownloadTests.url), in: cache)
        let file = staging + "/" + TitleLayout.filesFolder + "/" + stored
        try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: file, contents: Data(title.file)))
        var progress = TitleProgress()
        progress.partial[stored] = TitleProgress.Partial(
            held: RangeSet([ByteRange(0, 250_000), ByteRange(250_000, Int64(title.file.count))]), validator: "\"all\"")
        progress.saveAfterFlushing(state: JobState(entry: ListEntry(urls: [TitleDownloadTests.url]), commandHeaders: []), staging: staging)

        let second = try TitleDownloadTests.Scripted(cache: cache.root, configure: Self.small) { title.answer($0) }
        let result = await second.download()
        #expect(try Self.committedFile(result, in: second.service.cache).bytes == title.file)
        #expect(Self.fileRequests(second) == 0)
    }

    /// A DASH on-demand title: one representation's whole file (`SegmentBase`), whose
    /// length no MPD gives. The first piece asks alone and its answer tells the length;
    /// a longer file then comes in pieces, each byte once; a shorter one is that one
    /// request. The local MPD keeps where the file's header and index lie.
    @Test(arguments: [1_000_003, 40_000])
    func aDASHFileOfUnknownLengthComesInPieces(size: Int) async throws {
        let temporary = try TemporaryDirectory("mediacache-title")
        defer { temporary.remove() }
        var generator = SeededGenerator(seed: 21)
        let file = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let mpd = Array(
            """
            <?xml version="1.0"?>
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT10S" minBufferTime="PT2S">
              <Period><AdaptationSet contentType="video" mimeType="video/mp4">
                <Representation id="v" bandwidth="800000" codecs="avc1.64001f" width="640" height="360">
                  <BaseURL>all.mp4?token=1</BaseURL>
                  <SegmentBase timescale="90000" indexRange="800-899"><Initialization range="0-799"/></SegmentBase>
                </Representation>
              </AdaptationSet></Period>
            </MPD>
            """.utf8)
        let scripted = try TitleDownloadTests.Scripted(cache: temporary.path, configure: Self.small) { request in
            if request.url == TitleDownloadTests.url {
                return ScriptedFile(bytes: mpd, etag: nil, contentType: "application/dash+xml").answer(request)
            }
            guard request.url.hasSuffix("/all.mp4?token=1") else { return [.head(status: 404, headers: [("Content-Length", "0")]), .end(CURLE_OK)] }
            return ScriptedFile(bytes: file, etag: "\"all\"", contentType: "video/mp4", chunk: 16 << 10).answer(request)
        }
        let result = await scripted.download()
        #expect(try Self.committedFile(result, in: scripted.service.cache, suffix: ".mp4").bytes == file)

        let requests = scripted.transfers.requests.withLock { $0.filter { $0.url.hasSuffix("/all.mp4?token=1") } }
        #expect(requests.allSatisfy { ScriptedFile.header("Range", in: $0) != nil })
        // Only the first asks without the version the first answer gave.
        #expect(requests.filter { ScriptedFile.header("If-Range", in: $0) == nil }.count == 1)
        #expect(size < 64 << 10 ? requests.count == 1 : requests.count > 8, "\(requests.count) requests")
        let mpdReads = scripted.transfers.requests.withLock { $0.filter { $0.url == TitleDownloadTests.url }.count }
        #expect(scripted.transfers.bytesTaken.load(ordering: .relaxed) == file.count + mpdReads * mpd.count)

        let local = try Self.committedFile(result, in: scripted.service.cache, suffix: ".mpd").bytes
        let text = String(decoding: local, as: UTF8.self)
        #expect(text.contains("<SegmentBase timescale=\"90000\" indexRange=\"800-899\"><Initialization range=\"0-799\"/></SegmentBase>"), "\(text)")
    }
}
