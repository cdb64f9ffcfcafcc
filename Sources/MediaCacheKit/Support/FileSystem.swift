#if canImport(Glibc)
import Glibc
#endif
import Foundation
import CShims

/// The few file-system operations the cache needs, with the durability Linux requires:
/// `rename(2)` (never `FileManager.replaceItem*`, which loses data on Linux) and
/// directory fsyncs so a rename survives power loss.
enum FileSystem {
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// Which file `path` names (device and inode); nil when none is there.
    static func identity(of path: String) -> FileIdentity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    static func fileSize(_ path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }

    /// Whether `path` itself is a symbolic link (not what it points to).
    static func isSymbolicLink(_ path: String) -> Bool {
        entryType(path) == S_IFLNK
    }

    /// What is at `path` itself (`S_IFDIR`, `S_IFLNK`, `S_IFREG`…; a link is not
    /// followed), or nil when nothing is: one `lstat`.
    static func entryType(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : nil
    }

    /// What a name in the cache leads to, as one `lstat` (links not followed) tells it.
    /// A name this process may not look at (EACCES, EIO) is `unreachable`, never
    /// `missing`: what is behind it may be intact, and must not be forgotten.
    enum Entry {
        case regularFile
        case missing
        /// A directory, a link, a FIFO…: not a file the cache made.
        case other
        case unreachable(SystemError)
    }

