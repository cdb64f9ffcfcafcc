/// What fetching a DASH title means: for each chosen representation, where each of its
/// URIs is stored, and every resource in the order a player needs them (all
/// representations advance together across Periods, so what has arrived plays from the
/// start).
///
/// Stored paths come from the representation's identity and the segment's number,
/// never from a URL: a title resumed with fresh tokens maps onto what it holds.
struct DASHTitlePlan: Sendable {
    struct Rendition: Sendable {
        var selected: DASHSelectedRepresentation
        /// The adaptation set it was chosen from (for the local MPD's attributes).
        var adaptationSet: DASHAdaptationSet
        /// Where each URI of the representation is stored, relative to the title directory.
        var storedPaths: [String: String]
    }

    var manifest: DASHManifest
    var renditions: [Rendition]
    var resources: [TitleResource]

    /// Plans `chosen` (as `DASHRenditionSelection` gives them, in choice order) of `manifest`.
    init(manifest: DASHManifest, chosen: [DASHSelectedRepresentation]) {
        self.manifest = manifest
        var planned: [Rendition] = []
        var timeline: [TitlePlanning.Timed] = []
        for (order, selected) in chosen.enumerated() {
            let period = manifest.periods[selected.period]
            let representation = selected.representation
            let folder = selected.identity
            var stored: [String: String] = [:]

            // A URI fetched whole by anything is stored whole; one only ever fetched by
            // ranges is one ranged file up to its last range's end (one request, not one
            // per range).
            var whole: Set<String> = []
            var rangedEnds: [String: Int64] = [:]
            var rangeCounts: [String: Int] = [:]
            for segment in representation.media.segments where segment.byteRange != nil {
                rangeCounts[segment.uri, default: 0] += 1
            }
            let uses = ([representation.initialization].compactMap(\.self))
                + representation.media.segments.map { DASHResource(uri: $0.uri, byteRange: $0.byteRange) }
            // A single file is whole even if its initialization is a range of it.
            if case .singleFile(let uri) = representation.media { whole.insert(uri) }
            for use in uses {
                if let range = use.byteRange {
                    rangedEnds[use.uri] = max(rangedEnds[use.uri] ?? 0, range.end)
                } else {
                    whole.insert(use.uri)
                }
            }

            var fileCount = 0
            func add(
                _ uri: String, at time: Double, name: String, fallback: String, kind: TitleResource.Kind, label: String,
                segment: Int? = nil, segments: Int = 0
            ) {
                guard stored[uri] == nil else { return }
                let resource: TitleResource
                if !whole.contains(uri), let end = rangedEnds[uri] {
                    fileCount += 1
                    resource = TitleResource(
                        path: "\(folder)/file-\(fileCount).\(HLSTitlePlan.fileExtension(uri, fallback: "mp4"))", url: uri,
                        range: ByteRange(0, end), kind: .rangedFile, rendition: folder,
                        label: "file \(fileCount) of \(folder), which its byte ranges point into",
                        segments: rangeCounts[uri] ?? 0)
                } else {
                    resource = TitleResource(
                        path: "\(folder)/\(name).\(Self.storedExtension(uri, fallback: fallback))", url: uri,
                        range: nil, kind: kind, rendition: folder, label: label, segment: segment, segments: segments)
                }
                stored[uri] = resource.path
                timeline.append((time, order, resource))
            }

            if let initialization = representation.initialization {
                add(initialization.uri, at: period.start, name: "init", fallback: "mp4", kind: .initSection,
                    label: "the initialization of \(folder)")
            }
            switch representation.media {
            case .singleFile(let uri):
                // Stored whole as served, its index (sidx) inside it; a media file comes in
                // pieces, as a progressive file does, a subtitle file in one request.
                let isText = selected.kind == .text
                add(uri, at: period.start, name: "file", fallback: Self.fallback(representation, segmented: false),
                    kind: isText ? .segment : .rangedFile, label: "the file of \(folder)", segments: 1)
            case .segments(let segments):
                let times = Self.startTimes(segments, period: period)
                let fallback = Self.fallback(representation, segmented: true)
                for (segment, time) in zip(segments, times) {
                    add(segment.uri, at: time, name: "s\(segment.number)", fallback: fallback, kind: .segment,
                        label: "segment \(segment.number) of \(folder)", segment: segment.number, segments: 1)
                }
            }
            let set = period.adaptationSets.first { $0.representations.contains(representation) }
            planned.append(
                Rendition(
                    selected: selected,
                    adaptationSet: set
                        ?? DASHAdaptationSet(
                            id: nil, contentType: .unknown, language: nil, roles: [], isTrickMode: false,
                            representations: [representation], line: representation.line),
                    storedPaths: stored))
        }
        renditions = planned
        resources = TitlePlanning.presentationOrder(timeline)
    }

    /// A digest of each representation's make-up (stored paths, ranges, segment numbers,
    /// times and durations), never of URLs: the same title with fresh tokens has the same
    /// shape; one re-cut on the origin has another, and what was held of it is not used.
    var shapes: [String: String] {
        var texts = TitlePlanning.resourceShapes(resources)
        for rendition in renditions {
            for segment in rendition.selected.representation.media.segments {
                let time = segment.time.map { String($0) } ?? "-"
                let duration = segment.duration.map { String($0) } ?? "-"
                let range = segment.byteRange?.description ?? "-"
                texts[rendition.selected.identity, default: ""] += " \(segment.number):\(time):\(duration):\(range)"
            }
        }
        return texts.mapValues { Digest.sha256Hex($0) }
    }

    /// When each segment starts, in seconds of the title: its Period's start plus the
    /// durations before it; a list without durations spreads its segments evenly over
    /// the Period (or one second apiece when its length is unknown), which is only for
    /// ordering.
    static func startTimes(_ segments: [DASHSegment], period: DASHPeriod) -> [Double] {
        var times: [Double] = []
        times.reserveCapacity(segments.count)
        var elapsed = 0.0
        let even = period.duration.map { $0 / Double(max(segments.count, 1)) } ?? 1
        for segment in segments {
            times.append(period.start + elapsed)
            elapsed += segment.duration ?? even
        }
        return times
    }

    /// The extension a stored file gets. WebVTT ends `.vtt.mp4`: ffmpeg's DASH reader
    /// opens no local file outside its list (aac, m4a, m4s, m4v, mov, mp4, webm, ts), and
    /// one it refuses fails the whole MPD; it reads the text by its content.
    static func storedExtension(_ uri: String, fallback: String) -> String {
        let ext = HLSTitlePlan.fileExtension(uri, fallback: fallback)
        return TitleMemberType.webVTTExtensions.contains(ext) ? ext + "." + TitleMemberType.dashTextSuffix : ext
    }

    /// The extension of a stored file whose URI has no media extension.
    private static func fallback(_ representation: DASHRepresentation, segmented: Bool) -> String {
        if representation.mimeType == "text/vtt" { return "vtt" }
        return segmented ? "m4s" : "mp4"
    }
}
