import Foundation

extension HLSMediaPlaylist {
    /// Reads a complete media playlist fetched from `url` (its final URL, after
    /// redirects). `imports` are the master playlist's variables when it was named by
    /// one (for `EXT-X-DEFINE:IMPORT`). Live playlists, DRM and malformed tags are
    /// refused; unknown tags are ignored, as RFC 8216 asks.
    public init(parsing bytes: [UInt8], url: String, imports: HLSVariables? = nil) throws(PresentationError) {
        let text = try PlaylistText(bytes, url: url)
        guard !text.containsMasterTags else { throw .wrongKind(url: url, isMaster: true) }
        var reader = MediaPlaylistReader(url: url, imports: imports)
        for line in text.lines { try reader.consume(line) }
        self = try reader.finish(lastLine: text.lastLineNumber)
    }

    public init(parsing text: String, url: String, imports: HLSVariables? = nil) throws(PresentationError) {
        try self.init(parsing: Array(text.utf8), url: url, imports: imports)
    }
}

/// Turns the lines of a media playlist into segments: the tags before a URI line say
/// what that segment is, `EXT-X-KEY` and `EXT-X-MAP` hold until the next of their kind.
private struct MediaPlaylistReader {
    let url: String
    let imports: HLSVariables?
    var variables = HLSVariables()
    var version: Int?
    var targetDuration: Int?
    var playlistType: HLSPlaylistType?
    var hasEndList = false
    var hasIndependentSegments = false
    var start: HLSStart?
    var initSections: [HLSInitSection] = []
    /// Where each distinct map is in `initSections`.
    var initSectionIndices: [HLSInitSection: Int] = [:]
    var segments: [HLSSegment] = []

    var firstMediaSequence = 0
    var firstDiscontinuitySequence = 0
    var discontinuities = 0
    var currentInitSection: Int?
    var currentKey: HLSKey?
    /// Where the last byte range of each URI ended: the start of its next one without
    /// an offset.
    var rangeEnds: [String: Int64] = [:]

    /// What the tags since the last URI line said about the next segment.
    var pendingDuration: (seconds: Double, line: Int)?
    var pendingRange: HLSByteRangeSpec?
    var pendingGap = false
    var pendingDateTime: String?

    init(url: String, imports: HLSVariables?) {
        self.url = url
        self.imports = imports
    }

