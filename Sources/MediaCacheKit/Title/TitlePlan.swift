/// What `TitleDownload` and `TitleCommit` need of a plan, whatever the format: the
/// resources in presentation order, a digest of each rendition's shape, and the local
/// playlists or MPD to write beside the resources once they are all held.
protocol TitlePlan: Sendable {
    var format: PresentationFormat { get }
    /// Every resource to hold, in the order a player needs them.
    var resources: [TitleResource] { get }
    /// Rendition identity → digest of its make-up, never of its URLs.
    var shapes: [String: String] { get }
    /// How many copies of the title's files on other servers its playlists name (HLS
    /// redundant variants, DASH `BaseURL`s); 1 when they name none.
    var copies: Int { get }
    /// The renditions chosen, as `title.json` lists them; `entry` is the entry
    /// playlist's or MPD's stored path.
    func manifestRenditions(entry: String) -> [TitleManifest.Rendition]
    /// The local playlists (HLS) or MPD (DASH) to write, each with its stored path; the
    /// one at `entry` is what a player opens.
    func localFiles(entry: String) -> [(path: String, text: String)]
}

extension TitlePlan {
    /// How many media segments the chosen renditions have.
    var segmentCount: Int { manifestRenditions(entry: "").reduce(0) { $0 + $1.segments } }

    /// `hls title: variant-0, audio-aac-en; 300 segments, 305 files to hold`: what the
    /// user is told once the plan is made.
    var summary: String {
        let names = manifestRenditions(entry: "").map(\.identity).joined(separator: ", ")
        let kind = format == .hls ? "an HLS title" : "a DASH title"
        let (segments, files) = (segmentCount, resources.count)
        return "\(kind): \(names); \(segments) segment\(segments == 1 ? "" : "s"), \(files) file\(files == 1 ? "" : "s") to hold"
    }
}

extension HLSTitlePlan: TitlePlan {
    var format: PresentationFormat { .hls }

    var copies: Int { renditions.map { 1 + $0.selected.backups.count }.max() ?? 1 }

    func manifestRenditions(entry: String) -> [TitleManifest.Rendition] {
        renditions.map { rendition in
            TitleManifest.Rendition(
                identity: rendition.selected.identity, kind: rendition.selected.kind.rawValue,
                playlist: master == nil ? entry : rendition.localPlaylist,
                segments: rendition.playlist.segments.count, duration: rendition.playlist.duration)
        }
    }

    /// Each rendition's media playlist, then the entry: the local master, or for a media
    /// playlist given directly, that playlist with paths from the top.
    func localFiles(entry: String) -> [(path: String, text: String)] {
        if let master {
            return renditions.map { ($0.localPlaylist, HLSLocalPlaylists.media($0)) }
                + [(entry, HLSLocalPlaylists.master(master, renditions: renditions, entry: entry))]
        }
        guard var only = renditions.first else { return [] }
        only.localPlaylist = entry
        return [(entry, HLSLocalPlaylists.media(only))]
    }
}

extension DASHTitlePlan: TitlePlan {
    var format: PresentationFormat { .dash }

    var copies: Int { manifest.copies }

    func manifestRenditions(entry: String) -> [TitleManifest.Rendition] {
        renditions.map { rendition in
            let representation = rendition.selected.representation
            let period = manifest.periods[rendition.selected.period]
            let durations = representation.media.segments.compactMap(\.duration)
            let known = durations.count == representation.media.segments.count && !durations.isEmpty
            return TitleManifest.Rendition(
                identity: rendition.selected.identity, kind: rendition.selected.kind.rawValue, playlist: entry,
                segments: max(1, representation.media.segments.count),
                duration: known ? durations.reduce(0, +) : period.duration ?? 0)
        }
    }

    func localFiles(entry: String) -> [(path: String, text: String)] {
        [(entry, DASHLocalManifest.mpd(self, at: entry))]
    }
}

/// What planning an HLS and a DASH title share.
enum TitlePlanning {
    /// One resource where it falls in the presentation: `order` is its rendition's
    /// place in the choice.
    typealias Timed = (time: Double, order: Int, resource: TitleResource)

    /// The resources in the order a player needs them, all renditions advancing
    /// together. Stable: at equal times, renditions in choice order and each one's own order.
    static func presentationOrder(_ timeline: [Timed]) -> [TitleResource] {
        timeline.enumerated().sorted {
            ($0.element.time, $0.element.order, $0.offset) < ($1.element.time, $1.element.order, $1.offset)
        }.map(\.element.resource)
    }

    /// The part of each rendition's shape its resources give (stored paths and ranges,
    /// never URLs); a plan adds its timing, then digests the text.
    static func resourceShapes(_ resources: [TitleResource]) -> [String: String] {
        var texts: [String: String] = [:]
        for resource in resources {
            texts[resource.rendition, default: ""] += "\(resource.path) \(resource.range?.description ?? "-")\n"
        }
        return texts
    }
}
