/// Writes a cached DASH title's own MPD: a static MPD of the chosen representations
/// whose every URL points at the stored copy, relative to the MPD. Written from what was
/// read (not by editing the origin's text), so no token, BaseURL or unchosen
/// representation survives into it.
///
/// A segmented representation is a `SegmentList` (`Initialization@sourceURL`, one
/// `SegmentURL@media` per segment) with a `SegmentTimeline` when the durations are known,
/// in the origin's timescale, times and `presentationTimeOffset`: a player that places
/// segments in its buffer by the MPD's times (dash.js, Shaka) finds each where the
/// origin's MPD put it, gaps included; ffmpeg 5.1's dash demuxer plays it frame for frame
/// as the origin's `SegmentTemplate`. A single file, or segments that are byte ranges of one
/// file, is a `BaseURL`; a single file keeps its `SegmentBase` (where its header and
/// `sidx` index lie), which ffmpeg 5.1 plays too.
///
/// Stored paths are written as they are: they hold only letters, digits, `.`, `_`, `-`
/// and `~` (see `RenditionIdentity`), so a player that percent-decodes a relative URL
/// and one that does not (ffmpeg) open the same file.
enum DASHLocalManifest {
    /// The MPD of `plan`, to be stored at `path` (relative to the title directory).
    static func mpd(_ plan: DASHTitlePlan, at path: String = "manifest.mpd", link: HLSLocalPlaylists.Link = HLSLocalPlaylists.relative) -> String {
        let manifest = plan.manifest
        var out = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
        out += "<MPD xmlns=\"urn:mpeg:dash:schema:mpd:2011\" type=\"static\""
        out += " profiles=\"urn:mpeg:dash:profile:full:2011\" minBufferTime=\"PT2S\""
        if let duration = manifest.duration ?? totalDuration(manifest) {
            out += " mediaPresentationDuration=\"\(seconds(duration))\""
        }
        out += ">\n"
        for (index, period) in manifest.periods.enumerated() {
            let chosen = plan.renditions.filter { $0.selected.period == index }
            guard !chosen.isEmpty else { continue }
            out += "  <Period" + attributes([
                ("id", period.id), ("start", seconds(period.start)), ("duration", period.duration.map(seconds)),
            ]) + ">\n"
            // One AdaptationSet per chosen set, in the MPD's order; its representations
            // in the MPD's order too.
            for set in period.adaptationSets {
                let members = set.representations.compactMap { representation in
                    chosen.first { $0.selected.representation == representation }
                }
                guard !members.isEmpty else { continue }
                out += adaptationSet(set, members, period: period, from: path, link: link)
            }
            out += "  </Period>\n"
        }
        return out + "</MPD>\n"
    }

    private static func adaptationSet(
        _ set: DASHAdaptationSet, _ members: [DASHTitlePlan.Rendition], period: DASHPeriod, from path: String,
        link: HLSLocalPlaylists.Link
    ) -> String {
        var out = "    <AdaptationSet" + attributes([
            ("id", set.id), ("contentType", set.contentType == .unknown ? nil : set.contentType.rawValue),
            ("lang", set.language),
        ]) + ">\n"
        for role in set.roles {
            out += "      <Role schemeIdUri=\"urn:mpeg:dash:role:2011\" value=\"\(escaped(role))\"/>\n"
        }
        let shared = sharedTimeline(of: members)
        if let shared { out += "      " + segmentListOpening(shared.timing) + "\n        " + shared.timeline + "\n      </SegmentList>\n" }
        for rendition in members {
            out += representation(rendition, period: period, from: path, link: link, timelineAbove: shared != nil)
        }
        return out + "    </AdaptationSet>\n"
    }

    /// The timing and timeline every member's segment list has alike, nil when they
    /// differ or one has none. Written once on the AdaptationSet's own SegmentList, which
    /// the representations' lists inherit (section 5.3.9.1): ffmpeg's dash demuxer seeks
    /// only by a timeline it finds there (one in a representation's list it never reads).
    private static func sharedTimeline(
        of members: [DASHTitlePlan.Rendition]
    ) -> (timing: DASHSegmentTiming, timeline: String)? {
        var shared: (timing: DASHSegmentTiming, timeline: String)?
        for member in members {
            let representation = member.selected.representation
            guard case .segments(let segments) = representation.media,
                !isOneFile(segments, initialization: representation.initialization)
            else { return nil }
            let timing = Self.timing(of: representation)
            guard let timeline = timeline(segments, timescale: timing.timescale) else { return nil }
            if let shared, shared != (timing, timeline) { return nil }
            shared = (timing, timeline)
        }
        return shared
    }

    private static func timing(of representation: DASHRepresentation) -> DASHSegmentTiming {
        representation.segmentTiming ?? DASHSegmentTiming(timescale: 1, presentationTimeOffset: 0)
    }

    private static func segmentListOpening(_ timing: DASHSegmentTiming) -> String {
        "<SegmentList" + attributes([
            ("timescale", String(timing.timescale)),
            ("presentationTimeOffset", timing.presentationTimeOffset == 0 ? nil : String(timing.presentationTimeOffset)),
        ]) + ">"
    }

