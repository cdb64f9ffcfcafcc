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

    static func fileRequests(_ scripted: TitleDownloadTests.Scripted) -> Int {
        scripted.transfers.requests.withLock { $0.filter { $0.url.hasSuffix("/all.ts") }.count }
    }

    /// The committed title's file, and its path within the title.
    static func committedFile(_ result: DownloadResult, in cache: CacheDirectory) throws -> (path: String, bytes: [UInt8]) {
        guard case .committed(let object) = result else {
            Issue.record("not committed: \(result)")
            return ("", [])
        }
        // The title's folder (its path names the entry playlist in it).
        var folder = cache.absolute(object.path)
        if FileSystem.entryType(folder) != S_IFDIR { folder = (folder as NSString).deletingLastPathComponent }
        let path = try #require(FileManager.default.subpaths(atPath: folder)?.first { $0.hasSuffix(".ts") }, "\(folder): \((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])")
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
}
