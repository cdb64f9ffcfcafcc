import Foundation
import Synchronization
import GRDB

/// What a rebuild of a damaged index did, for the user to read.
public struct IndexRebuild: Sendable, CustomStringConvertible {
    public var indexPath: String
    public var damagedCopy: String
    public var reason: String
    public var objects: Int
    public var bytes: Int64

    public var description: String {
        "the cache index \(indexPath) was damaged (\(reason)); it was moved to \(damagedCopy) and rebuilt from the "
            + "\(objects) objects in objects/ (\(ByteCount.format(bytes)), hashes recomputed). They are found by URL "
            + "or cache key as before; mirrors and list names come back when the list is prefetched again"
    }
}

/// Where rebuild reports go: the command line prints them; nothing is printed here.
public enum IndexNotices {
    private static let handler = Mutex<(@Sendable (IndexRebuild) -> Void)?>(nil)

    public static func observe(_ handler: @escaping @Sendable (IndexRebuild) -> Void) {
        Self.handler.withLock { $0 = handler }
    }

    static func post(_ rebuild: IndexRebuild) {
        handler.withLock { $0 }?(rebuild)
    }
}

/// Recreates `index.sqlite` from the files in `objects/` when it is damaged (garbage,
/// cut short, emptied). An object's file name is its key (SHA-256 of its cache key),
/// so every object is found again by its URL or cache key; its size and SHA-256 are
/// taken from the file. What the file name cannot tell (the URL text, mirrors, `out=`
/// name) is filled in when the object is next prefetched. Nothing is deleted.
struct IndexRebuilder {
    let directory: CacheDirectory

    /// Why the index at `error`'s origin cannot be used, if the file itself is damaged.
    static func damage(in error: Error) -> String? {
        guard let error = error as? DatabaseError else { return nil }
        switch error.resultCode {
        case .SQLITE_NOTADB: return "not an SQLite database"
        case .SQLITE_CORRUPT: return "the database is malformed"
        default: return nil
        }
    }

    /// Damage SQLite finds only when a query reads the damaged pages: the index opened,
    /// but what it holds cannot be trusted. Noted beside it, so the next open rebuilds it
    /// (this process's connections stay on the damaged file until they close).
    static func noteDamage(_ damage: String, _ directory: CacheDirectory) {
        try? FileSystem.replace(damageNotePath(directory), with: Array(damage.utf8))
    }

