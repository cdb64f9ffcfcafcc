/// What fetching an HLS title means: for each chosen rendition, its media playlist as
/// read and where each of its URIs is stored, and every resource in the order a player
/// needs them (all renditions advance together, so what has arrived plays from the
/// start).
struct HLSTitlePlan: Sendable {
    struct Rendition: Sendable {
        var selected: SelectedRendition
        var playlist: HLSMediaPlaylist
        /// Where each URI of `playlist` is stored, relative to the title directory.
        var storedPaths: [String: String]
        /// Its local media playlist, relative to the title directory.
        var localPlaylist: String
    }

    /// The master playlist the renditions were chosen from; nil for a media playlist
    /// given directly.
    var master: HLSMasterPlaylist?
    var renditions: [Rendition]
    var resources: [TitleResource]

    /// Plans `renditions` (each selected rendition with its media playlist, in choice
    /// order) of `master`; a media playlist given directly is one rendition called `media`.
    init(master: HLSMasterPlaylist? = nil, renditions chosen: [(SelectedRendition, HLSMediaPlaylist)]) {
        self.master = master
        var planned: [Rendition] = []
        var timeline: [TitlePlanning.Timed] = []
        for (order, (selected, playlist)) in chosen.enumerated() {
            // Everything of a rendition is in its own folder, named by its place in the
            // rendition: choosing other renditions in a later run renames nothing held.
            let folder = selected.identity
            var stored: [String: String] = [:]
            var fileCount = 0
            var keyCount = 0
            // A URI that some segment fetches whole is stored whole; one only ever
            // fetched by ranges is one ranged file up to its last range's end.
            let wholeURIs = Set(playlist.segments.filter { $0.byteRange == nil && !$0.isGap }.map(\.uri))
            var rangedEnds: [String: Int64] = [:]
            var rangeCounts: [String: Int] = [:]
            for segment in playlist.segments where !segment.isGap {
                if let range = segment.byteRange {
                    rangedEnds[segment.uri] = max(rangedEnds[segment.uri] ?? 0, range.end)
                    rangeCounts[segment.uri, default: 0] += 1
                }
            }
            for section in playlist.initSections {
                if let range = section.byteRange { rangedEnds[section.uri] = max(rangedEnds[section.uri] ?? 0, range.end) }
            }

            /// Adds the resource `make` describes for `uri`, once per URI.
            func add(_ uri: String, at time: Double, _ make: () -> TitleResource) {
                guard stored[uri] == nil else { return }
                let resource = make()
                stored[uri] = resource.path
                timeline.append((time, order, resource))
            }
            func add(
                _ uri: String, name: String, fallback: String, kind: TitleResource.Kind, label: String, segment: Int? = nil,
                at time: Double
            ) {
                add(uri, at: time) {
                    if !wholeURIs.contains(uri), let end = rangedEnds[uri] {
                        fileCount += 1
                        return TitleResource(
                            path: "\(folder)/file-\(fileCount).\(Self.fileExtension(uri, fallback: fallback))", url: uri,
                            range: ByteRange(0, end), kind: .rangedFile, rendition: folder,
                            label: "file \(fileCount) of \(folder), which its byte ranges point into",
                            segments: rangeCounts[uri] ?? 0)
                    }
                    return TitleResource(
                        path: "\(folder)/\(name).\(Self.fileExtension(uri, fallback: fallback))", url: uri, range: nil,
                        kind: kind, rendition: folder, label: label, segment: segment, segments: segment == nil ? 0 : 1)
                }
            }

            var time = 0.0
            for segment in playlist.segments {
                defer { time += segment.duration }
                let section = segment.initSection.map { playlist.initSections[$0] }
                for key in [segment.key, section?.key].compactMap(\.self) {
                    add(key.uri, at: time) {
                        keyCount += 1
                        return TitleResource(
                            path: "\(folder)/key-\(keyCount)\(Self.keyFileSuffix)", url: key.uri, range: nil, kind: .key,
                            rendition: folder, label: "key \(keyCount) of \(folder)")
                    }
                }
                if let index = segment.initSection, let section {
                    add(section.uri, name: "init-\(index)", fallback: "mp4", kind: .initSection,
                        label: "init section \(index) of \(folder)", at: time)
                }
                guard !segment.isGap else { continue }
                let fallback = selected.kind == .subtitles ? "vtt" : (segment.initSection == nil ? "ts" : "m4s")
                add(segment.uri, name: "s\(segment.mediaSequence)", fallback: fallback, kind: .segment,
                    label: "segment \(segment.mediaSequence) of \(folder)", segment: segment.mediaSequence, at: time)
            }
            planned.append(
                Rendition(selected: selected, playlist: playlist, storedPaths: stored, localPlaylist: "\(folder)/index.m3u8"))
        }
        renditions = planned
        resources = TitlePlanning.presentationOrder(timeline)
    }

    /// A digest of each rendition's make-up (stored paths, ranges, durations), never
    /// of URLs: the same rendition with fresh tokens has the same shape; one re-cut on
    /// the origin has another, and what was held of it is not used.
    var shapes: [String: String] {
        var texts = TitlePlanning.resourceShapes(resources)
        for rendition in renditions {
            texts[rendition.selected.identity, default: ""] += rendition.playlist.segments.map { " \($0.duration)" }.joined()
        }
        return texts.mapValues { Digest.sha256Hex($0) }
    }

    /// Key files end like media: ffmpeg (and mpv through it) opens no local file, keys
    /// included, whose extension is not "a common multimedia extension", and a `data:`
    /// URI fails the same check. The `.key` before it says what the file is.
    static let keyFileSuffix = ".key.ts"

    /// Extensions players accept for local files (ffmpeg refuses others: "not a common
    /// multimedia extension"); anything else is stored under `fallback`.
    static let mediaExtensions: Set<String> = [
        "aac", "ac3", "eac3", "flac", "m4a", "m4s", "m4v", "mp3", "mp4", "mpeg", "mpg", "mpegts", "mov", "ts",
        "vtt", "webvtt", "cmfv", "cmfa", "key", "bin",
    ]

    static func fileExtension(_ uri: String, fallback: String) -> String {
        guard let ext = URLParts.pathExtension(ofURL: uri), mediaExtensions.contains(ext) else { return fallback }
        return ext
    }
}
