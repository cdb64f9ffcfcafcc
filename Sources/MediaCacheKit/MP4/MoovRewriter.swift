/// Reads and rewrites a `moov` box in memory: finds its chunk offset tables and moves
/// every offset by a shift, widening `stco` to `co64` when asked. Boxes off the path
/// `moov/trak/mdia/minf/stbl` are copied byte for byte.
struct MoovRewriter {
    /// Containers on the way to the chunk offset tables.
    static let containers: Set<String> = ["moov", "trak", "mdia", "minf", "stbl"]

    /// What the moov says about the file.
    struct Summary: Equatable {
        var tables: [ChunkOffsetTable] = []
        var hasCompressedMoov = false
        var hasMovieExtends = false

        var allOffsets: [Int64] { tables.flatMap(\.offsets) }
        var hasNarrowTable: Bool { tables.contains { !$0.isWide } }
    }

    let moov: [UInt8]

    func summary() throws -> Summary {
        var summary = Summary()
        try visitTree(try root(), depth: 0) { box in
            switch box.type {
            case "stco", "co64": summary.tables.append(try table(box))
            case "cmov": summary.hasCompressedMoov = true
            case "mvex": summary.hasMovieExtends = true
            default: break
            }
        }
        return summary
    }

    /// The moov with every chunk offset moved by `shift`.
    func rewritten(shift: Int64, widen: Bool) throws -> [UInt8] {
        try rewrite(try root(), shift: shift, widen: widen, depth: 0)
    }

    private func root() throws -> BoxHeader { try BoxHeader.parse(moov, at: 0, limit: Int64(moov.count)) }

    private func children(of box: BoxHeader) throws -> [BoxHeader] {
        var result: [BoxHeader] = []
        var offset = box.payloadOffset
        while offset < box.end {
            guard result.count < 100_000 else { throw MP4Error.tooManyBoxes(100_000) }
            let child = try BoxHeader.parse(
                moov[Int(offset)..<Int(min(box.end, offset + 32))], at: offset, limit: box.end, printableType: false)
            result.append(child)
            offset = child.end
        }
        return result
    }

    private func visitTree(_ box: BoxHeader, depth: Int, _ visit: (BoxHeader) throws -> Void) throws {
        try visit(box)
        guard Self.containers.contains(box.type), depth < 8 else { return }
        for child in try children(of: box) { try visitTree(child, depth: depth + 1, visit) }
    }

    private func table(_ box: BoxHeader) throws -> ChunkOffsetTable {
        try ChunkOffsetTable(payload: Array(moov[Int(box.payloadOffset)..<Int(box.end)]), type: box.type)
    }

    private func rewrite(_ box: BoxHeader, shift: Int64, widen: Bool, depth: Int) throws -> [UInt8] {
        switch box.type {
        case "stco", "co64":
            return try table(box).encoded(shift: shift, widen: widen)
        case let type where Self.containers.contains(type) && depth < 8:
            var payload: [UInt8] = []
            for child in try children(of: box) {
                payload += try rewrite(child, shift: shift, widen: widen, depth: depth + 1)
            }
            return BoxHeader.encode(type: type, payloadSize: Int64(payload.count)) + payload
        default:
            return Array(moov[Int(box.offset)..<Int(box.end)])
        }
    }
}
