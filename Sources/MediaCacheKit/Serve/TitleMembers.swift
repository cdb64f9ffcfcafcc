/// The files of a cached title that `serve` sends, by the path a player asks for under
/// the title's local URL. The stored playlists' URIs are relative to the entry, so a
/// player that opened `/m/TOKEN/NAME` asks for `/m/TOKEN/<stored path>`: exactly the
/// paths `title.json` lists. Nothing else answers, `title.json` itself included, and no
/// path can leave the title (a listed path is a plain relative one: `TitleOnDisk`).
public struct TitleMembers: Sendable {
    public let manifest: TitleManifest
    private let byPath: [String: TitleManifest.Member]
    /// Rendition identity (its folder) → kind (`variant`, `audio`, `subtitles`).
    private let kinds: [String: String]

    public init(_ manifest: TitleManifest) {
        self.manifest = manifest
        byPath = Dictionary(manifest.members.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        kinds = Dictionary(manifest.renditions.map { ($0.identity, $0.kind) }, uniquingKeysWith: { first, _ in first })
    }

    /// The entry playlist or MPD; nil only for a manifest that does not list it.
    public var entry: TitleManifest.Member? { byPath[manifest.entry] }

    /// The member that `requested` (the request's path after `/m/TOKEN/`, as sent) names:
    /// matched as sent first (the playlists write stored paths as they are, so a `%` in
    /// one, from a title of an older version, comes back as sent), then percent-decoded,
    /// for a client that encoded a character the playlist wrote plainly.
    public func member(requested: String) -> TitleManifest.Member? {
        if let member = byPath[requested] { return member }
        guard let decoded = requested.removingPercentEncoding, decoded != requested else { return nil }
        return byPath[decoded]
    }

    /// The Content-Type `member` is sent with.
    public func contentType(of member: TitleManifest.Member) -> String {
        let folder = member.path.split(separator: "/", maxSplits: 1).first.map(String.init) ?? ""
        return TitleMemberType.contentType(of: member.path, renditionKind: kinds[folder])
    }
}
