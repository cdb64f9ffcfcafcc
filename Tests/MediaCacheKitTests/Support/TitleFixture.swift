import Foundation
@testable import MediaCacheKit

/// A committed streaming title written by hand, the way a commit leaves it: the
/// directory `objects/ab/<key>.title` with an entry playlist, one variant's media
/// playlist and segments, an AES key (mode 0600) and `title.json`, plus (unless
/// `row: false`) its index row. For store-side tests, and for download-side tests that
/// need a title already cached.
struct TitleFixture {
    let key: CacheKey
    /// The row as committed (also when it was not inserted).
    let object: CachedObject
    let manifest: TitleManifest
    let manifestBytes: [UInt8]
    /// Every member's bytes, by its path relative to the title directory.
    let members: [String: [UInt8]]
    /// The title directory, absolute.
    let directoryPath: String

    /// `objects/ab/<key>.title/<member>`, relative to the cache root: as `verify` names it.
    func relativePath(of member: String) -> String { TitleLayout.directory(key: key) + "/" + member }

    /// Writes a title of `segments` segments (of `segmentSize` bytes each) for `url`.
    @discardableResult
    static func write(
        url: String, format: PresentationFormat = .hls, segments: Int = 3, segmentSize: Int = 1_000,
        in cache: CacheDirectory, index: CacheIndex?, row: Bool = true, added: Date = Date()
    ) throws -> TitleFixture {
        let key = CacheKey(identity: url)
        let folder = cache.absolute(TitleLayout.directory(key: key))
        let entry = TitleLayout.entry(for: format)
        var files: [(String, [UInt8])] = []
        let segmentNames = (0..<segments).map { "variant-0/s\($0).ts" }
        let media = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-KEY:METHOD=AES-128,URI=\"../keys/k0.key\"\n"
            + segmentNames.map { "#EXTINF:4.0,\n\(($0 as NSString).lastPathComponent)\n" }.joined() + "#EXT-X-ENDLIST\n"
        files.append((entry, Array("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000\nvariant-0/index.m3u8\n".utf8)))
        files.append(("variant-0/index.m3u8", Array(media.utf8)))
        for (number, name) in segmentNames.enumerated() {
            files.append((name, (0..<segmentSize).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ number &* 7) }))
        }
        files.append(("keys/k0.key", Array(repeating: 0x2A, count: 16)))

        for (member, bytes) in files {
            let path = folder + "/" + member
            try FileSystem.makeDirectory((path as NSString).deletingLastPathComponent, durable: false)
            let mode = member.hasPrefix("keys/") ? 0o600 : 0o644
            guard FileManager.default.createFile(atPath: path, contents: Data(bytes), attributes: [.posixPermissions: mode]) else {
                throw SystemError("create", path: path, code: EIO)
            }
        }
        let manifest = TitleManifest(
            format: format, url: url, entry: entry,
            renditions: [
                .init(identity: "variant-0", kind: "variant", playlist: "variant-0/index.m3u8", segments: segments,
                      duration: 4.0 * Double(segments))
            ],
            members: files.map { .init(path: $0.0, size: Int64($0.1.count), sha256: Digest.sha256Hex($0.1)) })
        let manifestBytes = manifest.encoded()
        FileManager.default.createFile(atPath: folder + "/" + TitleManifest.fileName, contents: Data(manifestBytes))
        let object = CachedObject(
            key: key, cacheKey: url, path: TitleLayout.directory(key: key) + "/" + entry,
            size: manifest.totalSize(manifestBytes: manifestBytes.count), sha256: Digest.sha256Hex(manifestBytes),
            faststart: .skipped("streaming title"), url: url,
            contentType: format == .hls ? "application/vnd.apple.mpegurl" : "application/dash+xml",
            addedAt: added, lastUsedAt: added)
        if row, let index { try index.insert(object, aliases: [url]) }
        return TitleFixture(
            key: key, object: object, manifest: manifest, manifestBytes: manifestBytes,
            members: Dictionary(uniqueKeysWithValues: files), directoryPath: folder)
    }
}
