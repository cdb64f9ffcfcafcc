/// Lengths of time as people write them on a command line: `90s`, `30m`, `12h`, `7d`,
/// `2w` (a whole number and one unit; a bare number is refused, since minutes and days
/// are both plausible).
public enum TimeSpan {
    private static let seconds: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]

    /// Seconds, or nil for anything else.
    public static func parse(_ text: String) -> Double? {
        guard let unit = text.last, let scale = seconds[unit], let count = UInt32(text.dropLast()) else { return nil }
        return Double(count) * scale
    }
}
