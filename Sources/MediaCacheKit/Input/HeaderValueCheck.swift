/// Checks a value that becomes a whole header (User-Agent, Referer) before it is used.
public enum HeaderValueCheck {
    /// Longer values are refused: no agent string or referring URL is this long.
    public static let maxLength = 8192

    /// Why `value`, given as `name`, cannot be sent, or nil. CR, LF or NUL would end the
    /// header early or start another one; other control characters have no place in it.
    public static func problem(_ value: String, name: String) -> String? {
        if value.isEmpty { return "\(name) needs a value" }
        if value.unicodeScalars.contains(where: { $0 != "\t" && $0.properties.generalCategory == .control }) {
            return "\(name) contains control characters (CR, LF or the like)"
        }
        if value.utf8.count > maxLength { return "\(name) is longer than \(maxLength) bytes" }
        return nil
    }
}
