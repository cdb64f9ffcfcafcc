/// An HLS playlist of either kind: what the first fetch of a title's URL returns.
public enum HLSPlaylist: Sendable, Equatable {
    case master(HLSMasterPlaylist)
    case media(HLSMediaPlaylist)

    /// Reads `bytes` fetched from `url` (its final URL, after redirects) as whichever
    /// kind it is: a master playlist when it has a master-only tag (`EXT-X-STREAM-INF`,
    /// `EXT-X-MEDIA`, ...), else a media playlist.
    public init(parsing bytes: [UInt8], url: String) throws(PresentationError) {
        // Read twice only for a master playlist, which is small.
        do throws(PresentationError) {
            self = .media(try HLSMediaPlaylist(parsing: bytes, url: url))
        } catch .wrongKind(url: _, isMaster: true) {
            self = .master(try HLSMasterPlaylist(parsing: bytes, url: url))
        }
    }

    public init(parsing text: String, url: String) throws(PresentationError) {
        try self.init(parsing: Array(text.utf8), url: url)
    }

    public var url: String {
        switch self {
        case .master(let playlist): playlist.url
        case .media(let playlist): playlist.url
        }
    }
}
