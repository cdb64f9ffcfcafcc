/// An `stco` (32-bit) or `co64` (64-bit) chunk offset table: where each chunk of a
/// track's samples sits in the file.
struct ChunkOffsetTable: Equatable {
    var versionAndFlags: [UInt8]
    var offsets: [Int64]
    var isWide: Bool

    /// Parses the payload (after the box header) of an `stco` or `co64` box.
    init(payload: [UInt8], type: String) throws(MP4Error) {
        let wide = type == "co64"
        isWide = wide
        guard payload.count >= 8 else { throw .badTable(type: type, reason: "payload of \(payload.count) bytes") }
        versionAndFlags = Array(payload[0..<4])
        let count = Int(BigEndian.uint32(payload, 4))
        let width = wide ? 8 : 4
        guard count <= (payload.count - 8) / width else {
            throw .badTable(type: type, reason: "\(count) entries do not fit in \(payload.count) bytes")
        }
        offsets = (0..<count).map { index in
            let at = 8 + index * width
            return wide ? Int64(bitPattern: BigEndian.uint64(payload, at)) : Int64(BigEndian.uint32(payload, at))
        }
    }

    /// The box (header and payload) with every offset moved by `shift`; 32-bit entries
    /// are widened to `co64` when `widen` is set.
    func encoded(shift: Int64, widen: Bool) -> [UInt8] {
        let wide = isWide || widen
        var payload = versionAndFlags + BigEndian.bytes(UInt32(offsets.count))
        payload.reserveCapacity(payload.count + offsets.count * (wide ? 8 : 4))
        // Wrapping, like the 32-bit case: the planner shifts only offsets it checked lie
        // inside the file, and a hostile co64 entry (bit 63 set) must not trap here.
        for offset in offsets {
            let moved = offset &+ shift
            payload += wide
                ? BigEndian.bytes(UInt64(bitPattern: moved)) : BigEndian.bytes(UInt32(truncatingIfNeeded: moved))
        }
        return BoxHeader.encode(type: wide ? "co64" : "stco", payloadSize: Int64(payload.count)) + payload
    }
}
