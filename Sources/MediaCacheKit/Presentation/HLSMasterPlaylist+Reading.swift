extension HLSMasterPlaylist {
    /// Reads a master playlist fetched from `url` (its final URL, after redirects).
    /// DRM session keys and malformed tags are refused; unknown tags are ignored, as
    /// RFC 8216 asks.
    public init(parsing bytes: [UInt8], url: String) throws(PresentationError) {
        let text = try PlaylistText(bytes, url: url)
        guard text.containsMasterTags else { throw .wrongKind(url: url, isMaster: false) }
        var reader = MasterPlaylistReader(url: url)
        for line in text.lines { try reader.consume(line) }
        self = try reader.finish(lastLine: text.lastLineNumber)
    }

    public init(parsing text: String, url: String) throws(PresentationError) {
        try self.init(parsing: Array(text.utf8), url: url)
    }
}

/// Collects variants and renditions; a variant's URI is the URI line after its tag.
private struct MasterPlaylistReader {
    /// Tags that describe segments: in a master playlist they mean it is two playlists
    /// in one, and neither reading would be right.
    static let segmentTags: Set<Substring> = [
        "EXTINF", "EXT-X-TARGETDURATION", "EXT-X-MEDIA-SEQUENCE", "EXT-X-DISCONTINUITY-SEQUENCE", "EXT-X-BYTERANGE",
        "EXT-X-MAP", "EXT-X-KEY", "EXT-X-DISCONTINUITY", "EXT-X-GAP", "EXT-X-ENDLIST", "EXT-X-PLAYLIST-TYPE",
    ]

    let url: String
    var playlist: HLSMasterPlaylist
    /// An `EXT-X-STREAM-INF` waiting for its URI line.
    var pendingVariant: HLSVariant?
    /// Type, group and name of every rendition so far (a playlist may list thousands).
    var renditionNames: Set<[String]> = []

    init(url: String) {
        self.url = url
        playlist = HLSMasterPlaylist(
            url: url, version: nil, variants: [], renditions: [], sessionKeys: [], hasIndependentSegments: false,
            variables: HLSVariables())
    }

    mutating func consume(_ line: PlaylistText.Line) throws(PresentationError) {
        guard line.isTag else { return try completeVariant(line) }
        let tag = PlaylistTag(line, url: url)
        if Self.segmentTags.contains(tag.name) {
            throw tag.malformed("a media playlist tag in a master playlist")
        }
        switch tag.name {
        case "EXT-X-STREAM-INF":
            if let pendingVariant { throw noURILine(pendingVariant) }
            pendingVariant = try variant(tag, tag.attributes(substituting: &playlist.variables), iFrameOnly: false)
        case "EXT-X-I-FRAME-STREAM-INF":
            playlist.variants.append(
                try variant(tag, tag.attributes(substituting: &playlist.variables), iFrameOnly: true))
        case "EXT-X-MEDIA":
            try addRendition(tag)
        case "EXT-X-SESSION-KEY":
            if let key = try HLSKey.read(tag, tag.attributes(substituting: &playlist.variables), allowsNone: false) {
                playlist.sessionKeys.append(key)
            }
        case "EXT-X-DEFINE":
            let attributes = try tag.attributes()
            guard attributes["IMPORT"] == nil else { throw tag.malformed("IMPORT belongs in a media playlist") }
            try tag.reading { () throws(PlaylistSyntaxError) in
                try playlist.variables.define(attributes, playlistURL: url, imports: nil)
            }
        case "EXT-X-VERSION":
            playlist.version = try tag.reading { () throws(PlaylistSyntaxError) in
                try AttributeList.decimalInteger(tag.value, name: "the version")
            }
        case "EXT-X-INDEPENDENT-SEGMENTS":
            playlist.hasIndependentSegments = true
        case "EXT-X-START":
            playlist.start = HLSStart.read(try tag.attributes(substituting: &playlist.variables))
        case "EXT-X-SESSION-DATA":
            let a = try tag.attributes(substituting: &playlist.variables)
            let data = try tag.reading { () throws(PlaylistSyntaxError) in
                (
                    try a.required(a.quotedString("DATA-ID"), "DATA-ID"), try a.quotedString("VALUE"),
                    try a.quotedString("LANGUAGE")
                )
            }
            if let value = data.1 { playlist.sessionData.append(HLSSessionData(dataID: data.0, value: value, language: data.2)) }
        default:
            break
        }
    }

    private mutating func completeVariant(_ line: PlaylistText.Line) throws(PresentationError) {
        guard var variant = pendingVariant else {
            throw .malformed(
                url: url, line: line.number, tag: nil, reason: "a URI line without an #EXT-X-STREAM-INF before it")
        }
        do throws(PlaylistSyntaxError) {
            variant.uri = try PlaylistURI.resolve(playlist.variables.substitute(line.text), against: url)
        } catch {
            throw .malformed(url: url, line: line.number, tag: nil, reason: error.reason)
        }
        playlist.variants.append(variant)
        pendingVariant = nil
    }

