/// A URI written in a playlist, made absolute against the playlist's final URL (after
/// redirects, RFC 8216 section 4.1) and checked before anything fetches it.
enum PlaylistURI {
    static func resolve(_ reference: some StringProtocol, against base: String) throws(PlaylistSyntaxError) -> String {
        guard !reference.isEmpty else { throw PlaylistSyntaxError("the URI is empty") }
        // Refused before resolving: Foundation would percent-encode them into a valid URL.
        if reference.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw PlaylistSyntaxError("the URI contains control characters")
        }
        let text = String(reference)
        guard let resolved = URLParts.resolve(text, against: base) else {
            throw PlaylistSyntaxError("the URI \(PlaylistSyntaxError.quote(text)) is not a valid URI reference")
        }
        if let problem = URLParts.problem(with: resolved) {
            throw PlaylistSyntaxError("the URI \(PlaylistSyntaxError.quote(text)): \(problem)")
        }
        // A fragment never reaches the server; it is no part of what is fetched.
        return URLParts.removingFragment(resolved) ?? resolved
    }
}
