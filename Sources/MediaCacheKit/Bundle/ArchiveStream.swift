import CArchive
import CShims
import Foundation

// The only file that talks to libarchive. Every result passes through `ArchiveCheck`,
// which turns codes into `BundleError`s naming the bundle and the entry.

/// Turns a libarchive result into a typed error.
private struct ArchiveCheck {
    let archive: OpaquePointer
    let bundle: String

    /// Throws for anything worse than `ARCHIVE_WARN` (and for warnings unless allowed).
    func callAsFunction(
        _ code: Int32, _ operation: String, entry: String? = nil, allowWarning: Bool = false
    ) throws(BundleError) {
        if code == ARCHIVE_OK || (allowWarning && code == ARCHIVE_WARN) { return }
        throw error(operation, entry: entry)
    }

    func error(_ operation: String, entry: String?) -> BundleError {
        let code = archive_errno(archive)
        var message = archive_error_string(archive).map { String(cString: $0) } ?? "libarchive error \(code)"
        // libarchive's "Failed to open 'PATH'" does not say why: the system does.
        if code > 0, let reason = strerror(code).map({ String(cString: $0) }), !message.contains(reason) {
            message += ": " + reason
        }
        return .archive(bundle: bundle, entry: entry, operation: operation, message: message)
    }
}

/// Writes a pax tar compressed with zstd, one regular file at a time, streaming.
final class ArchiveWriter {
    private let archive: OpaquePointer
    private let check: ArchiveCheck
    private var entryName: String?
    /// zstd worker threads libarchive accepted (1 when it does not offer the option).
    private(set) var compressionThreads = 1

    /// Creates (or truncates) `path`. `level` is zstd's (1–19); `threads` > 1 asks for
    /// multi-threaded compression and falls back to one thread if it is not offered.
    init(path: String, bundle: String, level: Int, threads: Int) throws(BundleError) {
        guard let archive = archive_write_new() else {
            throw .archive(bundle: bundle, entry: nil, operation: "create writer", message: "out of memory")
        }
        self.archive = archive
        check = ArchiveCheck(archive: archive, bundle: bundle)
        try check(archive_write_set_format_pax_restricted(archive), "select pax format")
        try check(archive_write_add_filter_zstd(archive), "select zstd compression")
        try check(
            archive_write_set_filter_option(archive, "zstd", "compression-level", String(level)),
            "set zstd level \(level)")
        if threads > 1,
            archive_write_set_filter_option(archive, "zstd", "threads", String(threads)) == ARCHIVE_OK
        {
            compressionThreads = threads
        }
        // Large blocks mean few write(2) calls; no padding after the last one.
        try check(archive_write_set_bytes_per_block(archive, 1 << 20), "set block size")
        try check(archive_write_set_bytes_in_last_block(archive, 1), "set last block size")
        try check(archive_write_open_filename(archive, path), "create \(path)")
    }

    deinit { archive_write_free(archive) }

    /// Starts a regular file of exactly `size` bytes (mode 0644, owner 0).
    func beginEntry(path: String, size: Int64, modified: Date) throws(BundleError) {
        guard let entry = archive_entry_new() else {
            throw .archive(bundle: check.bundle, entry: path, operation: "create entry", message: "out of memory")
        }
        defer { archive_entry_free(entry) }
        archive_entry_set_pathname(entry, path)
        archive_entry_set_filetype(entry, CShims_archive_filetype_regular())
        archive_entry_set_perm(entry, 0o644)
        archive_entry_set_size(entry, la_int64_t(size))
        archive_entry_set_mtime(entry, time_t(modified.timeIntervalSince1970), 0)
        entryName = path
        try check(archive_write_header(archive, entry), "write header", entry: path)
    }

    /// Appends bytes to the current entry.
    func write(_ bytes: UnsafeRawBufferPointer) throws(BundleError) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        var done = 0
        while done < bytes.count {
            let written = archive_write_data(archive, base + done, bytes.count - done)
            if written <= 0 { throw check.error("write data", entry: entryName) }
            done += written
        }
    }

    func finishEntry() throws(BundleError) {
        try check(archive_write_finish_entry(archive), "finish entry", entry: entryName)
        entryName = nil
    }

    /// Writes the end-of-archive marker and flushes the compressor; the file is closed.
    func close() throws(BundleError) {
        try check(archive_write_close(archive), "finish the archive")
    }
}

