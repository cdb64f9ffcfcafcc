import Foundation

/// An object being imported: a temporary file inside the cache
/// (`partial/import-<random>`), `flock`ed for as long as this process may still use it,
/// so `gc`, `stats` and a later import can tell an abandoned one (after `kill -9`) from a
/// live one. Removed unless published (the `CommitBatcher` renames it into `objects/`).
final class StagedObject {
    static let prefix = "import-"

    let path: String
    private let lock: FileLock
    private let file: DataFile
    private(set) var size: Int64 = 0
    private var renamed = false

    init(cache: CacheDirectory) throws {
        (path, lock) = try Self.createLocked(in: cache)
        do {
            file = try DataFile(path: path, mode: .readWrite)
        } catch {
            FileSystem.remove(path)
            throw error
        }
    }

    /// A new temporary file, locked. `gc` may lock and remove a file between its
    /// creation and this process locking it (it looks abandoned then): that one is given
    /// up for a new name.
    private static func createLocked(in cache: CacheDirectory) throws -> (String, FileLock) {
        var path = ""
        for _ in 0..<100 {
            let random = (0..<2).map { _ in String(UInt64.random(in: 0...UInt64.max), radix: 16) }.joined(separator: "-")
            path = cache.partialDirectory + "/" + prefix + random
            let lock = try FileLock.acquire(path: path)
            if lock.isStillAtPath { return (path, lock) }
        }
        throw SystemError("lock new temporary file", path: path, code: ENOENT)
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

    /// A temporary file of an import, live or left behind by one that was killed.
    struct Leftover {
        let path: String
        let size: Int64
    }

    /// Every import's temporary file, for `stats`.
    /// A title's staging folder (`StagedTitle`) is counted with the file that locks it.
    static func all(in cache: CacheDirectory) -> [Leftover] {
        let titleSuffix = StagedTitle.folderSuffix
        return FileSystem.contentsOfDirectory(cache.partialDirectory)
            .filter { $0.hasPrefix(prefix) && !$0.hasSuffix(titleSuffix) }
            .map {
                let path = cache.partialDirectory + "/" + $0
                let folder = TitleOnDisk.storedBytes(path + titleSuffix)
                return Leftover(path: path, size: (FileSystem.fileSize(path) ?? 0) + folder)
            }
    }

    /// Temporary files no live import holds (it was killed before it could clean up).
    static func abandoned(in cache: CacheDirectory) -> [Leftover] {
        abandoned(in: cache) { _ in }
    }

    /// Removes the temporary files no live import holds, at once: the lock, not the
    /// file's age, tells a killed import from a live one. Returns what was removed.
    @discardableResult
    static func removeAbandoned(in cache: CacheDirectory) -> [Leftover] {
        abandoned(in: cache) { leftover in
            FileSystem.removeTree(leftover.path + StagedTitle.folderSuffix)
            FileSystem.remove(leftover.path)
        }
    }

    /// Hands each abandoned file to `body` while holding its lock, so no import can take
    /// it meanwhile. Probes open without creating: an import may publish or remove its
    /// file at any moment.
    private static func abandoned(in cache: CacheDirectory, _ body: (Leftover) -> Void) -> [Leftover] {
        all(in: cache).filter { leftover in
            guard let lock = try? FileLock.tryAcquire(path: leftover.path, create: false) else { return false }
            return withExtendedLifetime(lock) {
                guard lock.isStillAtPath else { return false }
                body(leftover)
                return true
            }
        }
    }
}
