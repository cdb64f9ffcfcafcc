/// Why bytes are not a well-formed ISO BMFF (MP4/MOV) structure.
public enum MP4Error: Error, Equatable, CustomStringConvertible {
    case truncatedHeader(offset: Int64)
    case badType(offset: Int64)
    case badSize(type: String, offset: Int64, size: Int64)
    case pastEnd(type: String, offset: Int64, end: Int64, limit: Int64)
    case tooManyBoxes(Int)
    case badTable(type: String, reason: String)

    public var description: String {
        switch self {
        case .truncatedHeader(let offset): "box header at \(offset) is cut short"
        case .badType(let offset): "bytes at \(offset) are not a box type"
        case .badSize(let type, let offset, let size): "'\(type)' box at \(offset) has an impossible size \(size)"
        case .pastEnd(let type, let offset, let end, let limit):
            "'\(type)' box at \(offset) ends at \(end), past the end of its container (\(limit))"
        case .tooManyBoxes(let count): "more than \(count) boxes"
        case .badTable(let type, let reason): "'\(type)' table: \(reason)"
        }
    }
}
