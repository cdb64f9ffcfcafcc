/// Sizes as people write them (`512K`, `1M`, `2GiB`, `1.5G`) and as the tool prints them.
public enum ByteCount {
    /// Parses a size; suffixes are binary (K = 1024). Nil for anything else.
    public static func parse(_ text: String) -> Int64? {
        var digits = text.trimmingCharacters(in: .whitespaces).lowercased()
        for suffix in ["ib", "b"] where digits.hasSuffix(suffix) && digits.count > suffix.count {
            digits.removeLast(suffix.count)
            break
        }
        var multiplier: Double = 1
        if let last = digits.last, let power = ["k": 1, "m": 2, "g": 3, "t": 4][String(last)] {
            multiplier = pow1024(power)
            digits.removeLast()
        }
        guard let value = Double(digits), value >= 0, value.isFinite else { return nil }
        let bytes = value * multiplier
        // Under one byte is no size (0.1 as a rate would quietly mean 0: no limit).
        guard bytes < 9.0e18, bytes == 0 || bytes >= 1 else { return nil }
        return Int64(bytes)
    }

    /// `12.3 MiB`, `512 B`.
    public static func format(_ bytes: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        if unit == 0 { return "\(bytes) B" }
        return "\(formatDecimal(value, places: value < 10 ? 2 : 1)) \(units[unit])"
    }

    /// `0.5 s`, `12 s`.
    public static func formatSeconds(_ seconds: Double) -> String {
        seconds < 10 ? "\(formatDecimal(seconds, places: 1)) s" : "\(Int(seconds.rounded())) s"
    }

    static func formatDecimal(_ value: Double, places: Int) -> String {
        let scale: Double = places == 2 ? 100 : 10
        let rounded = (value * scale).rounded() / scale
        var text = "\(rounded)"
        if let dot = text.firstIndex(of: ".") {
            let decimals = text.distance(from: dot, to: text.endIndex) - 1
            if decimals < places { text += String(repeating: "0", count: places - decimals) }
        }
        return text
    }

    private static func pow1024(_ power: Int) -> Double {
        (0..<power).reduce(1.0) { value, _ in value * 1024 }
    }
}

import Foundation
