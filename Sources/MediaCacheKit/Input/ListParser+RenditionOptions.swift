extension ListParser.Builder {
    /// `max-height=`, `max-bandwidth=`, `all-variants=`, `audio-lang=`: which renditions
    /// of a streaming title to fetch. A bad value rejects the entry: fetched without it,
    /// it could fill the disk with renditions nobody asked for.
    mutating func consumeRenditionOption(_ key: String, _ value: String, at number: Int) {
        switch key {
        case "max-height":
            guard let height = Int(value), (1...100_000).contains(height) else {
                return rejectEntry(number, "max-height must be a number of pixels, like 720, got '\(value)'")
            }
            current!.renditions.maxHeight = height
        case "max-bandwidth":
            guard let rate = BitRate.parse(value) else {
                return rejectEntry(number, "max-bandwidth must be bits per second, like 800K or 5M, got '\(value)'")
            }
            current!.renditions.maxBandwidth = rate
        case "all-variants":
            switch value.lowercased() {
            case "true", "yes": current!.renditions.allVariants = true
            case "false", "no": current!.renditions.allVariants = false
            default: return rejectEntry(number, "all-variants must be true or false, got '\(value)'")
            }
        default:
            guard let languages = RenditionSelectionOptions.AudioLanguages(parsing: value) else {
                return rejectEntry(
                    number, "audio-lang must be 'all' or language codes separated by commas, like en,pt-BR, got '\(value)'")
            }
            current!.renditions.audioLanguages = languages
        }
    }
}
