/// Text from outside (bundle entry names, list lines, URLs) shown to a person: control
/// characters replaced (no terminal escapes) and cut to a readable length.
public enum Printable {
    /// `text` cut to `limit` characters (with an ellipsis), control characters replaced.
    public static func name(_ text: String, limit: Int = 300) -> String {
        // Only what is shown is cleaned (the text may be megabytes); one more tells it was cut.
        var result = visible(Substring(text).unicodeScalars.prefix(limit + 1))
        if result.count > limit { result = String(result.prefix(limit)) + "…" }
        return result
    }

    /// `text` whole, control and format characters replaced by `?`, for callers that
    /// shorten it their own way.
    public static func visible<Scalars: Sequence<Unicode.Scalar>>(_ scalars: Scalars) -> String {
        String(scalars.map { scalar -> Character in
            scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format
                ? "?" : Character(scalar)
        })
    }

    /// A URL for a message: whole up to `limit` bytes, else its start and end around an
    /// ellipsis that says how long it was. A URL may be tens of kilobytes, and a failing
    /// download names it in every retry.
    /// A password in it is shown as `***`.
    public static func url(_ url: String, limit: Int = 1024) -> String {
        let url = URLCredentials.masked(url)
        let bytes = url.utf8
        guard bytes.count > limit else { return url }
        let head = String(decoding: bytes.prefix(limit * 3 / 4), as: UTF8.self)
        let tail = String(decoding: bytes.suffix(limit / 4), as: UTF8.self)
        return "\(head)…(\(bytes.count) bytes)…\(tail)"
    }
}