    /// The variant a tag describes; an `EXT-X-STREAM-INF`'s URI is filled in later.
    private func variant(
        _ tag: PlaylistTag, _ a: AttributeList, iFrameOnly: Bool
    ) throws(PresentationError) -> HLSVariant {
        try tag.reading { () throws(PlaylistSyntaxError) in
            let closedCaptions: String? =
                switch a["CLOSED-CAPTIONS"] {
                case .bare("NONE"), nil: nil
                case .quoted(let group): group
                case .bare(let other):
                    throw PlaylistSyntaxError(
                        "CLOSED-CAPTIONS must be a quoted group or NONE, found \(PlaylistSyntaxError.quote(other))")
                }
            return HLSVariant(
                uri: iFrameOnly ? try PlaylistURI.resolve(a.required(a.quotedString("URI"), "URI"), against: url) : "",
                bandwidth: try a.required(a.decimalInteger("BANDWIDTH"), "BANDWIDTH"),
                averageBandwidth: try a.decimalInteger("AVERAGE-BANDWIDTH"), resolution: try a.resolution("RESOLUTION"),
                codecs: try a.quotedString("CODECS"), frameRate: try a.decimalFloat("FRAME-RATE"),
                audioGroup: try a.quotedString("AUDIO"), videoGroup: try a.quotedString("VIDEO"),
                subtitlesGroup: try a.quotedString("SUBTITLES"), closedCaptionsGroup: closedCaptions,
                isIFrameOnly: iFrameOnly, line: tag.line,
                described: a.attributes.filter { HLSVariant.describing.contains($0.name) })
        }
    }

    private mutating func addRendition(_ tag: PlaylistTag) throws(PresentationError) {
        let a = try tag.attributes(substituting: &playlist.variables)
        let rendition = try tag.reading { () throws(PlaylistSyntaxError) in
            let typeName = try a.required(a.enumeratedString("TYPE"), "TYPE")
            guard let type = HLSRendition.MediaType(rawValue: typeName) else {
                throw PlaylistSyntaxError(
                    "TYPE must be AUDIO, VIDEO, SUBTITLES or CLOSED-CAPTIONS, found "
                        + PlaylistSyntaxError.quote(typeName))
            }
            let uri = try a.quotedString("URI").map { written throws(PlaylistSyntaxError) in
                try PlaylistURI.resolve(written, against: url)
            }
            if type == .subtitles && uri == nil { throw PlaylistSyntaxError("a SUBTITLES rendition needs a URI") }
            if type == .closedCaptions && uri != nil {
                throw PlaylistSyntaxError("a CLOSED-CAPTIONS rendition has no URI")
            }
            return HLSRendition(
                type: type, groupID: try a.required(a.quotedString("GROUP-ID"), "GROUP-ID"),
                name: try a.required(a.quotedString("NAME"), "NAME"), language: try a.quotedString("LANGUAGE"),
                isDefault: try a.boolean("DEFAULT"), isAutoselect: try a.boolean("AUTOSELECT"), uri: uri,
                line: tag.line, described: a.attributes.filter { HLSRendition.describing.contains($0.name) })
        }
        // Names identify renditions (and their files) within a group.
        guard renditionNames.insert([rendition.type.rawValue, rendition.groupID, rendition.name]).inserted else {
            throw tag.malformed(
                "NAME \(PlaylistSyntaxError.quote(rendition.name)) appears twice in group "
                    + PlaylistSyntaxError.quote(rendition.groupID))
        }
        playlist.renditions.append(rendition)
    }

    private func noURILine(_ variant: HLSVariant) -> PresentationError {
        .malformed(url: url, line: variant.line, tag: "EXT-X-STREAM-INF", reason: "no URI line follows it")
    }

    func finish(lastLine: Int) throws(PresentationError) -> HLSMasterPlaylist {
        if let pendingVariant { throw noURILine(pendingVariant) }
        guard playlist.variants.contains(where: { !$0.isIFrameOnly }) else {
            throw .malformed(url: url, line: lastLine, tag: nil, reason: "the master playlist has no #EXT-X-STREAM-INF")
        }
        // A group named but never defined would silently lose a language or the subtitles.
        let groups = Set(renditionNames.map { Array($0.prefix(2)) })
        for variant in playlist.variants {
            // The attribute naming a group is spelled as the TYPE of its renditions.
            let references: [(HLSRendition.MediaType, String?)] = [
                (.audio, variant.audioGroup), (.video, variant.videoGroup), (.subtitles, variant.subtitlesGroup),
                (.closedCaptions, variant.closedCaptionsGroup),
            ]
            for case (let type, let group?) in references where !groups.contains([type.rawValue, group]) {
                throw .malformed(
                    url: url, line: variant.line,
                    tag: variant.isIFrameOnly ? "EXT-X-I-FRAME-STREAM-INF" : "EXT-X-STREAM-INF",
                    reason: "\(type.rawValue) group \(PlaylistSyntaxError.quote(group)) has no #EXT-X-MEDIA "
                        + "of TYPE=\(type.rawValue)")
            }
        }
        return playlist
    }
}

extension HLSStart {
    /// The start `tag` says; nil when it is malformed: a hint to players, not worth a
    /// title's failure.
    static func read(_ a: AttributeList) -> HLSStart? {
        guard let offset = try? a.enumeratedString("TIME-OFFSET"),
            (try? AttributeList.decimalFloat(offset.hasPrefix("-") ? String(offset.dropFirst()) : offset, name: "")) != nil,
            let precise = try? a.boolean("PRECISE")
        else { return nil }
        return HLSStart(timeOffset: offset, isPrecise: precise)
    }
}
