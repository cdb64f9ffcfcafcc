/// Which renditions to fetch when not the default (the CLI's options and entry keys).
public struct RenditionSelectionOptions: Sendable, Equatable, Codable {
    /// Audio renditions to take from the chosen variants' groups.
    public enum AudioLanguages: Sendable, Equatable, Codable {
        /// Those marked DEFAULT or AUTOSELECT, or the whole group when none is.
        case automatic
        case all
        /// Those whose LANGUAGE starts with one of these BCP-47 prefixes (`en` takes
        /// `en` and `en-GB`, not `eng`); `automatic` when none does.
        case matching([String])
    }

    /// Leave out variants taller than this many pixels (variants without a RESOLUTION stay in).
    public var maxHeight: Int?
    /// Leave out variants whose BANDWIDTH is above this many bits per second.
    public var maxBandwidth: Int?
    /// Every variant within the limits, not only the best.
    public var allVariants: Bool
    public var audioLanguages: AudioLanguages

    public init(
        maxHeight: Int? = nil, maxBandwidth: Int? = nil, allVariants: Bool = false,
        audioLanguages: AudioLanguages = .automatic
    ) {
        self.maxHeight = maxHeight
        self.maxBandwidth = maxBandwidth
        self.allVariants = allVariants
        self.audioLanguages = audioLanguages
    }
}

/// One media playlist to fetch, and the name it is known by.
public struct SelectedRendition: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// A variant stream, or a media playlist given directly.
        case variant
        case audio
        case subtitles
    }

    /// Stable across runs as long as the master playlist is: `variant-2`,
    /// `audio-aac-English`, `media` for a media playlist given directly. Letters, digits,
    /// `.`, `_`, `-`, `%XX` escapes and a `~` before the digest of a long one only, at
    /// most `RenditionIdentity.maxLength` bytes: it names files on disk.
    public var identity: String
    public var kind: Kind
    /// The media playlist, absolute.
    public var uri: String
    /// Where the same media playlist is listed again, on other servers (redundant
    /// variants, content steering's pathways): asked in order when `uri` fails.
    public var backups: [String] = []
}

/// The renditions chosen, and what the user should be told about the choice.
public struct RenditionChoice: Sendable, Equatable {
    public var renditions: [SelectedRendition]
    /// A limit no variant met, languages no rendition has.
    public var notes: [String]
}

/// Chooses the renditions of a title: by default the variant with the highest
/// BANDWIDTH (ties: the larger picture, then the first listed), the audio of its group
/// marked DEFAULT or AUTOSELECT (the whole group when none is), and all its subtitles.
/// I-frame variants are never chosen.
public enum RenditionSelection {
    public static func choose(
        from playlist: HLSPlaylist, options: RenditionSelectionOptions = .init()
    ) -> RenditionChoice {
        switch playlist {
        case .master(let master):
            choose(from: master, options: options)
        case .media(let media):
            RenditionChoice(
                renditions: [SelectedRendition(identity: "media", kind: .variant, uri: media.url)], notes: [])
        }
    }

    public static func choose(
        from master: HLSMasterPlaylist, options: RenditionSelectionOptions = .init()
    ) -> RenditionChoice {
        var notes: [String] = []
        let streams = master.variants.indices.filter { !master.variants[$0].isIFrameOnly }
        let fitting = streams.filter { fits(master.variants[$0], options) }
        let variants: [Int]
        if fitting.isEmpty, let lowest = pick(streams, in: master, ranking: { ranksAbove($1, $0) }) {
            variants = [lowest]
            let variant = master.variants[lowest]
            notes.append(
                "no variant fits \(limits(options)); took the lowest, "
                    + (variant.resolution.map { "\($0) at " } ?? "") + "\(variant.bandwidth) bit/s")
        } else if options.allVariants {
            variants = fitting
        } else {
            variants = pick(fitting, in: master, ranking: ranksAbove).map { [$0] } ?? []
        }
        if let maxHeight = options.maxHeight, variants.contains(where: { master.variants[$0].resolution == nil }) {
            notes.append(
                "--max-height \(maxHeight) could not judge a variant the playlist gives no RESOLUTION, and took it; "
                    + "--max-bandwidth chooses by bit rate")
        }

        // A media playlist listed once per audio group (Apple's way) is one rendition,
        // fetched once; every entry naming it still brings its groups. A variant listed
        // again on another server is that rendition's backup, not another rendition.
        let groups = RenditionGroups(master)
        var variantURIs: Set<String> = []
        var copies: [HLSVariant] = []
        var chosen: [SelectedRendition] = []
        // The variants chosen, each with its copies on other servers, in order.
        var chosenVariants: [(index: Int, copies: [Int])] = []
        for index in variants where variantURIs.insert(master.variants[index].uri).inserted {
            let copy = groups.whatItIs(master.variants[index])
            guard !copies.contains(copy) else { continue }
            copies.append(copy)
            let others = streams.filter {
                $0 != index && groups.whatItIs(master.variants[$0]) == copy && master.variants[$0].uri != master.variants[index].uri
            }
            chosenVariants.append((index, others))
            chosen.append(
                SelectedRendition(
                    identity: "variant-\(index)", kind: .variant, uri: master.variants[index].uri,
                    backups: distinct(others.map { master.variants[$0].uri })))
        }
        // Every entry of a chosen playlist brings its groups; a copy's are its backups'.
        let playlists = Set(chosenVariants.map { master.variants[$0.index].uri })
        let entries = variants.filter { playlists.contains(master.variants[$0].uri) }
        let audioGroups = distinct(entries.compactMap { master.variants[$0].audioGroup })
        let subtitleGroups = distinct(entries.compactMap { master.variants[$0].subtitlesGroup })
        let audioByGroup = groups.audio
        let subtitlesByGroup = groups.subtitles
        var audio = audioGroups.flatMap {
            audioRenditions(audioByGroup[$0] ?? [], options.audioLanguages)
        }
        if case .matching(let prefixes) = options.audioLanguages, !audioGroups.isEmpty,
            !audio.contains(where: { matches($0.language, prefixes) })
        {
            notes.append(
                "no audio rendition is in \(prefixes.map { Printable.name($0, limit: 20) }.joined(separator: ", ")); "
                    + "took the default audio")
            audio = audioGroups.flatMap { audioRenditions(audioByGroup[$0] ?? [], .automatic) }
        }
        let subtitles = subtitleGroups.flatMap { subtitlesByGroup[$0] ?? [] }
        var chosenURIs = Set(chosen.map(\.uri))
        for (kind, renditions) in [(SelectedRendition.Kind.audio, audio), (.subtitles, subtitles)] {
            for rendition in renditions {
                // No URI: its media is inside the variant's segments. The same URI as
                // something already chosen: one playlist, fetched once.
                guard let uri = rendition.uri, chosenURIs.insert(uri).inserted else { continue }
                // Its copies: the rendition of the same name in the group each copy of its
                // variant names (a backup stream's audio lives in a group of its own).
                let variantCopies = chosenVariants.first {
                    let variant = master.variants[$0.index]
                    return (kind == .audio ? variant.audioGroup : variant.subtitlesGroup) == rendition.groupID
                }?.copies ?? []
                let backups = variantCopies.compactMap { copy -> String? in
                    let variant = master.variants[copy]
                    let group = kind == .audio ? variant.audioGroup : variant.subtitlesGroup
                    let groupRenditions = group.flatMap { kind == .audio ? audioByGroup[$0] : subtitlesByGroup[$0] } ?? []
                    return groupRenditions.first { $0.name == rendition.name }?.uri
                }
                chosen.append(
                    SelectedRendition(
                        identity: RenditionIdentity.of(kind, group: rendition.groupID, name: rendition.name),
                        kind: kind, uri: uri, backups: distinct(backups.filter { $0 != uri })))
            }
        }
        return RenditionChoice(renditions: chosen, notes: notes)
    }

