/// Keeps credentials out of messages: request headers are never printed, and a
/// malformed header line is quoted only up to its first space or colon (its likely
/// name), since the rest is often a token with a typo around it.
public enum HeaderRedaction {
    /// `Authorization Bearer abc` → `Authorization …`.
    public static func preview(_ line: String) -> String {
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        let name = trimmed.prefix { $0 != " " && $0 != ":" && $0 != "\t" }
        return name.count == trimmed.count ? String(name) : name + " …"
    }
}
