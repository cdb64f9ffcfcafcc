/// A media playlist (RFC 8216 section 4.3.3), complete (VOD): the segments of one
/// rendition, in order, each with everything needed to fetch and later play it.
public struct HLSMediaPlaylist: Sendable, Equatable {
    /// More segments than any title has (a 10-hour title of 1-second segments is 36,000).
    public static let maxSegments = 1_000_000

    /// The final URL the playlist was read from; every URI in it is resolved against it.
    public var url: String
    public var version: Int?
    /// `EXT-X-TARGETDURATION`, nil when missing (nothing here needs it).
    public var targetDuration: Int?
    /// `VOD`, `EVENT`, or nil when the playlist does not say.
    public var playlistType: HLSPlaylistType?
    public var hasIndependentSegments: Bool
    /// The variables of `EXT-X-DEFINE`, with what was imported from the master.
    public var variables: HLSVariables
    /// Every distinct `EXT-X-MAP`, in order of appearance; segments refer to them by index.
    public var initSections: [HLSInitSection]
    public var segments: [HLSSegment]
    /// `EXT-X-START`, where a player begins.
    public var start: HLSStart? = nil

    /// The init section `segment` is decoded with, if any.
    public func initSection(of segment: HLSSegment) -> HLSInitSection? {
        segment.initSection.map { initSections[$0] }
    }

    /// Total duration in seconds.
    public var duration: Double { segments.reduce(0) { $0 + $1.duration } }
}

/// `EXT-X-PLAYLIST-TYPE`: VOD never changes; EVENT only grows, and is complete once it
/// has `EXT-X-ENDLIST`.
public enum HLSPlaylistType: String, Sendable, Hashable {
    case vod = "VOD"
    case event = "EVENT"
}

/// One media segment: a resource, or a byte range of one.
public struct HLSSegment: Sendable, Equatable {
    /// Absolute, without fragment.
    public var uri: String
    /// Seconds, from `EXTINF`.
    public var duration: Double
    /// `EXT-X-MEDIA-SEQUENCE` plus the segment's position: its identity within the rendition.
    public var mediaSequence: Int
    /// `EXT-X-DISCONTINUITY-SEQUENCE` plus the discontinuities before it.
    public var discontinuitySequence: Int
    /// The bytes of `uri` that are this segment (`EXT-X-BYTERANGE`), nil for all of it.
    public var byteRange: ByteRange?
    /// Index into the playlist's `initSections`: the `EXT-X-MAP` in force, if any.
    public var initSection: Int?
    /// The key in force (`EXT-X-KEY`), nil when the segment is not encrypted.
    public var key: HLSKey?
    /// `EXT-X-GAP`: the segment is missing on purpose; there is nothing to fetch.
    public var isGap: Bool
    /// The line of its URI, for messages.
    public var line: Int
    /// `EXT-X-PROGRAM-DATE-TIME` written for it, as written: the wall-clock time of its
    /// first sample, which players show and sync metadata by.
    public var programDateTime: String? = nil

    /// The IV that decrypts it, nil when it is not encrypted.
    public var initializationVector: [UInt8]? { key?.initializationVector(mediaSequence: mediaSequence) }
}

/// A media initialization section (`EXT-X-MAP`): the header segments are decoded with.
public struct HLSInitSection: Sendable, Hashable {
    /// Absolute, without fragment.
    public var uri: String
    public var byteRange: ByteRange?
    /// The key in force where the map is declared: an encrypted init section uses it.
    public var key: HLSKey?
}
