/// A password in a URL (`https://user:secret@host/a.mp4`): sent to the origin, never
/// shown and never stored. Messages and listings show `user:***@`; the index, bundle
/// manifests and cache keys hold the URL without it, so a password that changes keeps
/// the object. Only saved job state (0600, like `header=` tokens) keeps it, for `resume`.
public enum URLCredentials {
    /// `scheme://user:***@host…` for `scheme://user:password@host…` (the scheme may be
    /// left out, as in a proxy's `user:password@host:port`); any other text as it is.
    public static func masked(_ url: String) -> String {
        replacingPassword(in: url, with: ":***", schemeRequired: false)
    }

    /// `scheme://user@host…` for `scheme://user:password@host…`; any other text (a
    /// `cache-key=` that is no URL) as it is.
    public static func withoutPassword(_ url: String) -> String {
        replacingPassword(in: url, with: "", schemeRequired: true)
    }

    /// `url` as a Referer may send it (RFC 9110 10.1.3): without its user name and
    /// password, and without its fragment.
    public static func asReferer(_ url: String) -> String {
        var referer = url
        if let hash = referer.firstIndex(of: "#") { referer = String(referer[..<hash]) }
        guard referer.utf8.contains(UInt8(ascii: "@")), let scheme = referer.range(of: "://") else { return referer }
        let start = scheme.upperBound
        let authorityEnd = referer[start...].firstIndex(where: { $0 == "/" || $0 == "?" }) ?? referer.endIndex
        guard let at = referer[start..<authorityEnd].lastIndex(of: "@") else { return referer }
        return String(referer[..<start]) + String(referer[referer.index(after: at)...])
    }

    private static func replacingPassword(in url: String, with replacement: String, schemeRequired: Bool) -> String {
        // Most URLs carry no login, and this runs for every list entry: one byte scan
        // says so before any search by characters.
        guard url.utf8.contains(UInt8(ascii: "@")) else { return url }
        let scheme = url.range(of: "://")
        if scheme == nil && schemeRequired { return url }
        let start = scheme?.upperBound ?? url.startIndex
        let authorityEnd = url[start...].firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? url.endIndex
        guard let at = url[start..<authorityEnd].lastIndex(of: "@"),
            let colon = url[start..<at].firstIndex(of: ":")
        else { return url }
        return String(url[..<colon]) + replacement + String(url[at...])
    }
}
