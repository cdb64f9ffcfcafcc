/// An entry's own choice of renditions (`max-height=`, `max-bandwidth=`,
/// `all-variants=`, `audio-lang=`): each key it sets replaces the run's option of that
/// name, the others stay the run's.
public struct RenditionOverrides: Sendable, Codable, Equatable {
    public var maxHeight: Int?
    public var maxBandwidth: Int?
    public var allVariants: Bool?
    public var audioLanguages: RenditionSelectionOptions.AudioLanguages?

    public init() {}

    public var isEmpty: Bool { self == RenditionOverrides() }

    public func applied(to options: RenditionSelectionOptions) -> RenditionSelectionOptions {
        var result = options
        if let maxHeight { result.maxHeight = maxHeight }
        if let maxBandwidth { result.maxBandwidth = maxBandwidth }
        if let allVariants { result.allVariants = allVariants }
        if let audioLanguages { result.audioLanguages = audioLanguages }
        return result
    }
}

extension RenditionSelectionOptions.AudioLanguages {
    /// `all`, or comma-separated BCP-47 prefixes (`en,pt-BR`); nil for anything else.
    public init?(parsing text: String) {
        let items = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if items.count == 1, items[0].lowercased() == "all" {
            self = .all
            return
        }
        let valid = !items.isEmpty && items.allSatisfy { item in
            item.utf8.count <= 35 && item.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        }
        guard valid else { return nil }
        self = .matching(items)
    }
}

/// Bits per second as HLS writes them, with the decimal suffixes people use for bit
/// rates: `800K`, `5M`, `1.5M`, `2G` (k = 1000).
public enum BitRate {
    public static func parse(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let last = trimmed.last else { return nil }
        let multipliers: [Character: Double] = ["k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6, "g": 1e9, "G": 1e9]
        let (number, multiplier) = multipliers[last].map { (trimmed.dropLast(), $0) } ?? (Substring(trimmed), 1)
        guard let value = Double(number), value.isFinite, value > 0, value * multiplier < 1e12 else { return nil }
        return Int((value * multiplier).rounded())
    }
}
