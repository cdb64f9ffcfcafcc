/// A master (multivariant) playlist (RFC 8216 section 4.3.4): the variant streams of a
/// title and the alternative renditions (audio, subtitles) they refer to by group.
public struct HLSMasterPlaylist: Sendable, Equatable {
    /// The final URL the playlist was read from; every URI in it is resolved against it.
    public var url: String
    public var version: Int?
    /// `EXT-X-STREAM-INF` and `EXT-X-I-FRAME-STREAM-INF` in order of appearance.
    public var variants: [HLSVariant]
    /// `EXT-X-MEDIA` in order of appearance.
    public var renditions: [HLSRendition]
    /// `EXT-X-SESSION-KEY`: keys the media playlists will use (DRM ones are refused).
    public var sessionKeys: [HLSKey]
    public var hasIndependentSegments: Bool
    /// The variables of `EXT-X-DEFINE`: pass them to the media playlists it names, for
    /// their `IMPORT`s.
    public var variables: HLSVariables
    /// `EXT-X-START`, where a player begins.
    public var start: HLSStart? = nil
    /// `EXT-X-SESSION-DATA` that carries its value (one with a URI names a file that is
    /// not fetched, and is left out).
    public var sessionData: [HLSSessionData] = []

    /// The renditions of `type` in `group`, in order of appearance.
    public func renditions(_ type: HLSRendition.MediaType, group: String) -> [HLSRendition] {
        renditions.filter { $0.type == type && $0.groupID == group }
    }
}

/// One variant stream: a media playlist of the whole title at one bit rate.
public struct HLSVariant: Sendable, Equatable {
    /// The media playlist, absolute.
    public var uri: String
    /// Peak bits per second.
    public var bandwidth: Int
    public var averageBandwidth: Int?
    public var resolution: HLSResolution?
    public var codecs: String?
    public var frameRate: Double?
    /// `GROUP-ID`s of the `EXT-X-MEDIA` renditions it plays with.
    public var audioGroup: String?
    public var videoGroup: String?
    public var subtitlesGroup: String?
    public var closedCaptionsGroup: String?
    /// From `EXT-X-I-FRAME-STREAM-INF`: key frames only, for trick play; selections
    /// leave it out.
    public var isIFrameOnly: Bool
    /// The line of its tag, for messages.
    public var line: Int
    /// What else its tag says that players choose by (`HDCP-LEVEL`, `VIDEO-RANGE`,
    /// `SCORE`…), as written: the local master repeats it.
    public var described: [AttributeList.Attribute] = []

    /// The attributes `described` keeps: none names a URL or a group.
    static let describing: Set<String> = [
        "SCORE", "SUPPLEMENTAL-CODECS", "HDCP-LEVEL", "ALLOWED-CPC", "VIDEO-RANGE", "REQ-VIDEO-LAYOUT",
        "STABLE-VARIANT-ID",
    ]
}

/// An alternative rendition (`EXT-X-MEDIA`): audio in one language, a subtitle track.
public struct HLSRendition: Sendable, Equatable {
    public enum MediaType: String, Sendable, Hashable {
        case audio = "AUDIO"
        case video = "VIDEO"
        case subtitles = "SUBTITLES"
        case closedCaptions = "CLOSED-CAPTIONS"
    }

    public var type: MediaType
    public var groupID: String
    /// Unique within its group.
    public var name: String
    /// BCP-47 (`en`, `pt-BR`).
    public var language: String?
    public var isDefault: Bool
    public var isAutoselect: Bool
    /// Its media playlist, absolute; nil when its media is in the variant's own
    /// segments (and always for closed captions).
    public var uri: String?
    /// The line of its tag, for messages.
    public var line: Int
    /// What else its tag says (`CHANNELS`, `CHARACTERISTICS`, `INSTREAM-ID`…), as
    /// written: the local master repeats it.
    public var described: [AttributeList.Attribute] = []

    /// The attributes `described` keeps: none names a URL.
    static let describing: Set<String> = [
        "ASSOC-LANGUAGE", "STABLE-RENDITION-ID", "FORCED", "INSTREAM-ID", "BIT-DEPTH", "SAMPLE-RATE",
        "CHARACTERISTICS", "CHANNELS",
    ]
}

/// `EXT-X-START` (RFC 8216, 4.3.5.2): where a player begins, in seconds from the start
/// (from the end when negative).
public struct HLSStart: Sendable, Equatable {
    /// As written: a signed decimal.
    public var timeOffset: String
    public var isPrecise: Bool
}

/// `EXT-X-SESSION-DATA` with a `VALUE` (RFC 8216, 4.3.4.4): a title's metadata.
public struct HLSSessionData: Sendable, Equatable {
    public var dataID: String
    public var value: String
    public var language: String?
}
