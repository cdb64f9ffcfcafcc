import Foundation

/// `partial/<key>/journal`: every range is appended as soon as its bytes are written,
/// without fsync. After `kill -9` the page cache still holds both the bytes and their
/// record, so a resume re-fetches almost nothing. After power loss unsynced pages may be
/// gone, so the journal is trusted only within the boot that wrote it; otherwise the
/// durable state (whose data was flushed first) is all that counts.
///
/// Layout: "MCJ1", the 36-byte boot id, the data epoch (UInt64 LE), then records of two
/// UInt64 LE (start, end). Records only ever state facts about the data of that epoch,
/// so stale trailing records are harmless; a torn last record is ignored.
final class ProgressJournal {
    private static let magic = Array("MCJ1".utf8)
    private static let bootIDLength = 36
    private static let headerLength = 4 + bootIDLength + 8
    private static let recordLength = 16

    /// The running kernel's boot id; `MEDIACACHE_BOOT_ID` overrides it so tests can
    /// simulate a reboot. Nil when unknown: then no journal is written or trusted.
    static let currentBootID: [UInt8]? = {
        let text =
            ProcessInfo.processInfo.environment["MEDIACACHE_BOOT_ID"]
            // A /proc file reports size 0: read a fixed count instead of the whole file.
            ?? (try? DataFile(path: "/proc/sys/kernel/random/boot_id", mode: .readOnly).read(count: 64, at: 0))
            .map { String(decoding: $0, as: UTF8.self) }
        guard let trimmed = text?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else {
            return nil
        }
        let bytes = Array(trimmed.utf8.prefix(bootIDLength))
        return bytes + [UInt8](repeating: 0x20, count: bootIDLength - bytes.count)
    }()

    private let file: DataFile
    private let bootID: [UInt8]
    private var epoch: UInt64
    private var end: Int64 = 0

    /// Starts (or replaces) the journal at `path` with what is held now.
    init?(path: String, epoch: UInt64, holding ranges: [ByteRange]) {
        guard let bootID = Self.currentBootID, let file = try? DataFile(path: path, mode: .readWrite) else {
            return nil
        }
        self.file = file
        self.bootID = bootID
        self.epoch = epoch
        guard (try? rewrite(epoch: epoch, holding: ranges)) != nil else { return nil }
    }

    /// Replaces the contents with the header and `ranges` (after a checkpoint, or for a
    /// new epoch). Written before truncating: a kill in between leaves only true records.
    func rewrite(epoch: UInt64, holding ranges: [ByteRange]) throws {
        self.epoch = epoch
        var bytes = Self.magic + bootID
        Self.append(epoch, to: &bytes)
        for range in ranges { Self.append(range, to: &bytes) }
        try file.write(bytes, at: 0)
        try file.truncate(length: Int64(bytes.count))
        end = Int64(bytes.count)
    }

    /// Records that the bytes of `range` (of data epoch `epoch`) are written.
    func record(_ range: ByteRange, epoch: UInt64) throws {
        if epoch != self.epoch { try rewrite(epoch: epoch, holding: []) }
        // Called for every write of downloaded data: no allocation.
        var record = (UInt64(bitPattern: range.start).littleEndian, UInt64(bitPattern: range.end).littleEndian)
        try withUnsafeBytes(of: &record) { try file.write($0, at: end) }
        end += Int64(Self.recordLength)
    }

    /// The ranges a journal at `path` vouches for, if it was written in this boot for data
    /// epoch `epoch`; empty otherwise.
    static func recorded(path: String, epoch: UInt64) -> [ByteRange] {
        guard let bootID = currentBootID, let bytes = try? FileSystem.readAll(path), bytes.count >= headerLength,
            Array(bytes[0..<4]) == magic, Array(bytes[4..<(4 + bootIDLength)]) == bootID,
            readUInt64(bytes, at: 4 + bootIDLength) == epoch
        else { return [] }
        var ranges: [ByteRange] = []
        var offset = headerLength
        while offset + recordLength <= bytes.count {
            let start = Int64(bitPattern: readUInt64(bytes, at: offset))
            let end = Int64(bitPattern: readUInt64(bytes, at: offset + 8))
            if start >= 0 && start < end { ranges.append(ByteRange(start, end)) }
            offset += recordLength
        }
        return ranges
    }

    private static func append(_ range: ByteRange, to bytes: inout [UInt8]) {
        append(UInt64(bitPattern: range.start), to: &bytes)
        append(UInt64(bitPattern: range.end), to: &bytes)
    }

    private static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    private static func readUInt64(_ bytes: [UInt8], at offset: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << UInt64(8 * $1) }
    }
}
