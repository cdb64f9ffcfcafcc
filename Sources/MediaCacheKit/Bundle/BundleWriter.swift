import Foundation

/// Writes a bundle — `manifest.json`, then each object — to a temporary name beside the
/// destination, and renames it into place only when it is complete and on disk. An
/// unfinished bundle (error, cancellation) is removed; the destination never holds half
/// a bundle.
final class BundleWriter {
    let destination: String
    let temporary: String
    private let archive: ArchiveWriter
    private let digests = DigestPipeline()
    /// The bundle file again, to start its writeback while the rest is still compressed
    /// (the final fsync would otherwise wait for all of it: 0.5 s per GB here).
    private let output: DataFile
    private var writtenSinceWriteback: Int64 = 0
    private var finished = false

    /// zstd worker threads in use (1 when libarchive does not offer more).
    var compressionThreads: Int { archive.compressionThreads }

    init(destination: String, level: Int, threads: Int) throws {
        self.destination = destination
        let directory = (destination as NSString).deletingLastPathComponent
        let base = (destination as NSString).lastPathComponent
        let random = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        temporary = (directory.isEmpty ? "" : directory + "/") + "." + base + ".partial-" + random
        archive = try ArchiveWriter(path: temporary, bundle: destination, level: level, threads: threads)
        output = try DataFile(path: temporary, mode: .readOnly)
    }

    deinit {
        if !finished { FileSystem.remove(temporary) }
    }

    func writeManifest(_ manifest: BundleManifest) throws {
        let bytes = try BundleManifestCodec.encode(manifest)
        try archive.beginEntry(path: EntryPathPolicy.manifestName, size: Int64(bytes.count), modified: manifest.created)
        try bytes.withUnsafeBytes { try archive.write($0) }
        try archive.finishEntry()
    }

    /// Streams the object's file into the bundle in blocks, hashing it on the way (on a
    /// second thread): bytes that no longer match the index are never shipped.
    func writeObject(
        _ entry: BundleManifest.Entry, file path: String, progress: (Int64) -> Void, isCancelled: () -> Bool
    ) throws {
        try writeFile(
            path, as: entry.path, size: entry.size, sha256: entry.sha256, of: entry, progress: progress,
            isCancelled: isCancelled)
    }

    /// Streams the file at `path` into the bundle as `name`, checking that it holds `size`
    /// bytes with SHA-256 `sha256` (what the index, or a title's `title.json`, says).
    func writeFile(
        _ path: String, as name: String, size expectedSize: Int64, sha256 expectedSHA256: String,
        of entry: BundleManifest.Entry, progress: (Int64) -> Void, isCancelled: () -> Bool
    ) throws {
        let file = try DataFile(path: path, mode: .readOnly)
        let size = try file.size()
        guard size == expectedSize else {
            throw BundleError.corruptObject(
                url: entry.url, path: path, reason: "holds \(size) bytes, the index says \(expectedSize)")
        }
        digests.start([.sha256])
        var done: Int64 = 0
        try archive.beginEntry(path: name, size: size, modified: entry.added)
        while try digests.feed(
            fill: { buffer in
                let want = Int(min(Int64(buffer.count), size - done))
                guard want > 0 else { return 0 }
                let n = try file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]), at: done)
                guard n > 0 else {
                    throw BundleError.corruptObject(url: entry.url, path: path, reason: "shrank during the export")
                }
                return n
            },
            use: { block in
                if isCancelled() { throw BundleError.cancelled }
                try archive.write(block)
                done += Int64(block.count)
                writtenSinceWriteback += Int64(block.count)
                if writtenSinceWriteback >= 32 << 20 {
                    output.startWriteback()
                    writtenSinceWriteback = 0
                }
                progress(done)
            })
        {}
        let sha256 = digests.finish()[.sha256]!
        guard sha256 == expectedSHA256 else {
            throw BundleError.corruptObject(
                url: entry.url, path: path, reason: "has SHA-256 \(sha256), the index says \(expectedSHA256)")
        }
        try archive.finishEntry()
    }

    /// Completes the archive, makes it durable and renames it to the destination.
    /// Returns the bundle's size in bytes.
    func finish() throws -> Int64 {
        try archive.close()
        try output.sync()
        try FileSystem.rename(temporary, to: destination)
        finished = true
        let directory = (destination as NSString).deletingLastPathComponent
        try FileSystem.syncDirectory(directory.isEmpty ? "." : directory)
        return FileSystem.fileSize(destination) ?? 0
    }
}
