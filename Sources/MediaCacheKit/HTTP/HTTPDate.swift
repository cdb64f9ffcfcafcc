import Foundation

/// HTTP's dates (RFC 9110, 5.6.7): written as IMF-fixdate, read in all three forms a
/// recipient must accept: `Sun, 06 Nov 1994 08:49:37 GMT`, the obsolete RFC 850
/// `Sunday, 06-Nov-94 08:49:37 GMT` and asctime's `Sun Nov  6 08:49:37 1994`.
/// Plain arithmetic, no DateFormatter: it needs no locale data and no shared formatter.
public enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]   // 1 January 1970 was a Thursday

    /// The date `text` names in any of the three forms, else nil.
    public static func parse(_ text: String) -> Date? {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," }).map(String.init)
        var day: Int?, month: Int?, year: Int?, time: (Int, Int, Int)?
        switch words.count {
        case 6 where words[5] == "GMT":   // IMF-fixdate: Sun 06 Nov 1994 08:49:37 GMT
            (day, month, year, time) = (Int(words[1]), monthNumber(words[2]), Int(words[3]), clock(words[4]))
            if words[3].count != 4 { return nil }
        case 4 where words[3] == "GMT":   // RFC 850: Sunday 06-Nov-94 08:49:37 GMT
            let parts = words[1].split(separator: "-").map(String.init)
            guard parts.count == 3, let short = Int(parts[2]), parts[2].count == 2 else { return nil }
            // A two-digit year more than 50 years ahead is in the past century (RFC 9110).
            let thisYear = civil(fromDays: Int(Date().timeIntervalSince1970 / 86_400)).year
            var full = thisYear / 100 * 100 + short
            if full > thisYear + 50 { full -= 100 }
            (day, month, year, time) = (Int(parts[0]), monthNumber(parts[1]), full, clock(words[2]))
        case 5:   // asctime: Sun Nov 6 08:49:37 1994
            (day, month, year, time) = (Int(words[2]), monthNumber(words[1]), Int(words[4]), clock(words[3]))
        default:
            return nil
        }
        guard let day, let month, let year, let (hour, minute, second) = time, (1...31).contains(day), year >= 1900
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    /// `date` as an IMF-fixdate, the form every sender writes.
    public static func format(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let inDay = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        let weekday = weekdays[((days % 7) + 7) % 7]
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(weekday), \(two(day)) \(months[month - 1]) \(year) "
            + "\(two(inDay / 3_600)):\(two(inDay / 60 % 60)):\(two(inDay % 60)) GMT"
    }

    private static func monthNumber(_ name: String) -> Int? {
        months.firstIndex { $0.lowercased() == name.lowercased() }.map { $0 + 1 }
    }

    private static func clock(_ text: String) -> (Int, Int, Int)? {
        let parts = text.split(separator: ":")
        guard parts.count == 3, parts.allSatisfy({ $0.count == 2 }),
            let hour = Int(parts[0]), let minute = Int(parts[1]), let second = Int(parts[2]),
            hour < 24, minute < 60, second <= 60
        else { return nil }
        return (hour, minute, second)
    }

    // Howard Hinnant's days-from-civil and its inverse (proleptic Gregorian calendar).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