    /// `items` without repeats, in order of first appearance.
    private static func distinct(_ items: [String]) -> [String] {
        var seen: Set<String> = []
        return items.filter { seen.insert($0).inserted }
    }

    /// The audio renditions of one group to take.
    private static func audioRenditions(
        _ group: [HLSRendition], _ languages: RenditionSelectionOptions.AudioLanguages
    ) -> [HLSRendition] {
        switch languages {
        case .all:
            return group
        case .matching(let prefixes):
            return group.filter { matches($0.language, prefixes) }
        case .automatic:
            let marked = group.filter { $0.isDefault || $0.isAutoselect }
            return marked.isEmpty ? group : marked
        }
    }

    /// Whether language tag `language` is one of `prefixes` or a more specific tag of
    /// one, in either ISO 639 form (`de` takes `deu` and `de-AT`).
    static func matches(_ language: String?, _ prefixes: [String]) -> Bool {
        guard let language else { return false }
        return prefixes.contains { LanguageCode.matches(language, $0) }
    }

    private static func fits(_ variant: HLSVariant, _ options: RenditionSelectionOptions) -> Bool {
        if let maxBandwidth = options.maxBandwidth, variant.bandwidth > maxBandwidth { return false }
        if let maxHeight = options.maxHeight, let height = variant.resolution?.height, height > maxHeight {
            return false
        }
        return true
    }

    private static func limits(_ options: RenditionSelectionOptions) -> String {
        [options.maxHeight.map { "a height of \($0) pixels" }, options.maxBandwidth.map { "\($0) bit/s" }]
            .compactMap { $0 }.joined(separator: " and ")
    }

    /// Whether `a` is a better variant than `b`: more bandwidth, then a larger picture.
    private static func ranksAbove(_ a: HLSVariant, _ b: HLSVariant) -> Bool {
        if a.bandwidth != b.bandwidth { return a.bandwidth > b.bandwidth }
        return (a.resolution?.area ?? 0) > (b.resolution?.area ?? 0)
    }

    /// The index in `candidates` that ranks first, the first listed among equals.
    private static func pick(
        _ candidates: [Int], in master: HLSMasterPlaylist, ranking: (HLSVariant, HLSVariant) -> Bool
    ) -> Int? {
        candidates.reduce(nil) { best, index in
            guard let best else { return index }
            return ranking(master.variants[index], master.variants[best]) ? index : best
        }
    }
}

extension RenditionSelectionOptions {
    /// The options that ask for this choice (`--all-variants --max-height 720`), or
    /// "the default choice".
    public var asOptions: String {
        var parts: [String] = []
        if allVariants { parts.append("--all-variants") }
        if let maxHeight { parts.append("--max-height \(maxHeight)") }
        if let maxBandwidth { parts.append("--max-bandwidth \(maxBandwidth)") }
        switch audioLanguages {
        case .automatic: break
        case .all: parts.append("--audio-lang all")
        case .matching(let prefixes): parts.append("--audio-lang \(prefixes.joined(separator: ","))")
        }
        return parts.isEmpty ? "the default choice" : parts.joined(separator: " ")
    }
}
