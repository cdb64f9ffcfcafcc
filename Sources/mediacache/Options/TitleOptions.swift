import ArgumentParser
import MediaCacheKit

/// Which renditions of a streaming title (HLS) to fetch, when not the default: the
/// highest-bandwidth variant, its default audio and every subtitle track.
struct TitleOptions: ParsableArguments {
    @Option(
        name: .customLong("max-height"),
        help: ArgumentHelp(
            "Leave out variants taller than this many pixels (like yt-dlp's -f 'bv[height<=720]').",
            valueName: "pixels"))
    var maxHeight: Int?

    @Option(
        name: .customLong("max-bandwidth"),
        help: ArgumentHelp(
            "Leave out variants above this many bits per second (e.g. 800K, 5M).", valueName: "rate"))
    var maxBandwidth: String?

    @Flag(
        name: .customLong("all-variants"), inversion: .prefixedNo,
        help: "Fetch every variant within the limits, not only the best.")
    var allVariants = false

    @Option(
        name: .customLong("audio-lang"),
        help: ArgumentHelp(
            "Audio renditions in one of these languages (e.g. en,de; de also takes deu, ger and de-AT), or 'all' (default: the default track).",
            valueName: "langs"))
    var audioLanguages: String?

    func validate() throws {
        if let maxHeight, !(1...100_000).contains(maxHeight) {
            throw ValidationError("--max-height must be a number of pixels, like 720")
        }
        if let maxBandwidth, BitRate.parse(maxBandwidth) == nil {
            throw ValidationError("--max-bandwidth must be bits per second, like 800K or 5M, got '\(maxBandwidth)'")
        }
        if let audioLanguages, RenditionSelectionOptions.AudioLanguages(parsing: audioLanguages) == nil {
            throw ValidationError("--audio-lang must be 'all' or language codes separated by commas, like en,pt-BR")
        }
    }

    var selection: RenditionSelectionOptions {
        RenditionSelectionOptions(
            maxHeight: maxHeight, maxBandwidth: maxBandwidth.flatMap(BitRate.parse), allVariants: allVariants,
            audioLanguages: audioLanguages.flatMap(RenditionSelectionOptions.AudioLanguages.init(parsing:)) ?? .automatic)
    }
}
