/// Decides how a finished MP4/MOV is stored (docs/guide.md, "MP4 and MOV: playable early, stored
/// faststart") and computes the patched moov.
public enum FaststartDecision: Equatable {
    /// Not an ISO BMFF file.
    case notMP4
    /// moov already precedes mdat: stored as it is.
    case original
    /// Left as it is, for this reason (fragmented, compressed moov, unusual layout).
    case skipped(String)
    case relocate(RelocationPlan)

    /// The state recorded for an object stored as decided.
    public var state: FaststartState {
        switch self {
        case .notMP4: .notMP4
        case .original: .original
        case .skipped(let reason): .skipped(reason)
        case .relocate: .relocated
        }
    }
}

/// `ftyp [header boxes] moov' mdat… [trailing boxes]`: where each piece comes from.
public struct RelocationPlan: Equatable {
    /// Source bytes `[0, mediaStart)`: ftyp and the other header boxes.
    public var mediaStart: Int64
    /// Source bytes `[mediaStart, moovOffset)`: mdat and whatever sits between.
    public var moovOffset: Int64
    public var moovEnd: Int64
    public var length: Int64
    /// The moov with chunk offsets moved by its own size.
    public var newMoov: [UInt8]

    public var shift: Int64 { Int64(newMoov.count) }
}

public enum FaststartPlanner {
    /// moov boxes larger than this are left alone rather than held in memory.
    static let maxMoovSize: Int64 = 256 << 20

    public static func plan(_ source: ByteSource, length: Int64) throws -> FaststartDecision {
        guard length >= 8, TopLevelBoxes.looksLikeMP4(try source.bytes(at: 0, count: 8)) else { return .notMP4 }
        let boxes = try TopLevelBoxes.scan(source, length: length)
        let moovs = boxes.filter { $0.type == "moov" }
        guard let moov = moovs.first else { return .skipped("no moov") }
        if moovs.count > 1 { return .skipped("unusual layout: \(moovs.count) moov boxes") }
        if boxes.contains(where: { $0.type == "moof" }) { return .skipped("fragmented") }
        guard let firstMdat = boxes.first(where: { $0.type == "mdat" }) else { return .original }
        if moov.offset < firstMdat.offset { return .original }
        if boxes.contains(where: { $0.type == "mdat" && $0.offset > moov.offset }) {
            return .skipped("unusual layout: mdat after moov")
        }
        guard moov.size <= maxMoovSize else { return .skipped("moov larger than 256 MiB") }
        let rewriter = MoovRewriter(moov: try source.bytes(at: moov.offset, count: Int(moov.size)))
        let summary = try rewriter.summary()
        if summary.hasCompressedMoov { return .skipped("compressed moov") }
        if summary.hasMovieExtends { return .skipped("fragmented") }
        let offsets = summary.allOffsets
        if offsets.contains(where: { $0 < firstMdat.offset || $0 >= moov.offset }) {
            return .skipped("chunk offsets outside mdat")
        }
        // The shift is the final moov size, which grows if stco must widen to co64.
        let maxOffset = offsets.max() ?? 0
        var shift = moov.size
        var widen = false
        var settled: [UInt8]?
        for _ in 0..<6 {
            widen = widen || (summary.hasNarrowTable && maxOffset + shift > Int64(UInt32.max))
            let candidate = try rewriter.rewritten(shift: shift, widen: widen)
            if Int64(candidate.count) == shift {
                settled = candidate
                break
            }
            shift = Int64(candidate.count)
        }
        guard let newMoov = settled else { return .skipped("moov size does not settle") }
        return .relocate(
            RelocationPlan(
                mediaStart: firstMdat.offset, moovOffset: moov.offset, moovEnd: moov.end, length: length,
                newMoov: newMoov))
    }
}
