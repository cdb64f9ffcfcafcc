/// A static (VOD) MPEG-DASH media presentation (ISO/IEC 23009-1): its Periods, their
/// adaptation sets and representations, and for each representation every resource to
/// fetch, with URIs absolute and segment templates expanded.
public struct DASHManifest: Sendable, Equatable {
    /// The final URL the MPD was read from; every BaseURL and URI in it is resolved against it.
    public var url: String
    /// `MPD@mediaPresentationDuration` in seconds, nil when the MPD does not say.
    public var duration: Double?
    public var periods: [DASHPeriod]
    /// How many copies of its files it names: the most `BaseURL`s any one element lists
    /// (other servers for the same resources); 1 when none lists several.
    public var copies = 1
}

/// A Period: a part of the title's timeline with its own adaptation sets (an ad, a
/// chapter); most titles have one.
public struct DASHPeriod: Sendable, Equatable {
    public var id: String?
    /// Seconds from the start of the title: `Period@start`, or where the previous
    /// Period ends.
    public var start: Double
    /// Seconds: `Period@duration`, or up to the next Period's start or the end of the
    /// title; nil when none of those is known.
    public var duration: Double?
    public var adaptationSets: [DASHAdaptationSet]
    /// The line of its element, for messages.
    public var line: Int
}

/// What an adaptation set carries: `@contentType`, else the top-level type of its
/// `mimeType`, else what its codecs are.
public enum DASHContentType: String, Sendable, Hashable {
    case video
    case audio
    case text
    case image
    /// Nothing says (or something else, such as `application`): never selected.
    case unknown
}

/// An AdaptationSet: interchangeable encodings of one content (a video at several bit
/// rates, one audio language).
public struct DASHAdaptationSet: Sendable, Equatable {
    public var id: String?
    public var contentType: DASHContentType
    /// `@lang`, BCP-47.
    public var language: String?
    /// The values of its `Role` elements of scheme `urn:mpeg:dash:role:2011` (`main`,
    /// `alternate`, `subtitle`, `commentary`, ...).
    public var roles: [String]
    /// Key frames only (`EssentialProperty` of the DASH-IF trick-mode scheme), for
    /// fast-forward: selections leave it out, as they leave out HLS I-frame variants.
    public var isTrickMode: Bool
    public var representations: [DASHRepresentation]
    public var line: Int
}

/// A Representation: one encoding, fetched as its initialization and segments, or as
/// one whole file.
public struct DASHRepresentation: Sendable, Equatable {
    /// Unique within its Period: `$RepresentationID$` and part of its identity.
    public var id: String
    /// Bits per second, as the MPD says.
    public var bandwidth: Int
    public var width: Int?
    public var height: Int?
    /// Its own, or its adaptation set's.
    public var codecs: String?
    /// Its own, or its adaptation set's.
    public var mimeType: String?
    /// The header segments are decoded with, when it is a resource of its own (or a byte
    /// range of the same file as the segments); nil when there is none or it is inside
    /// the single file.
    public var initialization: DASHResource?
    public var media: DASHMedia
    /// What its `SegmentBase` says of the inside of its single file; nil without one.
    public var fileIndex: DASHFileIndex? = nil
    /// The timescale its segments' times are in, and the media time that is the start
    /// of its Period; nil for a single file.
    public var segmentTiming: DASHSegmentTiming? = nil
    public var line: Int
}

/// Where a single file's header and segment index (`sidx`) lie, as its `SegmentBase`
/// says (section 5.3.9.2), and the timing the index's times are read in. The file is
/// stored as served, so this stays true of the stored copy: the local MPD repeats it,
/// and a player that seeks by the index (dash.js, Shaka, ExoPlayer) finds it without a
/// scan.
public struct DASHFileIndex: Sendable, Equatable {
    /// `@indexRange`: the `sidx` box.
    public var indexRange: ByteRange?
    /// `@indexRangeExact`.
    public var indexRangeExact = false
    /// `Initialization@range` without a `sourceURL`: the header, inside the file.
    public var initializationRange: ByteRange?
    /// `@timescale`, `@presentationTimeOffset`: as written, nil when not.
    public var timescale: Int64?
    public var presentationTimeOffset: Int64?

    public var isEmpty: Bool { self == DASHFileIndex() }
}

/// A SegmentTemplate's or SegmentList's `@timescale` and `@presentationTimeOffset`
/// (section 5.3.9.2): media time `presentationTimeOffset` is the Period's start. A player
/// that appends to a buffer by the MPD's times (dash.js, Shaka, ExoPlayer) places each
/// segment by them, so the local MPD keeps them as they were.
public struct DASHSegmentTiming: Sendable, Equatable {
    public var timescale: Int64
    public var presentationTimeOffset: Int64
}

/// How a representation's media is fetched.
public enum DASHMedia: Sendable, Equatable {
    /// One whole file (`SegmentBase`, or a BaseURL with no segment information): the
    /// engine fetches it as a progressive file; its index (`sidx`) is not read.
    case singleFile(uri: String)
    /// Segments in presentation order (`SegmentTemplate` or `SegmentList`).
    case segments([DASHSegment])

    /// The segments, empty for a single file.
    public var segments: [DASHSegment] {
        if case .segments(let segments) = self { segments } else { [] }
    }
}

/// A resource: a URI, or a byte range of one.
public struct DASHResource: Sendable, Hashable {
    /// Absolute, without fragment.
    public var uri: String
    /// Half-open, from an inclusive `first-last` in the MPD; nil for the whole resource.
    public var byteRange: ByteRange?
}

/// One media segment.
public struct DASHSegment: Sendable, Equatable {
    /// Absolute, without fragment.
    public var uri: String
    /// Half-open, from an inclusive `mediaRange`; nil for the whole resource.
    public var byteRange: ByteRange?
    /// `startNumber` plus its position: its identity within the representation.
    public var number: Int
    /// Its start in the representation's timescale (`$Time$`), when the MPD gives
    /// durations; nil for a SegmentList without them.
    public var time: Int64?
    /// Seconds; nil for a SegmentList without durations.
    public var duration: Double?
}
