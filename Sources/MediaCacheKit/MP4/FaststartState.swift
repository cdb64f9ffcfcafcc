/// How a cached object's bytes are laid out, as the index, bundle manifests, `ls`, `info`
/// and `committed` events record it: always as the same text (`-`, `original`,
/// `relocated`, `skipped(reason)`), so caches and bundles of other versions still read.
public enum FaststartState: Sendable, Hashable {
    /// Not an MP4/MOV file: `-`.
    case notMP4
    /// moov was already before mdat; stored as the origin sent it: `original`.
    case original
    /// Stored with moov moved before mdat: `relocated`.
    case relocated
    /// Stored as the origin sent it, for this reason (fragmented, `--no-faststart`, …):
    /// `skipped(reason)`.
    case skipped(String)
    /// The index was rebuilt from `objects/`, which does not tell: `unknown (index rebuilt)`.
    case lostInIndexRebuild
    /// Text that no other case stands for (written by another version of mediacache):
    /// kept as it is, so it is shown and exported unchanged instead of failing the read.
    case unrecognized(String)

    /// A streaming title's: its files are stored as served, none of them relocated.
    public static let streamingTitle = FaststartState.skipped("streaming title")
}

extension FaststartState: RawRepresentable, Codable, CustomStringConvertible {
    /// Never fails: every text maps to a case whose `rawValue` is that same text.
    public init(rawValue: String) {
        switch rawValue {
        case "-": self = .notMP4
        case "original": self = .original
        case "relocated": self = .relocated
        case "unknown (index rebuilt)": self = .lostInIndexRebuild
        case _ where rawValue.hasPrefix("skipped(") && rawValue.hasSuffix(")"):
            self = .skipped(String(rawValue.dropFirst(8).dropLast()))
        default: self = .unrecognized(rawValue)
        }
    }

    public var rawValue: String {
        switch self {
        case .notMP4: "-"
        case .original: "original"
        case .relocated: "relocated"
        case .skipped(let reason): "skipped(\(reason))"
        case .lostInIndexRebuild: "unknown (index rebuilt)"
        case .unrecognized(let text): text
        }
    }

    public var description: String { rawValue }
}
