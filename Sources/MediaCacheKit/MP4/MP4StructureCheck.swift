/// Checks a stored MP4: top-level boxes tile the file, exactly one moov and it precedes
/// every mdat, and every chunk offset points inside an mdat's payload.
public enum MP4StructureCheck {
    public static func check(_ source: ByteSource, length: Int64) throws {
        let boxes = try TopLevelBoxes.scan(source, length: length)
        let moovs = boxes.filter { $0.type == "moov" }
        guard moovs.count == 1, let moov = moovs.first else {
            throw MP4Error.badTable(type: "moov", reason: "\(moovs.count) moov boxes")
        }
        let mdats = boxes.filter { $0.type == "mdat" }
        if let first = mdats.first, first.offset < moov.offset {
            throw MP4Error.badTable(type: "moov", reason: "moov at \(moov.offset) follows mdat at \(first.offset)")
        }
        let summary = try MoovRewriter(moov: try source.bytes(at: moov.offset, count: Int(moov.size))).summary()
        for offset in summary.allOffsets
        where !mdats.contains(where: { offset >= $0.payloadOffset && offset < $0.end }) {
            throw MP4Error.badTable(type: "stco", reason: "chunk offset \(offset) is outside every mdat")
        }
    }
}
