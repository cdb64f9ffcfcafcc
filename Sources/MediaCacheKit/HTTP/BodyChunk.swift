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

    public func write(to file: DataFile, at offset: Int64) throws {
        try file.write(bytes, at: offset)
    }
}
