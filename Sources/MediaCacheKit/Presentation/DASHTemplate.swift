/// A `SegmentTemplate@media` or `@initialization` string (ISO/IEC 23009-1 section
/// 5.3.9.4.4): text with `$RepresentationID$`, `$Number$`, `$Time$`, `$Bandwidth$` and
/// `$$` (a dollar sign); the last three may carry a width, `$Number%05d$`.
struct DASHTemplate: Equatable {
    /// Wider than any number (Int64 has 19 digits); a bound on what one segment's URI costs.
    static let maxWidth = 32

    enum Identifier: Equatable {
        case representationID
        case number
        case time
        case bandwidth
    }

    enum Part: Equatable {
        case text(String)
        /// A value, zero-padded to `width` digits.
        case identifier(Identifier, width: Int)
    }

    let parts: [Part]

    /// The parts of `written`; `$Number$` and `$Time$` are refused unless `allowsSegmentValues`
    /// (an initialization template has no segment).
    init(parsing written: String, allowsSegmentValues: Bool) throws(PlaylistSyntaxError) {
        var parts: [Part] = []
        var text = ""
        var rest = Substring(written)
        while let dollar = rest.firstIndex(of: "$") {
            text += rest[..<dollar]
            let afterDollar = rest.index(after: dollar)
            guard let close = rest[afterDollar...].firstIndex(of: "$") else {
                throw PlaylistSyntaxError(
                    "the template \(PlaylistSyntaxError.quote(written)) has a '$' that is not closed "
                        + "(write $$ for '$')")
            }
            let inside = rest[afterDollar..<close]
            rest = rest[rest.index(after: close)...]
            if inside.isEmpty {
                text += "$"
                continue
            }
            let identifier = try Self.identifier(inside, in: written, allowsSegmentValues: allowsSegmentValues)
            if !text.isEmpty { parts.append(.text(text)) }
            text = ""
            parts.append(identifier)
        }
        text += rest
        if !text.isEmpty { parts.append(.text(text)) }
        self.parts = parts
    }

    private static func identifier(
        _ inside: Substring, in written: String, allowsSegmentValues: Bool
    ) throws(PlaylistSyntaxError) -> Part {
        let pieces = inside.split(separator: "%", maxSplits: 1, omittingEmptySubsequences: false)
        let name = pieces[0]
        let identifier: Identifier
        switch name {
        case "RepresentationID": identifier = .representationID
        case "Number": identifier = .number
        case "Time": identifier = .time
        case "Bandwidth": identifier = .bandwidth
        default:
            throw PlaylistSyntaxError(
                "the template \(PlaylistSyntaxError.quote(written)) has $\(Printable.name(String(name), limit: 30))$; "
                    + "only $RepresentationID$, $Number$, $Time$, $Bandwidth$ and $$ are supported")
        }
        if !allowsSegmentValues && (identifier == .number || identifier == .time) {
            throw PlaylistSyntaxError(
                "the initialization template \(PlaylistSyntaxError.quote(written)) has $\(name)$, which only "
                    + "media segments have")
        }
        guard pieces.count == 2 else { return .identifier(identifier, width: 1) }
        // `%0<width>d`, the only format the standard defines.
        let format = pieces[1]
        guard identifier != .representationID, format.hasPrefix("0"), format.hasSuffix("d"), format.count > 2,
            let width = Int(format.dropFirst().dropLast()), (1...maxWidth).contains(width)
        else {
            throw PlaylistSyntaxError(
                "the template \(PlaylistSyntaxError.quote(written)) has the format "
                    + "%\(Printable.name(String(format), limit: 20)) "
                    + "after \(name); only %0<width>d with a width of 1 to \(maxWidth), after Number, Time or "
                    + "Bandwidth, is supported")
        }
        return .identifier(identifier, width: width)
    }

    /// Whether it has `$Number$` or `$Time$`: whether its URI changes from segment to segment.
    var hasSegmentValues: Bool {
        parts.contains {
            if case .identifier(let identifier, _) = $0 { identifier == .number || identifier == .time } else { false }
        }
    }

    /// The text with every identifier replaced; `number` and `time` are only read when
    /// the template has them.
    func filled(representationID: String, bandwidth: Int, number: Int = 0, time: Int64 = 0) -> String {
        parts.map {
            Self.text(of: $0, representationID: representationID, bandwidth: bandwidth, number: number, time: time)
        }.joined()
    }

    static func text(of part: Part, representationID: String, bandwidth: Int, number: Int, time: Int64) -> String {
        switch part {
        case .text(let text): text
        case .identifier(.representationID, _): representationID
        case .identifier(.number, let width): padded(String(number), width)
        case .identifier(.time, let width): padded(String(time), width)
        case .identifier(.bandwidth, let width): padded(String(bandwidth), width)
        }
    }

    static func padded(_ digits: String, _ width: Int) -> String {
        digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}