    mutating func consume(_ line: PlaylistText.Line) throws(PresentationError) {
        guard line.isTag else { return try addSegment(line) }
        let tag = PlaylistTag(line, url: url)
        switch tag.name {
        case "EXTINF":
            guard pendingDuration == nil else { throw tag.malformed("a second #EXTINF before the segment's URI line") }
            // `#EXTINF:<duration>,[<title>]`; the title is for people.
            let seconds = tag.value.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false)[0]
            pendingDuration = (try number(tag, seconds, AttributeList.decimalFloat), tag.line)
        case "EXT-X-BYTERANGE":
            pendingRange = try tag.reading { () throws(PlaylistSyntaxError) in
                try HLSByteRangeSpec(parsing: tag.value)
            }
        case "EXT-X-GAP":
            pendingGap = true
        case "EXT-X-PROGRAM-DATE-TIME":
            // An ISO 8601 date-time: kept as written when it looks like one.
            let value = tag.value.trimmingCharacters(in: .whitespaces)
            if value.count <= 64, value.first?.isNumber == true,
                value.allSatisfy({ $0.isASCII && ($0.isNumber || "-:.+TZtz".contains($0)) })
            {
                pendingDateTime = value
            }
        case "EXT-X-DISCONTINUITY":
            discontinuities += 1
        case "EXT-X-TARGETDURATION":
            targetDuration = try number(tag, tag.value, AttributeList.decimalInteger)
        case "EXT-X-MEDIA-SEQUENCE":
            try requireNoSegmentYet(tag)
            firstMediaSequence = try number(tag, tag.value, AttributeList.decimalInteger)
        case "EXT-X-DISCONTINUITY-SEQUENCE":
            try requireNoSegmentYet(tag)
            firstDiscontinuitySequence = try number(tag, tag.value, AttributeList.decimalInteger)
        case "EXT-X-MAP":
            try addInitSection(tag)
        case "EXT-X-KEY":
            currentKey = try HLSKey.read(tag, tag.attributes(substituting: &variables), allowsNone: true)
        case "EXT-X-ENDLIST":
            hasEndList = true
        case "EXT-X-PLAYLIST-TYPE":
            guard let type = HLSPlaylistType(rawValue: String(tag.value)) else {
                throw tag.malformed("the type must be VOD or EVENT, found \(PlaylistSyntaxError.quote(tag.value))")
            }
            playlistType = type
        case "EXT-X-DEFINE":
            let attributes = try tag.attributes()
            try tag.reading { () throws(PlaylistSyntaxError) in
                try variables.define(attributes, playlistURL: url, imports: imports)
            }
        case "EXT-X-VERSION":
            version = try number(tag, tag.value, AttributeList.decimalInteger)
        case "EXT-X-INDEPENDENT-SEGMENTS":
            hasIndependentSegments = true
        case "EXT-X-START":
            start = HLSStart.read(try tag.attributes(substituting: &variables))
        default:
            // EXT-X-DATERANGE, tags of later versions: nothing to fetch or check.
            break
        }
    }

    private mutating func addSegment(_ line: PlaylistText.Line) throws(PresentationError) {
        let url = url
        let malformed = { (reason: String) in
            PresentationError.malformed(url: url, line: line.number, tag: nil, reason: reason)
        }
        guard let duration = pendingDuration else { throw malformed("a URI line without an #EXTINF before it") }
        guard segments.count < HLSMediaPlaylist.maxSegments else { throw .tooManySegments(url: url, line: line.number) }
        let uri: String
        var byteRange: ByteRange?
        do throws(PlaylistSyntaxError) {
            uri = try PlaylistURI.resolve(variables.substitute(line.text), against: url)
            if let pendingRange {
                byteRange = try pendingRange.range(continuing: rangeEnds[uri])
            }
        } catch {
            throw malformed(error.reason)
        }
        let (sequence, sequenceOverflow) = firstMediaSequence.addingReportingOverflow(segments.count)
        let (discontinuity, discontinuityOverflow) = firstDiscontinuitySequence.addingReportingOverflow(discontinuities)
        guard !sequenceOverflow, !discontinuityOverflow else { throw malformed("sequence numbers pass 2^63") }
        if let byteRange { rangeEnds[uri] = byteRange.end }
        segments.append(
            HLSSegment(
                uri: uri, duration: duration.seconds, mediaSequence: sequence, discontinuitySequence: discontinuity,
                byteRange: byteRange, initSection: currentInitSection, key: currentKey, isGap: pendingGap,
                line: line.number, programDateTime: pendingDateTime))
        pendingDuration = nil
        pendingRange = nil
        pendingGap = false
        pendingDateTime = nil
    }

    private mutating func addInitSection(_ tag: PlaylistTag) throws(PresentationError) {
        let attributes = try tag.attributes(substituting: &variables)
        let section = try tag.reading { () throws(PlaylistSyntaxError) in
            let uri = try PlaylistURI.resolve(attributes.required(attributes.quotedString("URI"), "URI"), against: url)
            // A map's range never continues a segment's: without an offset it starts at 0.
            let range = try attributes.quotedString("BYTERANGE").map { text throws(PlaylistSyntaxError) in
                try HLSByteRangeSpec(parsing: text).range(continuing: 0)
            }
            return HLSInitSection(uri: uri, byteRange: range, key: currentKey)
        }
        // The same map written again (ffmpeg repeats it after each discontinuity) is
        // one resource, fetched once.
        if let known = initSectionIndices[section] {
            currentInitSection = known
        } else {
            currentInitSection = initSections.count
            initSectionIndices[section] = initSections.count
            initSections.append(section)
        }
    }

    private func requireNoSegmentYet(_ tag: PlaylistTag) throws(PresentationError) {
        guard segments.isEmpty && pendingDuration == nil else {
            throw tag.malformed("must come before the first segment")
        }
    }

    private func number<T>(
        _ tag: PlaylistTag, _ text: Substring, _ read: (Substring, String) throws(PlaylistSyntaxError) -> T
    ) throws(PresentationError) -> T {
        // Trimmed only when it needs it: Foundation's trimming is most of a segment's cost.
        let padded = text.first?.isWhitespace == true || text.last?.isWhitespace == true
        let value = padded ? text.trimmingCharacters(in: .whitespaces)[...] : text
        return try tag.reading { () throws(PlaylistSyntaxError) in try read(value, "the value") }
    }

    func finish(lastLine: Int) throws(PresentationError) -> HLSMediaPlaylist {
        if let pendingDuration {
            throw .malformed(url: url, line: pendingDuration.line, tag: "EXTINF", reason: "no URI line follows it")
        }
        // An empty one (`#EXTM3U` alone, a master without variants) is no live title.
        guard !segments.isEmpty || targetDuration != nil || hasEndList else {
            throw .malformed(url: url, line: lastLine, tag: nil, reason: "the playlist is empty: no media segments, no variants")
        }
        guard hasEndList || playlistType == .vod else { throw .live(url: url) }
        guard !segments.isEmpty else {
            throw .malformed(url: url, line: lastLine, tag: nil, reason: "the playlist has no media segments")
        }
        return HLSMediaPlaylist(
            url: url, version: version, targetDuration: targetDuration, playlistType: playlistType,
            hasIndependentSegments: hasIndependentSegments, variables: variables, initSections: initSections,
            segments: segments, start: start)
    }
}
