/// Finds the moov of an MP4 while it downloads, from whatever bytes are on disk, so the
/// tail after mdat can be fetched first (`DownloadJob+Moov.swift`).
///
/// It walks top-level box headers from offset 0. Each step needs at most 16 bytes at
/// the next box's offset; when they are not held yet it says which bytes it needs.
/// Hostile or non-MP4 bytes end the search; it never loops.
struct MoovLocator {
    enum Step: Equatable {
        /// These bytes are needed to go on.
        case needs(ByteRange)
        /// The search is over: moov found, or the file is not an MP4 walkable here.
        case finished
    }

    let length: Int64
    private(set) var boxes: [BoxHeader] = []
    private(set) var moov: BoxHeader?
    private(set) var isFinished = false
    private var nextOffset: Int64 = 0

    init(length: Int64) { self.length = length }

    /// The first mdat, once seen: the box after it is where a late moov starts.
    var mdat: BoxHeader? { boxes.first { $0.type == "mdat" } }

    mutating func advance(isHeld: (ByteRange) -> Bool, read: (ByteRange) -> [UInt8]?) -> Step {
        while !isFinished {
            guard nextOffset < length, boxes.count < 1000 else { return finish() }
            let want = ByteRange(nextOffset, min(length, nextOffset + 16))
            guard isHeld(want), let bytes = read(want) else { return .needs(want) }
            guard let box = try? BoxHeader.parse(bytes, at: nextOffset, limit: length) else { return finish() }
            if boxes.isEmpty && !TopLevelBoxes.plausibleFirstTypes.contains(box.type) { return finish() }
            boxes.append(box)
            if box.type == "moov" {
                moov = box
                return finish()
            }
            if box.type == "moof" { return finish() }
            nextOffset = box.end
        }
        return .finished
    }

    private mutating func finish() -> Step {
        isFinished = true
        return .finished
    }
}
