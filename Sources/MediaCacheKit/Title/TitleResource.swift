/// One file of a title to fetch and store as served: a segment, an init section, a
/// key, or a whole file that a rendition's byte ranges point into.
///
/// It is known by where it is stored, which comes from the playlist's structure (the
/// rendition, the media sequence, the init section's or key's place) and never from its
/// URL: a title resumed with fresh URL tokens keeps what it holds.
public struct TitleResource: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Codable {
        case segment
        case initSection
        case key
        /// One file that several byte-range segments (and maybe the init section) share,
        /// fetched once, from byte 0 to the end of the last range used; or a DASH
        /// representation's single media file, all of it (`range` nil: its length is
        /// the origin's to say). Large ones come in pieces (`PiecedFile`).
        case rangedFile
    }

    /// Relative to the title directory: `variant-2/s12.ts`.
    public var path: String
    public var url: String
    /// The bytes of `url` that are the resource (a ranged file's `[0, end)`); nil: all.
    public var range: ByteRange?
    public var kind: Kind
    /// The rendition it belongs to (keys and files shared by renditions: the first).
    public var rendition: String
    /// What it is called in messages: `segment 12 of variant-2`.
    public var label: String
    /// The media segment's number (HLS media sequence, DASH segment number); nil for
    /// anything else.
    public var segment: Int? = nil
    /// How many media segments it carries: 1 for a segment, each range for a ranged
    /// file, 0 for an init section or a key.
    public var segments = 0
}

extension TitleResource {
    /// An init section or a key: what segments are played with, not media itself.
    var isStructure: Bool { kind == .initSection || kind == .key }

    /// Whether this media is played with `structure`: a key may serve several
    /// renditions; an init section, its own.
    func isPlayed(with structure: TitleResource) -> Bool {
        !isStructure && (structure.kind == .key || structure.rendition == rendition)
    }
}