    static func entry(_ path: String) -> Entry {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            let code = errno
            return code == ENOENT || code == ENOTDIR ? .missing : .unreachable(SystemError("look at", path: path, code: code))
        }
        return info.st_mode & S_IFMT == S_IFREG ? .regularFile : .other
    }

    /// Bytes the files directly inside `directory` take on disk (a preallocated data file
    /// counts what is allocated, not its length).
    static func diskUsage(ofDirectory directory: String) -> Int64 {
        contentsOfDirectory(directory).reduce(Int64(0)) { total, name in
            var info = stat()
            return lstat(directory + "/" + name, &info) == 0 ? total + Int64(info.st_blocks) * 512 : total
        }
    }

    /// When anything directly inside `directory` (or the directory itself) last changed.
    static func lastModification(inDirectory directory: String) -> Date? {
        ([directory] + contentsOfDirectory(directory).map { directory + "/" + $0 }).compactMap(lastModification(of:)).max()
    }

    /// When what is at `path` itself (a link not followed) last changed.
    static func lastModification(of path: String) -> Date? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
    }

    /// Bytes an unprivileged writer may still use on the file system holding `path`.
    static func freeBytes(_ path: String) -> Int64? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    /// The size of the whole file system holding `path`.
    static func capacityBytes(_ path: String) -> Int64? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        return Int64(info.f_blocks) * Int64(info.f_frsize)
    }

    /// Whether `path` lies on a file system mounted read-only (root can write anywhere
    /// else, so permission bits do not tell).
    static func isOnReadOnlyFileSystem(_ path: String) -> Bool {
        var info = statvfs()
        return statvfs(path, &info) == 0 && info.f_flag & UInt(ST_RDONLY) != 0
    }

    /// Creates `path` and its parents with mode 0700 (state may hold tokens).
    /// The directory `path` is in, as `NSString.deletingLastPathComponent` gives it
    /// (`/a/b` for `/a/b/c`, `/` for `/a`, empty for `a`), without bridging to NSString:
    /// a commit group asks it for every object.
    static func parent(of path: String) -> String {
        var bytes = Array(path.utf8)
        while bytes.count > 1, bytes.last == UInt8(ascii: "/") { bytes.removeLast() }
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        var end = slash
        while end > 0, bytes[end - 1] == UInt8(ascii: "/") { end -= 1 }
        return end == 0 ? "/" : String(decoding: bytes[..<end], as: UTF8.self)
    }

    /// `durable: false` leaves the new entry's fsync to the caller, who does it only
    /// once something inside must survive power loss. A folder inside the cache is never
    /// a symbolic link (`replacingLink`): one planted there would lead writes outside it,
    /// so the link is removed (never followed) and a folder made in its place.
    /// Whether the directory was made here (false: it was there already).
    @discardableResult
    static func makeDirectory(_ path: String, durable: Bool = true, replacingLink: Bool = false) throws(SystemError) -> Bool {
        if replacingLink && isSymbolicLink(path) { unlink(path) }
        if exists(path) { return false }
        let parent = Self.parent(of: path)
        if !parent.isEmpty && parent != path { try makeDirectory(parent) }
        if mkdir(path, 0o700) != 0 {
            if errno == EEXIST { return false }
            throw SystemError("create directory", path: path)
        }
        // The new entry must survive power loss before anything inside it is relied on.
        if durable && !parent.isEmpty { try syncDirectory(parent) }
        return true
    }

    /// Creates an empty file with mode 0600 unless `path` exists (false then); failures
    /// are left to whoever opens it next, which reports them with context.
    @discardableResult
    static func createPrivateFile(_ path: String) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd >= 0 { close(fd) }
        return fd >= 0
    }

    /// Atomically replaces `destination` with `source`.
    static func rename(_ source: String, to destination: String) throws(SystemError) {
        try retryingEINTR("rename", path: "\(source) -> \(destination)") {
            Glibc.rename(source, destination)
        }
    }

    /// Makes a completed rename or file creation in `directory` durable.
    static func syncDirectory(_ directory: String) throws(SystemError) {
        LoopThreads.preconditionOff("fsync of the directory \(directory)")
        let fd = try retryingEINTR("open directory", path: directory) {
            open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        }
        defer { close(fd) }
        try retryingEINTR("fsync directory", path: directory) { fsync(fd) }
    }

    /// Flushes every dirty file and directory of the file system holding `directory`:
    /// one device flush for a whole group of small files instead of one each.
    static func syncFileSystem(containing directory: String) throws(SystemError) {
        LoopThreads.preconditionOff("syncfs of the file system holding \(directory)")
        let fd = try retryingEINTR("open directory", path: directory) {
            open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        }
        defer { close(fd) }
        try retryingEINTR("syncfs", path: directory) { CShims_syncfs(fd) }
    }

    /// Writes `bytes` durably: temporary file, fsync, rename, directory fsync.
    static func writeAtomically(_ bytes: [UInt8], to path: String) throws(SystemError) {
        try writeTemporary(bytes, for: path).sync()
        try rename(temporaryPath(for: path), to: path)
        try syncDirectory(Self.parent(of: path))
    }

    /// Writes each of `files` (all in `directory`) durably as `writeAtomically` does,
    /// together with every other dirty file of its file system: one `syncfs` and one
    /// directory fsync for the lot instead of two fsyncs a file.
    static func writeAtomicallyFlushingFileSystem(
        _ files: [(bytes: [UInt8], path: String)], in directory: String
    ) throws(SystemError) {
        for (bytes, path) in files { _ = try writeTemporary(bytes, for: path) }
        try syncFileSystem(containing: directory)
        for (_, path) in files { try rename(temporaryPath(for: path), to: path) }
        try syncDirectory(directory)
    }

    /// Where `path` is written before it is renamed into place.
    private static func temporaryPath(for path: String) -> String { path + ".tmp" }

    /// `bytes` in `path`'s temporary file, not flushed.
    private static func writeTemporary(_ bytes: [UInt8], for path: String) throws(SystemError) -> DataFile {
        let file = try DataFile(path: temporaryPath(for: path), mode: .readWrite)
        try file.truncate(length: 0)
        try file.write(bytes, at: 0)
        return file
    }

    /// Replaces `path` with `bytes` in one rename, not flushed: another process reading
    /// it sees the old file or the new one whole, never a mix.
    static func replace(_ path: String, with bytes: [UInt8]) throws(SystemError) {
        _ = try writeTemporary(bytes, for: path)
        try rename(temporaryPath(for: path), to: path)
    }

    /// `bytes` as the whole of `path`, not flushed (a commit flushes it with the rest).
    static func writeFile(_ bytes: [UInt8], to path: String) throws(SystemError) {
        let file = try DataFile(path: path, mode: .readWrite)
        if try file.size() > 0 { try file.truncate(length: 0) }
        try file.write(bytes, at: 0)
    }

    static func readAll(_ path: String) throws(SystemError) -> [UInt8] {
        let file = try DataFile(path: path, mode: .readOnly)
        return try file.read(count: Int(try file.size()), at: 0)
    }

    static func remove(_ path: String) {
        unlink(path)
    }

    /// Off the loop: a tree of many files (a title, a large preallocated file) takes long.
    static func removeTree(_ path: String) {
        LoopThreads.preconditionOff("removing \(path)")
        try? FileManager.default.removeItem(atPath: path)
    }

    static func contentsOfDirectory(_ path: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
    }
}
