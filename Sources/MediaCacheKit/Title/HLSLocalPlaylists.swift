import Foundation

/// Writes a cached HLS title's own playlists: the renditions fetched, with every URI
/// pointing at the stored copy. Written from what was read (not by editing the origin's
/// text), so no variable, token or unfetched rendition survives into them.
///
/// `link` turns a stored path (relative to the title directory) into the URI written:
/// a relative path for `mediacache path`, a local URL for `serve`.
enum HLSLocalPlaylists {
    typealias Link = (_ storedPath: String, _ fromPlaylist: String) -> String

    /// A path from the playlist at `playlist` to the file at `stored`, both relative to
    /// the title directory.
    static func relative(_ stored: String, from playlist: String) -> String {
        let from = playlist.split(separator: "/").dropLast()
        let to = stored.split(separator: "/")
        let common = zip(from, to).prefix { $0 == $1 }.count
        return (Array(repeating: "..", count: from.count - common) + to.dropFirst(common).map(String.init))
            .joined(separator: "/")
    }

    /// The media playlist of `rendition`, stored at `rendition.localPlaylist`.
    static func media(_ rendition: HLSTitlePlan.Rendition, link: Link = relative) -> String {
        let playlist = rendition.playlist
        let here = rendition.localPlaylist
        func uri(_ url: String) -> String { link(rendition.storedPaths[url] ?? url, here) }
        let longest = playlist.segments.map(\.duration).max() ?? 0
        let target = max(playlist.targetDuration ?? 0, Int(longest.rounded(.up)), 1)
        var lines = [
            "#EXTM3U",
            // 6 covers EXT-X-MAP without I-frames, byte ranges and IVs; GAP needs 8.
            "#EXT-X-VERSION:\(max(playlist.version ?? 3, playlist.segments.contains(where: \.isGap) ? 8 : 6))",
            "#EXT-X-TARGETDURATION:\(target)",
            "#EXT-X-MEDIA-SEQUENCE:\(playlist.segments.first?.mediaSequence ?? 0)",
            "#EXT-X-PLAYLIST-TYPE:VOD",
        ]
        if let first = playlist.segments.first, first.discontinuitySequence != 0 {
            lines.append("#EXT-X-DISCONTINUITY-SEQUENCE:\(first.discontinuitySequence)")
        }
        if playlist.hasIndependentSegments { lines.append("#EXT-X-INDEPENDENT-SEGMENTS") }
        if let start = playlist.start { lines.append(startTag(start)) }
        var key: HLSKey?
        var section: Int?
        var discontinuity = playlist.segments.first?.discontinuitySequence
        for segment in playlist.segments {
            if segment.discontinuitySequence != discontinuity {
                lines.append("#EXT-X-DISCONTINUITY")
                discontinuity = segment.discontinuitySequence
            }
            // A key applies to the maps after it as to the segments (RFC 8216 4.3.2.5): each
            // map is written under the key it was declared under, which may not be its
            // segments' (a clear init section before encrypted segments).
            func write(_ wanted: HLSKey?) {
                guard wanted != key else { return }
                key = wanted
                lines.append(keyTag(wanted, uri: wanted.map { uri($0.uri) }))
            }
            if segment.initSection != section, let index = segment.initSection {
                section = index
                let map = playlist.initSections[index]
                write(map.key)
                var tag = "#EXT-X-MAP:URI=\(quoted(uri(map.uri)))"
                if let range = map.byteRange { tag += ",BYTERANGE=\"\(range.count)@\(range.start)\"" }
                lines.append(tag)
            }
            write(segment.key)
            if let dateTime = segment.programDateTime { lines.append("#EXT-X-PROGRAM-DATE-TIME:" + dateTime) }
            lines.append("#EXTINF:\(decimal(segment.duration)),")
            if let range = segment.byteRange { lines.append("#EXT-X-BYTERANGE:\(range.count)@\(range.start)") }
            if segment.isGap {
                // A URI line is required; it names nothing, and players skip a gap.
                lines.append("#EXT-X-GAP")
                lines.append("gap-\(segment.mediaSequence).ts")
            } else {
                lines.append(uri(segment.uri))
            }
        }
        lines.append("#EXT-X-ENDLIST")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The master playlist stored at `entry`: the variants and renditions fetched.
    static func master(
        _ master: HLSMasterPlaylist, renditions: [HLSTitlePlan.Rendition], entry: String, link: Link = relative
    ) -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:\(max(master.version ?? 3, 6))"]
        if master.hasIndependentSegments { lines.append("#EXT-X-INDEPENDENT-SEGMENTS") }
        if let start = master.start { lines.append(startTag(start)) }
        for data in master.sessionData {
            var attributes = ["DATA-ID=\(quoted(data.dataID))", "VALUE=\(quoted(data.value))"]
            if let language = data.language { attributes.append("LANGUAGE=\(quoted(language))") }
            lines.append("#EXT-X-SESSION-DATA:" + attributes.joined(separator: ","))
        }
        let fetched = Dictionary(renditions.map { ($0.selected.uri, $0) }, uniquingKeysWith: { first, _ in first })
        let listed = master.variants.filter { !$0.isIFrameOnly && fetched[$0.uri] != nil }
        // An entry whose audio group was not fetched (Apple lists each video playlist once
        // per audio group) is left out: a player choosing it would play without sound.
        // A playlist no entry of which has its audio keeps its first entry.
        func audioHeld(_ variant: HLSVariant) -> Bool {
            guard let group = variant.audioGroup, !master.renditions(.audio, group: group).isEmpty else { return true }
            return hasRenditions(master, .audio, group, fetched: fetched)
        }
        let withAudio = Set(listed.filter(audioHeld).map(\.uri))
        var kept: Set<String> = []
        let variants = listed.filter { variant in
            if audioHeld(variant) { return true }
            return !withAudio.contains(variant.uri) && kept.insert(variant.uri).inserted
        }
        // Each group the fetched variants use: its fetched renditions, and those whose
        // media is in the variants' own segments (no URI).
        var groupsWritten: Set<String> = []
        for variant in variants {
            let groups = [
                (HLSRendition.MediaType.audio, variant.audioGroup), (.subtitles, variant.subtitlesGroup),
                (.closedCaptions, variant.closedCaptionsGroup),
            ]
            for (type, group) in groups {
                guard let group, groupsWritten.insert("\(type.rawValue)\n\(group)").inserted else { continue }
                var kept: [(rendition: HLSRendition, uri: String?)] = []
                for rendition in master.renditions(type, group: group) {
                    if let uri = rendition.uri {
                        guard let local = fetched[uri] else { continue }
                        kept.append((rendition, link(local.localPlaylist, entry)))
                    } else {
                        kept.append((rendition, nil))
                    }
                }
                // Audio chosen by language may leave out the group's default: a player
                // that takes only a DEFAULT or AUTOSELECT rendition (AVPlayer) would then
                // play none, so the first kept one becomes the default.
                if type == .audio, !kept.isEmpty, !kept.contains(where: \.rendition.isDefault) {
                    kept[0].rendition.isDefault = true
                }
                lines += kept.map { mediaTag($0.rendition, uri: $0.uri) }
            }
        }
        for variant in variants {
            guard let local = fetched[variant.uri] else { continue }
            var attributes = ["BANDWIDTH=\(variant.bandwidth)"]
            if let average = variant.averageBandwidth { attributes.append("AVERAGE-BANDWIDTH=\(average)") }
            if let codecs = variant.codecs { attributes.append("CODECS=\(quoted(codecs))") }
            if let resolution = variant.resolution { attributes.append("RESOLUTION=\(resolution.width)x\(resolution.height)") }
            if let rate = variant.frameRate { attributes.append("FRAME-RATE=\(decimal(rate))") }
            if let group = variant.audioGroup, hasRenditions(master, .audio, group, fetched: fetched) {
                attributes.append("AUDIO=\(quoted(group))")
            }
            if let group = variant.subtitlesGroup, hasRenditions(master, .subtitles, group, fetched: fetched) {
                attributes.append("SUBTITLES=\(quoted(group))")
            }
            // Closed captions are in the video's own segments: always held.
            if let group = variant.closedCaptionsGroup { attributes.append("CLOSED-CAPTIONS=\(quoted(group))") }
            attributes += variant.described.map(written)
            lines.append("#EXT-X-STREAM-INF:" + attributes.joined(separator: ","))
            lines.append(link(local.localPlaylist, entry))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Whether `group` still has a rendition in the local master (a group whose
    /// tracks were all left out must not be named).
    private static func hasRenditions(
        _ master: HLSMasterPlaylist, _ type: HLSRendition.MediaType, _ group: String,
        fetched: [String: HLSTitlePlan.Rendition]
    ) -> Bool {
        master.renditions(type, group: group).contains { rendition in
            rendition.uri.map { fetched[$0] != nil } ?? true
        }
    }

    private static func mediaTag(_ rendition: HLSRendition, uri: String?) -> String {
        var attributes = ["TYPE=\(rendition.type.rawValue)", "GROUP-ID=\(quoted(rendition.groupID))", "NAME=\(quoted(rendition.name))"]
        if let language = rendition.language { attributes.append("LANGUAGE=\(quoted(language))") }
        attributes.append("DEFAULT=\(rendition.isDefault ? "YES" : "NO")")
        attributes.append("AUTOSELECT=\(rendition.isAutoselect || rendition.isDefault ? "YES" : "NO")")
        attributes += rendition.described.map(written)
        if let uri { attributes.append("URI=\(quoted(uri))") }
        return "#EXT-X-MEDIA:" + attributes.joined(separator: ",")
    }

    private static func startTag(_ start: HLSStart) -> String {
        "#EXT-X-START:TIME-OFFSET=\(start.timeOffset)" + (start.isPrecise ? ",PRECISE=YES" : "")
    }

    /// An attribute as read: a quoted string quoted again, anything else as it was.
    private static func written(_ attribute: AttributeList.Attribute) -> String {
        switch attribute.value {
        case .quoted(let text): "\(attribute.name)=\(quoted(text))"
        case .bare(let text): "\(attribute.name)=\(text)"
        }
    }

    private static func keyTag(_ key: HLSKey?, uri: String?) -> String {
        guard let key, let uri else { return "#EXT-X-KEY:METHOD=NONE" }
        var tag = "#EXT-X-KEY:METHOD=\(key.method.rawValue),URI=\(quoted(uri))"
        if let iv = key.iv { tag += ",IV=0x" + iv.map { String(format: "%02X", $0) }.joined() }
        if key.keyFormat != "identity" { tag += ",KEYFORMAT=\(quoted(key.keyFormat))" }
        return tag
    }

    /// A quoted-string attribute value; the reader refused quotes and line breaks in
    /// values, so nothing needs escaping.
    private static func quoted(_ value: String) -> String { "\"" + value + "\"" }

    /// Seconds as a decimal without exponent, to the microsecond, trailing zeros trimmed.
    /// Written once per segment of every local playlist: integer arithmetic, as
    /// Foundation's `String(format:)` cost more than the rest of the playlist's text.
    static func decimal(_ value: Double) -> String {
        let micros = (value * 1_000_000).rounded()
        // A duration is never negative and far below this; anything else the long way.
        guard micros.isFinite, micros >= 0, micros < 1e15 else {
            var text = String(format: "%.6f", value)
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
            return text
        }
        let whole = Int64(micros) / 1_000_000
        var fraction = Int64(micros) % 1_000_000
        guard fraction != 0 else { return String(whole) }
        var digits = 6
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        let written = String(fraction)
        return String(whole) + "." + String(repeating: "0", count: digits - written.count) + written
    }
}
