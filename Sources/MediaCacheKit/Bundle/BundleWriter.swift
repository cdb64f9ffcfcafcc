import Foundation

/// Writes a bundle — `manifest.json`, then each object — to a temporary name beside the
/// destination, and renames it into place only when it is complete and on disk. An
/// unfinished bundle (error, cancellation) is removed; the destination never holds half
/// a bundle.
final class BundleWriter {
    let destination: String
    let temporary: String
    private let archive: ArchiveWriter
    private var finished = false

    /// zstd worker threads in use (1 when libarchive does not offer more).
    var compressionThreads: Int { archive.compressionThreads }

    init(destination: String, level: Int, threads: Int) throws(BundleError) {
        self.destination = destination
        let directory = (destination as NSString).deletingLastPathComponent
        let base = (destination as NSString).lastPathComponent
        let random = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        temporary = (directory.isEmpty ? "" : directory + "/") + "." + base + ".partial-" + random
        archive = try ArchiveWriter(path: temporary, bundle: destination, level: level, threads: threads)
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

    /// Streams the object's file into the bundle in blocks, hashing it on the way: bytes
    /// that no longer match the index are never shipped.
    func writeObject(
        _ entry: BundleManifest.Entry, file path: String, progress: (Int64) -> Void, isCancelled: () -> Bool
    ) throws {
        let file = try DataFile(path: path, mode: .readOnly)
        let size = try file.size()
        guard size == entry.size else {
            throw BundleError.corruptObject(
                url: entry.url, path: path, reason: "holds \(size) bytes, the index says \(entry.size)")
        }
        let digest = Digest(.sha256)
        var done: Int64 = 0
        try archive.beginEntry(path: entry.path, size: entry.size, modified: entry.added)
        try file.forEachBlock(length: entry.size) { block in
            if isCancelled() { throw BundleError.cancelled }
            digest.update(block)
            try archive.write(block)
            done += Int64(block.count)
            progress(done)
        }
        let sha256 = digest.finalizeHex()
        guard sha256 == entry.sha256 else {
            throw BundleError.corruptObject(
                url: entry.url, path: path, reason: "has SHA-256 \(sha256), the index says \(entry.sha256)")
        }
        try archive.finishEntry()
    }

    /// Completes the archive, makes it durable and renames it to the destination.
    /// Returns the bundle's size in bytes.
    func finish() throws -> Int64 {
        try archive.close()
        try DataFile(path: temporary, mode: .readOnly).sync()
        try FileSystem.rename(temporary, to: destination)
        finished = true
        let directory = (destination as NSString).deletingLastPathComponent
        try FileSystem.syncDirectory(directory.isEmpty ? "." : directory)
        return FileSystem.fileSize(destination) ?? 0
    }
}
