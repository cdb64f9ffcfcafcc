#if canImport(Glibc)
import Glibc
#endif

/// An advisory `flock` on a file: an import's temporary file while the import lives, and
/// `locks/index-rebuild` while the index is rebuilt. (Cache keys use `KeyLock`.)
/// Released on close, and by the kernel when the process dies (so `kill -9` never leaves
/// a stale lock).
public final class FileLock: @unchecked Sendable {
    private let fd: Int32
    public let path: String

    /// Takes the lock without waiting; nil if another process holds it.
    public static func tryAcquire(path: String) throws -> FileLock? {
        let fd = try retryingEINTR("open lock", path: path) { open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
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

    private init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
