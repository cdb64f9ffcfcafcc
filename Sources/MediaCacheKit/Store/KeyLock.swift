#if canImport(Glibc)
import Glibc
#endif
import CShims
import Foundation
import Synchronization

/// Held while a process downloads, imports or removes the object of one cache key, so
/// two never work on it at once: a POSIX record lock on one byte of `locks/keys`, at an
/// offset taken from the key. The file is opened once per process, so a job costs two
/// `fcntl`s instead of a lock file of its own (creating thousands of inodes was a fifth
/// of the time of a list of small files). Unlike `flock` and OFD locks, a record lock
/// tells a waiting process who holds it (`holder`). Released when dropped, and by the
/// kernel when the process dies, so `kill -9` never leaves a stale lock.
public final class KeyLock: Sendable {
    public let key: CacheKey
    private let table: KeyLockTable
    private let offset: off_t

    /// Takes the lock without waiting; nil if another process, or another job of this
    /// one, holds it.
    public static func tryAcquire(key: CacheKey, in cache: CacheDirectory) throws -> KeyLock? {
        let table = try KeyLockTable.forCache(cache)
        let offset = Self.offset(of: key)
        guard try table.tryLock(offset) else { return nil }
        return KeyLock(key: key, table: table, offset: offset)
    }

    /// The pid of the process holding the lock of `key` (this one's, if it holds it
    /// itself); nil when nobody does or it cannot be told.
    public static func holder(of key: CacheKey, in cache: CacheDirectory) -> Int32? {
        (try? KeyLockTable.forCache(cache))?.holder(offset(of: key))
    }

    /// 60 bits of the key (itself a SHA-256): distinct keys practically never share a byte.
    static func offset(of key: CacheKey) -> off_t {
        off_t(UInt64(key.hex.prefix(15), radix: 16) ?? 0)
    }

    private init(key: CacheKey, table: KeyLockTable, offset: off_t) {
        self.key = key
        self.table = table
        self.offset = offset
    }

    deinit { table.unlock(offset) }
}

/// One open `locks/keys` per cache directory for the life of the process, and the
/// offsets this process holds in it. Record locks belong to the process, not to the
/// descriptor, so they do not keep two jobs of one process apart: `held` does. The file
/// is never closed, because closing any descriptor of it would drop every lock the
/// process holds there.
private final class KeyLockTable: Sendable {
    private struct FileID: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    /// Tables by file, and by the path they were last found at.
    private static let tables = Mutex<(byFile: [FileID: KeyLockTable], byPath: [String: KeyLockTable])>(([:], [:]))

    /// By device and inode, not by path: one cache reached by two spellings of its path
    /// must still share one table (and a second descriptor could never be closed). A path
    /// seen before needs no `stat`: a job of a list of small files starts every few
    /// hundred microseconds.
    static func forCache(_ cache: CacheDirectory) throws -> KeyLockTable {
        let path = cache.locksDirectory + "/keys"
        return try tables.withLock { tables throws(SystemError) in
            if let table = tables.byPath[path] { return table }
            var info = stat()
            if stat(path, &info) == 0, let table = tables.byFile[FileID(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))] {
                tables.byPath[path] = table
                return table
            }
            let fd = try retryingEINTR("open lock file", path: path) { open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
            guard fstat(fd, &info) == 0 else {
                let code = errno
                close(fd)
                throw SystemError("stat", path: path, code: code)
            }
            let table = KeyLockTable(fd: fd, path: path)
            tables.byFile[FileID(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))] = table
            tables.byPath[path] = table
            return table
        }
    }

    private let fd: Int32
    private let path: String
    /// Offsets this process holds (a second job of the process must not take them).
    private let held = Mutex<Set<off_t>>([])

    private init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    func tryLock(_ offset: off_t) throws(SystemError) -> Bool {
        try held.withLock { held throws(SystemError) in
            if held.contains(offset) { return false }
            if CShims_lock_byte(fd, offset) != 0 {
                let code = errno
                if code == EAGAIN || code == EACCES { return false }
                throw SystemError("lock", path: path, code: code)
            }
            held.insert(offset)
            return true
        }
    }

    func unlock(_ offset: off_t) {
        held.withLock { held in
            _ = CShims_unlock_byte(fd, offset)
            held.remove(offset)
        }
    }

    func holder(_ offset: off_t) -> Int32? {
        if held.withLock({ $0.contains(offset) }) { return getpid() }
        let pid = CShims_byte_lock_holder(fd, offset)
        return pid > 0 ? pid : nil
    }
}
