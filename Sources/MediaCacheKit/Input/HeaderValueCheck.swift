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

    /// Whether `value` holds a character that has no place in a header (any control
    /// character but tab): a stored value from outside (a tier record, a bundle
    /// manifest) with one is refused before it can become a header or reach a terminal.
    public static func hasControlCharacters(_ value: String) -> Bool {
        ControlCharacters.occur(in: value, allowingTab: true)
    }
}
