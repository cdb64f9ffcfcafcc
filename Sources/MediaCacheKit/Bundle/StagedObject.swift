import Foundation

/// An object being imported: a temporary file inside the cache
/// (`partial/import-<random>`), hashed while it is written, and `flock`ed for as long as
/// this process may still use it, so a later import can tell an abandoned one (after
/// `kill -9`) from a live one. Removed unless committed.
final class StagedObject {
    static let prefix = "import-"

    let path: String
    private let lock: JobLock
    private let file: DataFile
    private let digest = Digest(.sha256)
    private(set) var size: Int64 = 0
    private var renamed = false

    init(cache: CacheDirectory) throws {
        let random = (0..<2).map { _ in String(UInt64.random(in: 0...UInt64.max), radix: 16) }.joined(separator: "-")
        path = cache.partialDirectory + "/" + Self.prefix + random
        guard let lock = try JobLock.tryAcquire(path: path) else {
            throw SystemError("lock new temporary file", path: path, code: EEXIST)
        }
        self.lock = lock
        do {
            file = try DataFile(path: path, mode: .readWrite)
        } catch {
            FileSystem.remove(path)
            throw error
        }
    }

    deinit {
        if !renamed { FileSystem.remove(path) }
    }

    func append(_ bytes: UnsafeRawBufferPointer) throws {
        try file.write(bytes, at: size)
        digest.update(bytes)
        size += Int64(bytes.count)
    }

    /// The SHA-256 of everything appended; call once.
    func sha256() -> String { digest.finalizeHex() }

    /// Flushes the data, then renames the file to `destination` (same file system) and
    /// makes the rename durable. The caller records the index row afterwards.
    func move(to destination: String) throws {
        try file.syncData()
        let directory = (destination as NSString).deletingLastPathComponent
        try FileSystem.makeDirectory(directory)
        try FileSystem.rename(path, to: destination)
        renamed = true
        try FileSystem.syncDirectory(directory)
    }

    /// Removes temporary files that imports killed before they could clean up left
    /// behind: unlocked, and untouched for a minute (so one just created, not yet
    /// locked, is never taken).
    static func removeAbandoned(in cache: CacheDirectory, olderThan age: TimeInterval = 60) {
        let now = Date()
        for name in FileSystem.contentsOfDirectory(cache.partialDirectory) where name.hasPrefix(prefix) {
            let path = cache.partialDirectory + "/" + name
            guard let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date,
                now.timeIntervalSince(modified) > age,
                let lock = try? JobLock.tryAcquire(path: path)
            else { continue }
            FileSystem.remove(path)
            withExtendedLifetime(lock) {}
        }
    }
}
