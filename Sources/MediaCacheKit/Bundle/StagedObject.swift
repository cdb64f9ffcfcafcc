import Foundation

/// An object being imported: a temporary file inside the cache
/// (`partial/import-<random>`), `flock`ed for as long as this process may still use it,
/// so a later import can tell an abandoned one (after `kill -9`) from a live one.
/// Removed unless published (the `CommitBatcher` renames it into `objects/`).
final class StagedObject {
    static let prefix = "import-"

    let path: String
    private let lock: FileLock
    private let file: DataFile
    private(set) var size: Int64 = 0
    private var renamed = false

    init(cache: CacheDirectory) throws {
        let random = (0..<2).map { _ in String(UInt64.random(in: 0...UInt64.max), radix: 16) }.joined(separator: "-")
        path = cache.partialDirectory + "/" + Self.prefix + random
        guard let lock = try FileLock.tryAcquire(path: path) else {
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
        size += Int64(bytes.count)
    }

    /// Starts writing the bytes out, so the commit group's flush finds them (mostly) on disk.
    func startWriteback() { file.startWriteback() }

    /// Called once the commit renamed the file: it is no longer ours to remove.
    func published() { renamed = true }

    /// Removes temporary files that imports killed before they could clean up left
    /// behind: unlocked, and untouched for a minute (so one just created, not yet
    /// locked, is never taken).
    static func removeAbandoned(in cache: CacheDirectory, olderThan age: TimeInterval = 60) {
        let now = Date()
        for name in FileSystem.contentsOfDirectory(cache.partialDirectory) where name.hasPrefix(prefix) {
            let path = cache.partialDirectory + "/" + name
            guard let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date,
                now.timeIntervalSince(modified) > age,
                let lock = try? FileLock.tryAcquire(path: path)
            else { continue }
            FileSystem.remove(path)
            withExtendedLifetime(lock) {}
        }
    }
}
