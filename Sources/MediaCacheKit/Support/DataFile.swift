#if canImport(Glibc)
import Glibc
#endif
import CShims
import Foundation
import Synchronization

/// An open file written at explicit offsets, the C-facing wrapper for the download data
/// file and for hashing: every raw pointer for file I/O stays in this type.
///
/// What may wait for the disk (syncs, reservations, reading or copying whole ranges)
/// traps on a transfer loop's thread; `pwrite`, small reads and `truncate` do not.
public final class DataFile: Sendable {
    /// Where the file is, or (unnamed) will be: for messages.
    public var path: String { name.withLock { $0.path } }
    /// Its path, and whether the file has that name on disk yet.
    private let name: Mutex<(path: String, named: Bool)>
    fileprivate let fd: Int32

    public enum Mode { case readOnly, readWrite }

    /// Opens (and with `.readWrite` creates, mode 0600) the file at `path`. A symbolic
    /// link there is refused (ELOOP), never followed: every file the cache opens is its own.
    public init(path: String, mode: Mode) throws(SystemError) {
        let flags = mode == .readOnly ? O_RDONLY : (O_RDWR | O_CREAT)
        fd = try retryingEINTR("open", path: path) { open(path, flags | O_CLOEXEC | O_NOFOLLOW, 0o600) }
        name = Mutex((path, true))
    }

    private init(fd: Int32, path: String) {
        self.fd = fd
        name = Mutex((path, false))
    }

    /// A new file with no name in `directory` (O_TMPFILE, mode 0600), to be named by
    /// `link(as:)`: if the process dies first, the kernel frees it and nothing is left
    /// to clean up. `path` is the name it will get, for messages. Nil where the file
    /// system cannot make one.
    public static func unnamed(in directory: String, path: String) -> DataFile? {
        let fd = CShims_open_unnamed(directory)
        return fd >= 0 ? DataFile(fd: fd, path: path) : nil
    }

    /// An unnamed file made ahead of time learns the name it will get once a job takes it.
    public func willBeNamed(_ path: String) {
        name.withLock { if !$0.named { $0.path = path } }
    }

    /// Whether the file has a name on disk (always, unless made by `unnamed(in:path:)`).
    public var isNamed: Bool { name.withLock { $0.named } }

    /// Gives an unnamed file the name `path`, replacing a file there.
    public func link(as path: String) throws(SystemError) {
        if try name(as: path) { return }
        // link(2) never replaces: name it beside, then rename over the old file.
        let beside = path + ".new"
        unlink(beside)
        guard try name(as: beside) else { throw SystemError("name", path: beside, code: EEXIST) }
        guard rename(beside, path) == 0 else { throw SystemError("rename", path: path) }
        name.withLock { $0.path = path }
    }

    /// Gives an unnamed file the name `path` unless something has that name: false then.
    public func name(as path: String) throws(SystemError) -> Bool {
        try name.withLock { name throws(SystemError) in
            guard !name.named else { return true }
            if CShims_link_unnamed(fd, path) != 0 {
                if errno == EEXIST { return false }
                throw SystemError("name", path: path)
            }
            name.named = true
            name.path = path
            return true
        }
    }

    public func setPermissions(_ mode: mode_t) throws(SystemError) {
        try retryingEINTR("chmod", path: path) { fchmod(fd, mode) }
    }

    deinit { close(fd) }

