/// The header of one box: 32-bit size, or 1 + 64-bit `largesize`, or 0 = "to the end of
/// the container"; `uuid` boxes carry 16 more bytes of extended type.
public struct BoxHeader: Sendable, Equatable, CustomStringConvertible {
    public var type: String
    public var offset: Int64
    public var size: Int64
    public var headerSize: Int64

    public var end: Int64 { offset + size }
    public var payloadOffset: Int64 { offset + headerSize }

    /// Parses the header in `bytes` (which start at `offset`) inside a container ending
    /// at `limit`. Never trusts a size: it must fit the header and the container.
    public static func parse(_ bytes: some Collection<UInt8>, at offset: Int64, limit: Int64, printableType: Bool = true)
        throws(MP4Error) -> BoxHeader
    {
        let b = Array(bytes.prefix(32))
        guard b.count >= 8, limit - offset >= 8 else { throw .truncatedHeader(offset: offset) }
        let typeBytes = b[4..<8]
        if printableType && !typeBytes.allSatisfy({ (0x20...0x7E).contains($0) }) {
            throw .badType(offset: offset)
        }
        let type = String(decoding: typeBytes, as: UTF8.self)
        var headerSize: Int64 = 8
        var size = Int64(BigEndian.uint32(b, 0))
        if size == 1 {
            guard b.count >= 16, limit - offset >= 16 else { throw .truncatedHeader(offset: offset) }
            let large = BigEndian.uint64(b, 8)
            guard large <= UInt64(Int64.max) else { throw .badSize(type: type, offset: offset, size: -1) }
            size = Int64(large)
            headerSize = 16
        } else if size == 0 {
            size = limit - offset
        }
        if type == "uuid" { headerSize += 16 }
        guard size >= headerSize else { throw .badSize(type: type, offset: offset, size: size) }
        guard size <= limit - offset else {
            // A lying 64-bit size can make offset + size overflow: report it as Int64.max.
            let (end, overflow) = offset.addingReportingOverflow(size)
            throw .pastEnd(type: type, offset: offset, end: overflow ? .max : end, limit: limit)
        }
        return BoxHeader(type: type, offset: offset, size: size, headerSize: headerSize)
    }

    /// Bytes of a header for a box of `type` with `payloadSize` bytes (32-bit size when it fits).
    static func encode(type: String, payloadSize: Int64) -> [UInt8] {
        let typeBytes = Array(type.utf8.prefix(4))
        if payloadSize + 8 <= Int64(UInt32.max) {
            return BigEndian.bytes(UInt32(payloadSize + 8)) + typeBytes
        }
        return BigEndian.bytes(UInt32(1)) + typeBytes + BigEndian.bytes(UInt64(payloadSize + 16))
    }

    public var description: String { "\(type)@\(offset)+\(size)" }
}

enum BigEndian {
    static func uint32(_ b: [UInt8], _ at: Int) -> UInt32 {
        UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
    }

    static func uint64(_ b: [UInt8], _ at: Int) -> UInt64 {
        UInt64(uint32(b, at)) << 32 | UInt64(uint32(b, at + 4))
    }

    static func bytes(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    static func bytes(_ value: UInt64) -> [UInt8] {
        bytes(UInt32(value >> 32)) + bytes(UInt32(value & 0xFFFF_FFFF))
    }
}
