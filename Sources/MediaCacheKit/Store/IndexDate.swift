#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Dates in the index, as GRDB stores them ("yyyy-MM-dd HH:mm:ss.SSS", UTC), written and
/// read without a DateFormatter or Calendar: those load ICU, which costs a prefetch more
/// time and memory than everything else it does for a small file.
enum IndexDate {
    static func text(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        let total = Int64((interval * 1000).rounded())
        var seconds = time_t(total.floorDivided(by: 1000))
        let milliseconds = Int(total - Int64(seconds) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return pad(parts.tm_year + 1900, 4) + "-" + pad(parts.tm_mon + 1, 2) + "-" + pad(parts.tm_mday, 2) + " "
            + pad(parts.tm_hour, 2) + ":" + pad(parts.tm_min, 2) + ":" + pad(parts.tm_sec, 2) + "."
            + pad(Int32(milliseconds), 3)
    }

    /// Parses `text` (seconds and milliseconds optional); nil for anything else.
    static func date(_ text: String) -> Date? {
        let fields = text.split(whereSeparator: { !$0.isASCII || !$0.isNumber })
        let values = fields.compactMap { Int($0) }
        guard values.count >= 3, values.count == fields.count else { return nil }
        var parts = tm()
        parts.tm_year = Int32(values[0] - 1900)
        parts.tm_mon = Int32(values[1] - 1)
        parts.tm_mday = Int32(values[2])
        parts.tm_hour = Int32(values.count > 3 ? values[3] : 0)
        parts.tm_min = Int32(values.count > 4 ? values[4] : 0)
        parts.tm_sec = Int32(values.count > 5 ? values[5] : 0)
        let seconds = timegm(&parts)
        let fraction = values.count > 6 ? Double(values[6]) / pow(10, Double(fields[6].count)) : 0
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }
}

extension Int64 {
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor < 0) ? quotient - 1 : quotient
    }
}