    /// Current size in bytes.
    /// Which file this is (device and inode), whatever its name now.
    public func identity() -> FileIdentity? {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    public func size() throws(SystemError) -> Int64 {
        var info = stat()
        try retryingEINTR("stat", path: path) { fstat(fd, &info) }
        return Int64(info.st_size)
    }

    /// Reserves `length` bytes of disk so writes cannot fail half-way for lack of space.
    /// Falls back to `ftruncate` on file systems without `fallocate`.
    public func preallocate(length: Int64) throws(SystemError) {
        LoopThreads.preconditionOff("reserving disk space for \(path)")
        if CShims_fallocate(fd, 0, 0, off_t(length)) == 0 { return }
        if errno == ENOSPC { throw SystemError("preallocate \(length) bytes", path: path) }
        try retryingEINTR("truncate", path: path) { ftruncate(fd, off_t(length)) }
    }

    /// Gives the disk blocks under `range` back (the length stays; they read as zeros).
    /// Best effort: a file system without hole punching keeps them.
    public func releaseBlocks(_ range: ByteRange) {
        LoopThreads.preconditionOff("giving back the disk blocks of \(path)")
        // FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, from linux/falloc.h.
        _ = CShims_fallocate(fd, 0x02 | 0x01, off_t(range.start), off_t(range.count))
    }

    public func truncate(length: Int64) throws(SystemError) {
        try retryingEINTR("truncate", path: path) { ftruncate(fd, off_t(length)) }
    }

    /// Writes all of `bytes` at `offset`.
    public func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(SystemError) {
        var done = 0
        while done < bytes.count {
            let n = try retryingEINTR("write", path: path) {
                pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            }
            done += n
        }
    }

    public func write(_ bytes: [UInt8], at offset: Int64) throws(SystemError) {
        // Through a Result: `withUnsafeBytes` only rethrows an untyped error.
        try bytes.withUnsafeBytes { buffer in Result { () throws(SystemError) in try write(buffer, at: offset) } }.get()
    }

    /// Reads up to `count` bytes at `offset` (fewer at end of file).
    public func read(count: Int, at offset: Int64) throws(SystemError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        let done = try buffer.withUnsafeMutableBytes { bytes in
            Result { () throws(SystemError) in try read(into: bytes, at: offset) }
        }.get()
        buffer.removeLast(count - done)
        return buffer
    }

    /// Fills `buffer` from `offset` and returns the byte count: less than the buffer
    /// holds only at end of file.
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(SystemError) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        var done = 0
        while done < buffer.count {
            let n = try retryingEINTR("read", path: path) {
                pread(fd, base + done, buffer.count - done, off_t(offset) + off_t(done))
            }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Streams `[offset, offset+length)` in blocks without holding the file in memory.
    public func forEachBlock(
        from offset: Int64 = 0, length: Int64, blockSize: Int = 1 << 20,
        _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        LoopThreads.preconditionOff("reading \(path) in blocks")
        // No bigger than the range: a small file's commit hashes it in one small read.
        let blockSize = Int(clamping: max(1, min(Int64(blockSize), length)))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: blockSize, alignment: 16)
        defer { buffer.deallocate() }
        var position = offset
        let end = offset + length
        while position < end {
            let want = Int(min(Int64(blockSize), end - position))
            let n = try retryingEINTR("read", path: path) {
                pread(fd, buffer.baseAddress!, want, off_t(position))
            }
            if n == 0 { throw SystemError("read (file shorter than expected)", path: path, code: EIO) }
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            position += Int64(n)
        }
    }

    /// Copies `range` of this file to `destination` at `offset` inside the kernel.
    public func copy(_ range: ByteRange, to destination: DataFile, at offset: Int64) throws(SystemError) {
        LoopThreads.preconditionOff("copying a range of \(path)")
        var from = off_t(range.start)
        var to = off_t(offset)
        var remaining = range.count
        while remaining > 0 {
            let chunk = Int(min(remaining, 1 << 30))
            let copied = try retryingEINTR("copy_file_range", path: path) {
                CShims_copy_file_range(fd, &from, destination.fd, &to, chunk, 0)
            }
            if copied == 0 { throw SystemError("copy_file_range (source shorter than expected)", path: path, code: EIO) }
            remaining -= Int64(copied)
        }
    }

    /// Flushes written data (not metadata that is not needed to read it back) to disk.
    public func syncData() throws(SystemError) {
        LoopThreads.preconditionOff("fdatasync of \(path)")
        try retryingEINTR("fdatasync", path: path) { fdatasync(fd) }
    }

    /// Asks the kernel to start writing dirty pages out now, without waiting: a later
    /// `sync`/`syncData` then finds little left to do. Best effort (a hint).
    public func startWriteback() {
        _ = CShims_start_writeback(fd)
    }

    public func sync() throws(SystemError) {
        LoopThreads.preconditionOff("fsync of \(path)")
        try retryingEINTR("fsync", path: path) { fsync(fd) }
    }
}