    /// `timelineAbove`: its AdaptationSet's SegmentList has its timing and timeline.
    private static func representation(
        _ rendition: DASHTitlePlan.Rendition, period: DASHPeriod, from path: String, link: HLSLocalPlaylists.Link,
        timelineAbove: Bool
    ) -> String {
        let representation = rendition.selected.representation
        func url(_ uri: String) -> String { link(rendition.storedPaths[uri] ?? uri, path) }
        var out = "      <Representation" + attributes([
            ("id", representation.id), ("bandwidth", String(representation.bandwidth)),
            ("width", representation.width.map(String.init)), ("height", representation.height.map(String.init)),
            ("codecs", representation.codecs), ("mimeType", representation.mimeType),
        ]) + ">\n"
        let initialization = representation.initialization.map { resource in
            "<Initialization" + attributes([
                ("sourceURL", url(resource.uri)), ("range", resource.byteRange.map(inclusive)),
            ]) + "/>"
        }
        switch representation.media {
        case .segments(let segments) where isOneFile(segments, initialization: representation.initialization):
            // Byte ranges of one file, stored as one file that holds them all: a BaseURL
            // alone plays in ffmpeg 5.1, whose dash demuxer misreads `mediaRange`.
            out += "        <BaseURL>\(escaped(url(segments[0].uri)))</BaseURL>\n"
        case .singleFile(let uri):
            out += "        <BaseURL>\(escaped(url(uri)))</BaseURL>\n"
            out += segmentBase(representation.fileIndex ?? DASHFileIndex(), initialization: initialization)
        case .segments(let segments):
            // No startNumber: ffmpeg 5.1 then takes the list for a template ("missing
            // template URL"). The numbers live on in the stored paths.
            if timelineAbove {
                out += "        <SegmentList>\n"
            } else {
                let timing = timing(of: representation)
                out += "        " + segmentListOpening(timing) + "\n"
                if let timeline = timeline(segments, timescale: timing.timescale) { out += "          " + timeline + "\n" }
            }
            if let initialization { out += "          " + initialization + "\n" }
            for segment in segments {
                out += "          <SegmentURL" + attributes([
                    ("media", url(segment.uri)), ("mediaRange", segment.byteRange.map(inclusive)),
                ]) + "/>\n"
            }
            out += "        </SegmentList>\n"
        }
        return out + "      </Representation>\n"
    }

    /// A single file's `SegmentBase` as the origin's MPD wrote it (its ranges hold in the
    /// stored copy, which is the origin's bytes); nothing when it says nothing.
    private static func segmentBase(_ index: DASHFileIndex, initialization: String?) -> String {
        let inside = initialization ?? index.initializationRange.map { "<Initialization range=\"\(inclusive($0))\"/>" }
        guard inside != nil || !index.isEmpty else { return "" }
        let opening = "        <SegmentBase" + attributes([
            ("timescale", index.timescale.map(String.init)),
            ("presentationTimeOffset", index.presentationTimeOffset.map(String.init)),
            ("indexRange", index.indexRange.map(inclusive)), ("indexRangeExact", index.indexRangeExact ? "true" : nil),
        ])
        guard let inside else { return opening + "/>\n" }
        return opening + ">" + inside + "</SegmentBase>\n"
    }

    /// Whether every segment (and the initialization) is a byte range of one and the same file.
    static func isOneFile(_ segments: [DASHSegment], initialization: DASHResource?) -> Bool {
        guard let uri = segments.first?.uri else { return false }
        let uses = segments.map { DASHResource(uri: $0.uri, byteRange: $0.byteRange) } + [initialization].compactMap(\.self)
        return uses.allSatisfy { $0.uri == uri && $0.byteRange != nil }
    }

    /// A `SegmentTimeline` of the segments' times and durations in `timescale` (as the
    /// origin's MPD had them): `@t` on the first and after a gap, equal durations run
    /// together with `@r`; nil when some time is unknown (a SegmentList that gave none).
    static func timeline(_ segments: [DASHSegment], timescale: Int64) -> String? {
        var spans: [DASHSpan] = []
        for segment in segments {
            guard let time = segment.time, let duration = segment.duration else { return nil }
            // Read as ticks ÷ timescale (timescale below 2^32): exact back for ticks below 2^52.
            spans.append((time, Int64((duration * Double(timescale)).rounded())))
        }
        guard !spans.isEmpty else { return nil }
        var out = "<SegmentTimeline>"
        var index = 0
        var end: Int64?
        while index < spans.count {
            let (time, duration) = spans[index]
            var repeats = 0
            while index + repeats + 1 < spans.count, spans[index + repeats + 1].duration == duration,
                spans[index + repeats + 1].time == time + Int64(repeats + 1) * duration
            {
                repeats += 1
            }
            out += "<S" + (time == end ? "" : " t=\"\(time)\"") + " d=\"\(duration)\"" + (repeats > 0 ? " r=\"\(repeats)\"" : "") + "/>"
            end = time + Int64(repeats + 1) * duration
            index += repeats + 1
        }
        return out + "</SegmentTimeline>"
    }

    /// Where the last Period known to end ends, when the MPD does not say its length.
    private static func totalDuration(_ manifest: DASHManifest) -> Double? {
        guard let last = manifest.periods.last, let duration = last.duration else { return nil }
        return last.start + duration
    }

    /// `first-last`, inclusive, as MPDs write byte ranges.
    private static func inclusive(_ range: ByteRange) -> String { "\(range.start)-\(range.end - 1)" }

    /// An `xs:duration` in seconds: `PT7.04S`.
    static func seconds(_ value: Double) -> String { "PT" + HLSLocalPlaylists.decimal(value) + "S" }

    /// ` name="value"` for each value present, escaped.
    private static func attributes(_ pairs: [(String, String?)]) -> String {
        pairs.compactMap { name, value in value.map { " \(name)=\"\(escaped($0))\"" } }.joined()
    }

    /// `text` safe inside a double-quoted attribute or as element content.
    static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n": out += "&#10;"
            case "\t": out += "&#9;"
            case "\r": out += "&#13;"
            default: out.append(character)
            }
        }
        return out
    }
}
