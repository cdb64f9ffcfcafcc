/// A piece of response body as libcurl delivered it: valid only during the callback,
/// so it cannot escape (it is `~Escapable` in spirit: never store it).
public struct BodyChunk {
    let bytes: UnsafeRawBufferPointer

    public var count: Int { bytes.count }

    /// The first `count` bytes, as a shorter chunk.
    public func prefix(_ count: Int) -> BodyChunk {
        BodyChunk(bytes: UnsafeRawBufferPointer(rebasing: bytes[0..<min(count, bytes.count)]))
    }

    /// Bytes from `offset` on.
    public func dropFirst(_ offset: Int) -> BodyChunk {
        BodyChunk(bytes: UnsafeRawBufferPointer(rebasing: bytes[min(offset, bytes.count)...]))
    }

    /// A copy, for the few places that keep bytes (sniffing, comparing).
    public var array: [UInt8] { Array(bytes) }

    /// A copy of the bytes of `range` of the file, when this chunk (which is the file's
    /// bytes from `offset` on) holds all of them; nil otherwise.
    public func copy(of range: ByteRange, chunkAt offset: Int64) -> [UInt8]? {
        guard range.start >= offset, range.end <= offset + Int64(count) else { return nil }
        return Array(bytes[Int(range.start - offset)..<Int(range.end - offset)])
    }

    public func write(to file: DataFile, at offset: Int64) throws {
        try file.write(bytes, at: offset)
    }
}
