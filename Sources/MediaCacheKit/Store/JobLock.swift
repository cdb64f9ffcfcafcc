#if canImport(Glibc)
import Glibc
#endif

/// An advisory `flock` on `locks/<key>`: held while a process downloads or commits a
/// job, so two processes never fetch the same object at once. Released on close, and by
/// the kernel when the process dies (so `kill -9` never leaves a stale lock).
public final class JobLock: @unchecked Sendable {
    private let fd: Int32
    public let path: String

    /// Takes the lock without waiting; nil if another process holds it.
    public static func tryAcquire(path: String) throws -> JobLock? {
        let fd = try retryingEINTR("open lock", path: path) { open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
        if flock(fd, LOCK_EX | LOCK_NB) == 0 { return JobLock(fd: fd, path: path) }
        let code = errno
        close(fd)
        if code == EWOULDBLOCK { return nil }
        throw SystemError("lock", path: path, code: code)
    }

    /// Takes the lock, waiting for another process to release it.
    public static func acquire(path: String) throws -> JobLock {
        let fd = try retryingEINTR("open lock", path: path) { open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
        do {
            try retryingEINTR("lock", path: path) { flock(fd, LOCK_EX) }
        } catch {
            close(fd)
            throw error
        }
        return JobLock(fd: fd, path: path)
    }

    /// Writes this process's pid into a dedicated lock file, so a waiting process can
    /// say who holds it. Never call it on a lock taken on a data file.
    public func recordHolder() {
        let pid = Array("\(getpid())\n".utf8)
        ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    }

    /// The pid recorded by the process that holds (or last held) the lock at `path`.
    public static func holder(path: String) -> Int32? {
        guard let bytes = try? FileSystem.readAll(path) else { return nil }
        return Int32(String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
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

import Foundation