    /// The damage a query found, when one did and no rebuild has followed.
    static func notedDamage(_ directory: CacheDirectory) -> String? {
        guard let bytes = try? FileSystem.readAll(damageNotePath(directory)) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func damageNotePath(_ directory: CacheDirectory) -> String { directory.indexPath + ".rebuild" }

    /// An index file emptied behind our back opens as a fresh database: without this
    /// check every object would look like an orphan for `gc` to delete.
    static func isEmptied(_ directory: CacheDirectory) -> Bool {
        FileSystem.fileSize(directory.indexPath) == 0 && hasUnindexedObject(directory)
    }

    /// Why an index that opened is still not to be trusted: it lists no object while
    /// `objects/` holds some (cut short, or replaced by an empty database).
    static func problem(in pool: DatabasePool, _ directory: CacheDirectory) throws -> String? {
        let listsObjects = try pool.read { try Bool.fetchOne($0, sql: "SELECT EXISTS (SELECT 1 FROM objects)") ?? false }
        return !listsObjects && hasUnindexedObject(directory) ? "it lists no object while objects/ holds some" : nil
    }

    /// An object file no commit is working on: a commit renames its file before it
    /// inserts the row, holding the job lock throughout.
    private static func hasUnindexedObject(_ directory: CacheDirectory) -> Bool {
        directory.objectFiles().contains { relative in
            let name = (relative as NSString).lastPathComponent
            guard let key = CacheKey(hex: String(name.prefix(64))) else { return false }
            return (try? KeyLock.tryAcquire(key: key, in: directory)) != nil
        }
    }

    /// Under a lock (another process may be rebuilding too): moves the damaged index
    /// aside, opens a new one with `open`, and adds a row for every object file.
    func rebuild(reason: String, open: (String) throws -> DatabasePool) throws -> DatabasePool {
        let path = directory.indexPath
        try? FileSystem.makeDirectory(directory.locksDirectory)
        let lock = try FileLock.acquire(path: directory.locksDirectory + "/index-rebuild")
        return try withExtendedLifetime(lock) {
            // Another process may have rebuilt it while this one waited.
            if !Self.isEmptied(directory), Self.notedDamage(directory) == nil, let pool = try? open(path) {
                if (try? Self.problem(in: pool, directory)) == .some(nil) { return pool }
                try? pool.close()
            }
            let damaged = path + ".damaged"
            try FileSystem.rename(path, to: damaged)
            // A stale WAL would be replayed into the new file: it goes with the damaged one.
            if FileSystem.exists(path + "-wal") { try FileSystem.rename(path + "-wal", to: damaged + "-wal") }
            FileSystem.remove(path + "-shm")
            let pool = try open(path)
            var report = IndexRebuild(indexPath: path, damagedCopy: damaged, reason: reason, objects: 0, bytes: 0)
            for relative in directory.objectFiles() {
                guard let object = try recovered(relative) ?? recoveredTitle(relative) else { continue }
                // The key itself names it until its cache key is known again (`gc` evicts by
                // name); a title's manifest knows its URL: when that is its cache key, it too.
                let aliases = [object.key] + (!object.url.isEmpty && object.cacheKey == object.url ? [object.url] : [])
                try pool.write { db in try CacheIndex.record([(object, aliases)], in: db) }
                report.objects += 1
                report.bytes += object.size
            }
            FileSystem.remove(Self.damageNotePath(directory))
            IndexNotices.post(report)
            return pool
        }
    }

    /// A row for a title's directory `objects/ab/<key>.title` from its `title.json`
    /// (URL, entry, members), when that reads as a manifest and its entry is there; its
    /// SHA-256 is the manifest's, as at commit. A damaged one is left out, as a damaged
    /// file is: `verify` and `gc` see it as an orphan.
    private func recoveredTitle(_ relative: String) throws -> CachedObject? {
        let name = (relative as NSString).lastPathComponent
        guard name.hasSuffix("." + CachedObject.titleDirectoryExtension), let key = CacheKey(hex: String(name.prefix(64))),
            name.dropFirst(64) == "." + CachedObject.titleDirectoryExtension,
            TitleOnDisk.kind(directory.absolute(relative)) == .directory
        else { return nil }
        let manifestPath = directory.absolute(relative + "/" + TitleManifest.fileName)
        guard TitleOnDisk.kind(manifestPath) == .regularFile, let size = FileSystem.fileSize(manifestPath),
            size <= Int64(TitleOnDisk.maximumManifestSize), let bytes = try? FileSystem.readAll(manifestPath),
            let manifest = try? TitleManifest.decode(bytes, path: manifestPath),
            manifest.entry == TitleLayout.entry(for: manifest.format),
            manifest.members.allSatisfy({ TitleOnDisk.isSafeMemberPath($0.path) })
        else { return nil }
        let entry = relative + "/" + manifest.entry
        guard TitleOnDisk.kind(directory.absolute(entry)) == .regularFile else { return nil }
        let modified = FileSystem.lastModification(of: manifestPath) ?? Date()
        // The URL names the title again only when it was its cache key (no `cache-key=`).
        let url = URLCredentials.withoutPassword(manifest.url)
        let cacheKey = CacheKey(identity: url) == key ? url : key.hex
        return CachedObject(
            key: key, cacheKey: cacheKey, path: entry, size: manifest.totalSize(manifestBytes: bytes.count),
            sha256: Digest.sha256Hex(bytes), faststart: .streamingTitle, url: url,
            contentType: manifest.format.mediaType,
            addedAt: modified, lastUsedAt: modified)
    }

    /// A row for `objects/ab/<key>[.ext]`: the URL is not known yet (empty), the cache
    /// key stands in as the key itself.
    private func recovered(_ relative: String) throws -> CachedObject? {
        let name = (relative as NSString).lastPathComponent
        let absolute = directory.absolute(relative)
        guard let key = CacheKey(hex: String(name.prefix(64))), name.count == 64 || name.dropFirst(64).first == ".",
            FileSystem.isRegularFile(absolute)
        else { return nil }
        let file = try DataFile(path: absolute, mode: .readOnly)
        let size = try file.size()
        let sha256 = try FileDigester.digest(file, length: size, algorithms: [.sha256])[.sha256]!
        let modified = (try? FileManager.default.attributesOfItem(atPath: absolute)[.modificationDate] as? Date) ?? Date()
        return CachedObject(
            key: key, cacheKey: key.hex, path: relative, size: size, sha256: sha256,
            faststart: .lostInIndexRebuild, addedAt: modified, lastUsedAt: modified)
    }
}
