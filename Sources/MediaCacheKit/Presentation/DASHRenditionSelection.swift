/// One representation to fetch, and the name it is known by.
public struct DASHSelectedRepresentation: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case video
        case audio
        case text
    }

    /// Stable across runs as long as the MPD is: `video-<id>`, `audio-<lang>-<id>`,
    /// `text-<lang>-<id>` (`und` when the set has no `lang`), with `-<period>` after
    /// them when the MPD has several Periods. Escaped as `RenditionIdentity` escapes,
    /// at most `RenditionIdentity.maxLength` bytes: it names files on disk.
    public var identity: String
    public var kind: Kind
    /// Its Period's index in `DASHManifest.periods`.
    public var period: Int
    public var representation: DASHRepresentation
}

/// The representations chosen, and what the user should be told about the choice.
public struct DASHRenditionChoice: Sendable, Equatable {
    public var representations: [DASHSelectedRepresentation]
    /// A limit no video representation met, languages no audio has, sets of unknown type.
    public var notes: [String]
}

/// Chooses the representations of a DASH title, Period by Period: by default the video
/// representation with the highest bandwidth within the limits (ties: the larger
/// picture, then the first listed; trick-mode sets never), the best representation of
/// the audio set with Role `main` (else the first audio set), and the best of every
/// text set. The limits apply to video; an audio or text set's best is its highest
/// bandwidth.
public enum DASHRenditionSelection {
    public static func choose(
        from manifest: DASHManifest, options: RenditionSelectionOptions = .init()
    ) -> DASHRenditionChoice {
        let periodNames = periodNames(manifest.periods)
        var choice = DASHRenditionChoice(representations: [], notes: [])
        for (index, period) in manifest.periods.enumerated() {
            let name = manifest.periods.count > 1 ? periodNames[index] : nil
            let (chosen, notes) = choose(from: period, options: options)
            for (kind, set, representation) in chosen {
                var fields = kind == .video ? [] : [set.language ?? "und"]
                fields.append(representation.id)
                if let name { fields.append(name) }
                choice.representations.append(
                    DASHSelectedRepresentation(
                        identity: RenditionIdentity.of(kind.rawValue, fields), kind: kind, period: index,
                        representation: representation))
            }
            choice.notes += notes.map { note in
                name.map { "Period \(Printable.name($0, limit: 40)): \(note)" } ?? note
            }
        }
        return choice
    }

    private static func choose(
        from period: DASHPeriod, options: RenditionSelectionOptions
    ) -> (chosen: [(DASHSelectedRepresentation.Kind, DASHAdaptationSet, DASHRepresentation)], notes: [String]) {
        var notes: [String] = []
        var chosen: [(DASHSelectedRepresentation.Kind, DASHAdaptationSet, DASHRepresentation)] = []
        let sets = period.adaptationSets

        let videos = sets.filter { $0.contentType == .video && !$0.isTrickMode }
            .flatMap { set in set.representations.map { (set, $0) } }
        let fitting = videos.filter { fits($0.1, options) }
        if fitting.isEmpty, let lowest = best(videos, ranking: { ranksAbove($1.1, $0.1) }) {
            chosen.append((.video, lowest.0, lowest.1))
            let picture = lowest.1.width.flatMap { width in lowest.1.height.map { "\(width)x\($0) at " } } ?? ""
            notes.append(
                "no video representation fits \(limits(options)); took the lowest, "
                    + "\(picture)\(lowest.1.bandwidth) bit/s")
        } else if options.allVariants {
            chosen += fitting.map { (.video, $0.0, $0.1) }
        } else if let top = best(fitting, ranking: { ranksAbove($0.1, $1.1) }) {
            chosen.append((.video, top.0, top.1))
        }

        let audio = sets.filter { $0.contentType == .audio }
        var audioSets: [DASHAdaptationSet]
        switch options.audioLanguages {
        case .all:
            audioSets = audio
        case .automatic:
            audioSets = defaultAudio(audio)
        case .matching(let prefixes):
            audioSets = audio.filter { RenditionSelection.matches($0.language, prefixes) }
            if audioSets.isEmpty && !audio.isEmpty {
                notes.append(
                    "no audio adaptation set is in "
                        + prefixes.map { Printable.name($0, limit: 20) }.joined(separator: ", ")
                        + "; took the default audio")
                audioSets = defaultAudio(audio)
            }
        }
        for set in audioSets { chosen.append((.audio, set, highestBandwidth(set))) }
        for set in sets where set.contentType == .text { chosen.append((.text, set, highestBandwidth(set))) }

        let unknown = sets.filter { $0.contentType == .unknown }.count
        if unknown > 0 {
            notes.append(
                "left out \(unknown) adaptation set\(unknown == 1 ? "" : "s") that say neither contentType, "
                    + "mimeType nor known codecs")
        }
        return (chosen, notes)
    }

    /// The set with Role `main`, else the first.
    private static func defaultAudio(_ sets: [DASHAdaptationSet]) -> [DASHAdaptationSet] {
        (sets.first { $0.roles.contains("main") } ?? sets.first).map { [$0] } ?? []
    }

    private static func highestBandwidth(_ set: DASHAdaptationSet) -> DASHRepresentation {
        set.representations.reduce(set.representations[0]) { $1.bandwidth > $0.bandwidth ? $1 : $0 }
    }

    private static func fits(_ representation: DASHRepresentation, _ options: RenditionSelectionOptions) -> Bool {
        if let maxBandwidth = options.maxBandwidth, representation.bandwidth > maxBandwidth { return false }
        if let maxHeight = options.maxHeight, let height = representation.height, height > maxHeight { return false }
        return true
    }

    private static func limits(_ options: RenditionSelectionOptions) -> String {
        [options.maxHeight.map { "a height of \($0) pixels" }, options.maxBandwidth.map { "\($0) bit/s" }]
            .compactMap { $0 }.joined(separator: " and ")
    }

    /// Whether `a` is a better representation than `b`: more bandwidth, then a larger picture.
    private static func ranksAbove(_ a: DASHRepresentation, _ b: DASHRepresentation) -> Bool {
        if a.bandwidth != b.bandwidth { return a.bandwidth > b.bandwidth }
        return (a.width ?? 0) * (a.height ?? 0) > (b.width ?? 0) * (b.height ?? 0)
    }

    /// The candidate that ranks first, the first listed among equals.
    private static func best<T>(_ candidates: [T], ranking: (T, T) -> Bool) -> T? {
        candidates.reduce(nil) { best, candidate in
            guard let best else { return candidate }
            return ranking(candidate, best) ? candidate : best
        }
    }

    /// What names each Period in identities: its id when every Period has a distinct
    /// one, else its index for all (two names that could meet are never mixed).
    private static func periodNames(_ periods: [DASHPeriod]) -> [String] {
        let ids = periods.compactMap(\.id)
        guard ids.count == periods.count, Set(ids).count == ids.count else { return periods.indices.map(String.init) }
        return ids
    }
}
