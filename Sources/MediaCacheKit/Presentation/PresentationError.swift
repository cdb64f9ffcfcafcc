/// Why a playlist or MPD (or a key it names) cannot become a cached title. Every message
/// names the playlist URL, the line where that helps, and what the user can do.
public enum PresentationError: Error, Equatable, CustomStringConvertible {
    /// The body does not start with `#EXTM3U` (an error or login page, or another format).
    case notAPlaylist(url: String)
    /// The body is larger than `PlaylistText.maxBytes`.
    case tooLarge(url: String, bytes: Int)
    /// More segments than `HLSMediaPlaylist.maxSegments` (in an MPD: in all its
    /// representations together).
    case tooManySegments(url: String, line: Int)
    /// A tag or URI line that does not follow RFC 8216 (`tag` nil for a URI line or the
    /// playlist as a whole).
    case malformed(url: String, line: Int, tag: String?, reason: String)
    /// A master playlist where a media playlist was expected, or the other way round.
    case wrongKind(url: String, isMaster: Bool)
    /// No `EXT-X-ENDLIST` and not `EXT-X-PLAYLIST-TYPE:VOD`: the title is still growing.
    case live(url: String)
    /// A key needs a DRM system (FairPlay `skd://`, a KEYFORMAT other than identity), or
    /// an MPD's `ContentProtection` names one.
    case drm(url: String, line: Int, reason: String)
    /// An `EXT-X-KEY` METHOD that RFC 8216 does not define.
    case unknownKeyMethod(url: String, line: Int, method: String)
    /// A fetched AES-128 key whose body is not 16 bytes (nil: more, and of no stated length).
    case badKeyLength(keyURI: String, bytes: Int?)
    /// A body whose root element is not `MPD` (an error page, another format).
    case notAnMPD(url: String)
    /// An MPD larger than `XMLElementTree.maxBytes`.
    case mpdTooLarge(url: String, bytes: Int)
    /// An MPD that is not well-formed XML, or XML this reader refuses (an internal DTD
    /// subset, another encoding, nesting or element count past the bounds).
    case notWellFormed(url: String, line: Int, reason: String)
    /// An element of an MPD that does not follow ISO/IEC 23009-1, or uses what is not
    /// supported (remote elements, `$SubNumber$`).
    case malformedMPD(url: String, line: Int, element: String, reason: String)
    /// `MPD@type="dynamic"`: the title is live.
    case liveMPD(url: String)

    public var message: String {
        switch self {
        case .notAPlaylist(let url):
            "\(Self.shown(url)) is not an HLS playlist: it does not start with #EXTM3U "
                + "(an error or login page?); check the URL and its headers"
        case .tooLarge(let url, let bytes):
            "\(Self.shown(url)) is \(bytes) bytes; playlists over \(PlaylistText.maxBytes) bytes are refused "
                + "(no real title needs one); check the URL"
        case .tooManySegments(let url, let line):
            "\(Self.shown(url)) line \(line): more than \(HLSMediaPlaylist.maxSegments) segments; "
                + "titles this large are refused"
        case .malformed(let url, let line, let tag, let reason):
            "\(Self.shown(url)) line \(line): \(tag.map { "malformed #\($0): " } ?? "")"
                + "\(Printable.name(reason, limit: 400)); "
                + "the playlist does not follow RFC 8216 (ask its publisher, or check the URL)"
        case .wrongKind(let url, let isMaster):
            isMaster
                ? "\(Self.shown(url)) is a master playlist where a media playlist was expected; "
                    + "a master playlist cannot name another master"
                : "\(Self.shown(url)) is a media playlist where a master playlist was expected"
        case .live(let url):
            "\(Self.shown(url)) is a live playlist (no #EXT-X-ENDLIST and not #EXT-X-PLAYLIST-TYPE:VOD); "
                + "only complete (VOD) titles are cached: try again when it has ended"
        case .drm(let url, let line, let reason):
            "\(Self.shown(url)) line \(line): the title is DRM-protected (\(Printable.name(reason, limit: 200))); "
                + "mediacache caches only titles without DRM"
        case .unknownKeyMethod(let url, let line, let method):
            "\(Self.shown(url)) line \(line): #EXT-X-KEY METHOD=\(Printable.name(method, limit: 40)) is not "
                + "NONE, AES-128, SAMPLE-AES or SAMPLE-AES-CTR; the title cannot be cached"
        case .badKeyLength(let keyURI, let bytes):
            "the AES-128 key \(Self.shown(keyURI)) is \(bytes.map { "\($0) bytes" } ?? "more than 16 bytes"), not 16 (an error page?); "
                + "check the key URL and the headers it needs"
        case .notAnMPD(let url):
            "\(Self.shown(url)) is not a DASH MPD: its root element is not <MPD> (an error or login page?); "
                + "check the URL and its headers"
        case .mpdTooLarge(let url, let bytes):
            "\(Self.shown(url)) is \(bytes) bytes; MPDs over \(XMLElementTree.maxBytes) bytes are refused "
                + "(no real title needs one); check the URL"
        case .notWellFormed(let url, let line, let reason):
            "\(Self.shown(url)) line \(line): the MPD cannot be read as XML: \(Printable.name(reason, limit: 400)); "
                + "check the URL (is the body cut short?) or ask its publisher"
        case .malformedMPD(let url, let line, let element, let reason):
            "\(Self.shown(url)) line \(line): malformed <\(Printable.name(element, limit: 40))>: "
                + "\(Printable.name(reason, limit: 400)); "
                + "the MPD does not follow ISO/IEC 23009-1 or uses what mediacache does not support "
                + "(ask its publisher, or check the URL)"
        case .liveMPD(let url):
            "\(Self.shown(url)) is a live MPD (type=\"dynamic\"); "
                + "only complete (VOD) titles are cached: try again when it has ended"
        }
    }

    public var description: String { message }

    /// A URL for a message: bounded, and without control characters even when it
    /// came from a hostile playlist.
    private static func shown(_ url: String) -> String {
        Printable.visible(Printable.url(url, limit: 512).unicodeScalars)
    }
}