/// One archive header, as far as import needs it.
struct ArchiveEntryHeader {
    enum Kind: Equatable {
        case regular
        case directory
        case symbolicLink(target: String)
        case hardLink(target: String)
        /// Device, FIFO or socket, with a word for messages.
        case special(String)
    }

    /// The path bytes exactly as stored (nil if the entry has none).
    var rawPath: [UInt8]?
    var kind: Kind
    /// The size the header claims, if it states one.
    var size: Int64?

    /// For messages; see `Printable` before showing it.
    var displayPath: String {
        rawPath.map { String(decoding: $0, as: UTF8.self) } ?? "<no name>"
    }
}

/// Reads a tar (optionally zstd-compressed) entry by entry. Only tar formats and the
/// zstd filter are enabled: no other decoder (or external program for one) is ever
/// reached by a hostile file.
final class ArchiveReader {
    private let archive: OpaquePointer
    private let check: ArchiveCheck
    private var current: String?

    init(path: String, bundle: String) throws(BundleError) {
        guard let archive = archive_read_new() else {
            throw .archive(bundle: bundle, entry: nil, operation: "create reader", message: "out of memory")
        }
        self.archive = archive
        check = ArchiveCheck(archive: archive, bundle: bundle)
        try check(archive_read_support_filter_zstd(archive), "enable zstd")
        try check(archive_read_support_format_tar(archive), "enable tar")
        try check(archive_read_open_filename(archive, path, 1 << 20), "open")
    }

    deinit { archive_read_free(archive) }

    /// The next header, or nil at the end of the archive. A stream that cannot be
    /// decoded any further throws `.damaged`.
    func nextHeader() throws(BundleError) -> ArchiveEntryHeader? {
        var entry: OpaquePointer?
        let code = archive_read_next_header(archive, &entry)
        if code == ARCHIVE_EOF { return nil }
        guard code == ARCHIVE_OK || code == ARCHIVE_WARN, let entry else {
            throw BundleError.damaged(
                bundle: check.bundle, entry: current, message: check.error("read header", entry: nil).messageText)
        }
        let raw = (archive_entry_pathname(entry) ?? archive_entry_pathname_utf8(entry))
            .map { Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))) }
        current = raw.map { String(decoding: $0, as: UTF8.self) }
        let type = UInt32(archive_entry_filetype(entry)) & CShims_archive_filetype_mask()
        let kind: ArchiveEntryHeader.Kind
        if let target = archive_entry_hardlink(entry) {
            kind = .hardLink(target: String(cString: target))
        } else if type == CShims_archive_filetype_symlink() {
            kind = .symbolicLink(target: archive_entry_symlink(entry).map { String(cString: $0) } ?? "")
        } else if type == CShims_archive_filetype_regular() {
            kind = .regular
        } else if type == CShims_archive_filetype_directory() {
            kind = .directory
        } else if type == CShims_archive_filetype_character_device() {
            kind = .special("character device")
        } else if type == CShims_archive_filetype_block_device() {
            kind = .special("block device")
        } else if type == CShims_archive_filetype_fifo() {
            kind = .special("FIFO")
        } else if type == CShims_archive_filetype_socket() {
            kind = .special("socket")
        } else {
            kind = .special("file of unknown type \(String(type, radix: 8))")
        }
        let size: Int64? = archive_entry_size_is_set(entry) != 0 ? Int64(archive_entry_size(entry)) : nil
        return ArchiveEntryHeader(rawPath: raw, kind: kind, size: size)
    }

    /// Reads up to `buffer.count` bytes of the current entry's data; 0 at its end.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(BundleError) -> Int {
        guard buffer.count > 0 else { return 0 }
        let n = archive_read_data(archive, buffer.baseAddress, buffer.count)
        if n < 0 {
            // A warning here still delivered no data; anything else is a broken stream.
            throw BundleError.damaged(
                bundle: check.bundle, entry: current, message: check.error("read data", entry: nil).messageText)
        }
        return n
    }
}

extension BundleError {
    /// The libarchive message of an `.archive` error, for wrapping it into another case.
    fileprivate var messageText: String {
        if case .archive(_, _, _, let message) = self { return message }
        return description
    }
}
