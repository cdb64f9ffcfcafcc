#if canImport(Glibc)
import Glibc
#endif

/// An advisory `flock` on a file: an import's temporary file while the import lives,
/// `locks/index-setup` while the index is opened and migrated, and `locks/index-rebuild`
/// while it is rebuilt. (Cache keys use `KeyLock`.)
/// Released on close, and by the kernel when the process dies (so `kill -9` never leaves
/// a stale lock).
public final class FileLock: Sendable {
    private let fd: Int32
    public let path: String

    /// Takes the lock without waiting; nil if another process holds it. With `create:
    /// false`, a missing file throws instead of being created (for probing files that
    /// their owner may rename or remove at any moment).
    public static func tryAcquire(path: String, create: Bool = true) throws -> FileLock? {
        let flags = O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0)
        let fd = try retryingEINTR("open lock", path: path) { open(path, flags, 0o600) }
        if flock(fd, LOCK_EX | LOCK_NB) == 0 { return FileLock(fd: fd, path: path) }
        let code = errno
        close(fd)
        if code == EWOULDBLOCK { return nil }
        throw SystemError("lock", path: path, code: code)
    }

    /// Takes the lock, waiting for another process to release it.
    public static func acquire(path: String) throws -> FileLock {
        let fd = try retryingEINTR("open lock", path: path) { open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
        do {
            try retryingEINTR("lock", path: path) { flock(fd, LOCK_EX) }
        } catch {
            close(fd)
            throw error
        }
        return FileLock(fd: fd, path: path)
    }

    /// Whether `path` still names the locked file: whoever took the lock between this
    /// process opening the file and locking it may have removed it meanwhile.
    public var isStillAtPath: Bool {
        var held = stat()
        var named = stat()
        return fstat(fd, &held) == 0 && stat(path, &named) == 0 && held.st_dev == named.st_dev
            && held.st_ino == named.st_ino
    }

    private init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
