/// Reads byte ranges of a file for the box walker (a data file, or bytes in memory).
public protocol ByteSource {
    func bytes(at offset: Int64, count: Int) throws -> [UInt8]
}

extension DataFile: ByteSource {
    public func bytes(at offset: Int64, count: Int) throws -> [UInt8] { try read(count: count, at: offset) }
}

/// Bytes in memory as a `ByteSource`, for tests and moov payloads.
public struct MemoryBytes: ByteSource {
    public let storage: [UInt8]
    public init(_ storage: [UInt8]) { self.storage = storage }
    public func bytes(at offset: Int64, count: Int) throws -> [UInt8] {
        let start = Int(max(0, min(offset, Int64(storage.count))))
        return Array(storage[start..<min(storage.count, start + count)])
    }
}

/// The top-level boxes of a file, which must tile it exactly.
public enum TopLevelBoxes {
    /// Walks every top-level box; throws if they do not tile `[0, length)` exactly.
    /// Bounded: hostile sizes cannot make it loop or read past the end.
    public static func scan(_ source: ByteSource, length: Int64, maxBoxes: Int = 100_000) throws -> [BoxHeader] {
        var boxes: [BoxHeader] = []
        var offset: Int64 = 0
        while offset < length {
            guard boxes.count < maxBoxes else { throw MP4Error.tooManyBoxes(maxBoxes) }
            let head = try source.bytes(at: offset, count: Int(min(32, length - offset)))
            let box = try BoxHeader.parse(head, at: offset, limit: length)
            boxes.append(box)
            offset = box.end
        }
        return boxes
    }

    /// Box types that may open an MP4/MOV file.
    static let plausibleFirstTypes: Set<String> = ["ftyp", "moov", "mdat", "free", "skip", "wide", "pnot", "styp"]

    /// Whether the first bytes of a file look like ISO BMFF.
    public static func looksLikeMP4(_ firstBytes: [UInt8]) -> Bool {
        guard firstBytes.count >= 8 else { return false }
        let type = String(decoding: firstBytes[4..<8], as: UTF8.self)
        return type == "ftyp" || (type == "moov" || type == "wide" || type == "pnot")
    }
}
