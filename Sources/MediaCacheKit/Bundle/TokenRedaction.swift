/// What of an object's URLs a bundle may carry. Request headers never reach a bundle
/// (the index does not store them). An object cached under a `cache-key=` has one
/// because its URLs carry expiring tokens (`ListEntry.cacheKey`): by default the bundle
/// keeps those URLs only without user-info, query and fragment, marked redacted, and
/// after import the object answers to its cache key. An object cached under its URL
/// keeps it: that URL is its identity, the only name it can be found by.
enum TokenRedaction {
    struct Shareable: Equatable {
        var url: String
        var mirrors: [String]
        var redacted: Bool
    }

    static func shareable(url: String, mirrors: [String], cacheKey: String, keepQuery: Bool) -> Shareable {
        guard cacheKey != url, !keepQuery else { return Shareable(url: url, mirrors: mirrors, redacted: false) }
        return Shareable(url: stripped(url), mirrors: mirrors.map(stripped), redacted: true)
    }

    /// `https://user:pw@host/a.mp4?sig=x#t` → `https://host/a.mp4`.
    static func stripped(_ url: String) -> String {
        var text = Substring(url)
        if let cut = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = text[..<cut] }
        guard let scheme = text.range(of: "://") else { return String(text) }
        let authorityStart = scheme.upperBound
        let authorityEnd = text[authorityStart...].firstIndex(of: "/") ?? text.endIndex
        if let at = text[authorityStart..<authorityEnd].lastIndex(of: "@") {
            text = text[..<authorityStart] + text[text.index(after: at)...]
        }
        return String(text)
    }
}
