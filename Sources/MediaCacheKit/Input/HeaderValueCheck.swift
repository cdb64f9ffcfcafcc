import Foundation

/// Checks a value that becomes a whole header (User-Agent, Referer) before it is used.
public enum HeaderValueCheck {
    /// Longer values are refused: no agent string or referring URL is this long.
    public static let maxLength = 8192

    /// Why `value`, given as `name`, cannot be sent, or nil. CR, LF or NUL would end the
    /// header early or start another one; other control characters have no place in it.
    public static func problem(_ value: String, name: String) -> String? {
        if value.isEmpty { return "\(name) needs a value" }
        if hasControlCharacters(value) { return "\(name) contains control characters (CR, LF or the like)" }
        if value.utf8.count > maxLength { return "\(name) is longer than \(maxLength) bytes" }
        return nil
    }

    /// Headers each request's own: its range and the conditions that check the file's
    /// version. A user's would turn every answer into the one range asked for (or a 304),
    /// whatever the request was for. And Accept-Encoding (a browser's "Copy as cURL" has
    /// one): the file's own bytes are asked for, never a compressed form of a range.
    private static let reservedNames: Set<String> = [
        "range", "if-range", "if-match", "if-none-match", "if-modified-since", "if-unmodified-since", "accept-encoding",
    ]

    /// Whether `header` (`Name: value`) is one mediacache writes itself.
    public static func isReserved(header: some StringProtocol) -> Bool {
        guard let colon = header.firstIndex(of: ":") else { return false }
        return reservedNames.contains(header[..<colon].trimmingCharacters(in: .whitespaces).lowercased())
    }

    /// Why `header`, given as `given` (`-H`, `header=`), is refused for being one of those.
    public static func reservedProblem(_ header: String, given: String) -> String? {
        guard isReserved(header: header), let colon = header.firstIndex(of: ":") else { return nil }
        let name = header[..<colon].trimmingCharacters(in: .whitespaces)
        if name.lowercased() == "accept-encoding" {
            return "\(given) \(name) is refused: mediacache asks for the file's own bytes (identity), which it stores and "
                + "checks; a compressed answer would not be the file; drop this header"
        }
        return "\(given) \(name) is refused: mediacache sets Range and the If- headers itself (it fetches files in "
            + "ranges and checks their version when it resumes); drop this header"
    }

    /// Whether `value` holds a character that has no place in a header (any control
    /// character but tab): a stored value from outside (a tier record, a bundle
    /// manifest) with one is refused before it can become a header or reach a terminal.
    public static func hasControlCharacters(_ value: String) -> Bool {
        ControlCharacters.occur(in: value, allowingTab: true)
    }
}
