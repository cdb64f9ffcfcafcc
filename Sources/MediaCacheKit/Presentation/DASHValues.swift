/// The values of MPD attributes: durations, counts and byte ranges, each checked and
/// bounded so that no arithmetic with them can trap.
enum DASHValues {
    /// Longer than any title (about 3,170 years): a bound that keeps every product finite.
    static let maxSeconds = 1e11

    /// An `xs:duration` as MPDs write it (`PT1H2M3.5S`, `P1DT2H`, `P0Y0M0DT0H3M30.000S`),
    /// in seconds. Years and months have no fixed length; like dash.js, a year is 365
    /// days and a month 30. Negative durations and fractions of anything but seconds are
    /// refused.
    static func seconds(_ text: String) throws(PlaylistSyntaxError) -> Double {
        let bad = { (why: String) in
            PlaylistSyntaxError("the duration \(PlaylistSyntaxError.quote(text)) \(why) (ISO 8601, e.g. PT1H2M3.5S)")
        }
        var rest = Substring(text.trimmingBlanks)
        guard rest.first == "P" else {
            throw bad(rest.first == "-" ? "is negative" : "does not start with P")
        }
        rest = rest.dropFirst()
        var total = 0.0
        var inTime = false
        var components = 0
        /// The designators allowed next, in order: each at most once.
        var allowed: [Character] = ["Y", "M", "W", "D"]
        while let first = rest.first {
            if first == "T" {
                guard !inTime else { throw bad("has a second T") }
                inTime = true
                allowed = ["H", "M", "S"]
                rest = rest.dropFirst()
                guard !rest.isEmpty else { throw bad("has nothing after T") }
                continue
            }
            let number = rest.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
            rest = rest.dropFirst(number.count)
            guard let designator = rest.first, let position = allowed.firstIndex(of: designator) else {
                throw bad(number.isEmpty ? "has an unexpected character" : "has a number without a unit after it")
            }
            rest = rest.dropFirst()
            allowed.removeFirst(position + 1)
            guard !number.isEmpty, number.count <= 20, number.first != ".", number.last != ".",
                number.filter({ $0 == "." }).count <= (designator == "S" ? 1 : 0), let value = Double(number)
            else { throw bad("has a malformed number") }
            let unit: Double =
                switch (inTime, designator) {
                case (false, "Y"): 365 * 86400
                case (false, "M"): 30 * 86400
                case (false, "W"): 7 * 86400
                case (false, _): 86400
                case (true, "H"): 3600
                case (true, "M"): 60
                default: 1
                }
            total += value * unit
            components += 1
        }
        guard components > 0 else { throw bad("has no value") }
        guard total <= maxSeconds else { throw bad("is longer than any title") }
        return total
    }

    /// An `xs:unsignedInt` or `xs:unsignedLong` of at most `max`: digits only.
    static func unsigned(_ text: String, name: String, max: Int64 = .max) throws(PlaylistSyntaxError) -> Int64 {
        let digits = text.trimmingBlanks
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw PlaylistSyntaxError(
                "\(name) must be a whole number of 0 or more, found \(PlaylistSyntaxError.quote(text))")
        }
        guard let value = Int64(digits), value <= max else {
            throw PlaylistSyntaxError("\(name) \(PlaylistSyntaxError.quote(text)) is larger than \(max)")
        }
        return value
    }

    /// `S@r`: -1 (up to the next S or the end of the Period) or a count of 0 or more.
    static func repeatCount(_ text: String) throws(PlaylistSyntaxError) -> Int64 {
        if text.trimmingBlanks == "-1" { return -1 }
        return try unsigned(text, name: "S@r (-1 or more)")
    }

    /// `first-last`, inclusive as in HTTP (`0-814`), as the half-open `ByteRange`.
    static func byteRange(_ text: String, name: String) throws(PlaylistSyntaxError) -> ByteRange {
        let parts = text.trimmingBlanks.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[1].isEmpty else {
            throw PlaylistSyntaxError(
                "\(name) must be first-last (0-814), found \(PlaylistSyntaxError.quote(text)); "
                    + "an open-ended range is not supported")
        }
        let first = try unsigned(String(parts[0]), name: "the first byte of \(name)", max: .max - 1)
        let last = try unsigned(String(parts[1]), name: "the last byte of \(name)", max: .max - 1)
        guard first <= last else {
            throw PlaylistSyntaxError("\(name) \(PlaylistSyntaxError.quote(text)) ends before it starts")
        }
        return ByteRange(first, last + 1)
    }
}

extension String {
    /// Without the XML blanks (space, tab, CR, LF) around it.
    var trimmingBlanks: Substring {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        guard let first = firstIndex(where: { !blank($0) }), let last = lastIndex(where: { !blank($0) }) else {
            return ""
        }
        return self[first...last]
    }
}
