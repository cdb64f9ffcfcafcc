/// A URI written in a playlist, made absolute against the playlist's final URL (after
/// redirects, RFC 8216 section 4.1) and checked before anything fetches it.
enum PlaylistURI {
    static func resolve(_ reference: some StringProtocol, against base: String) throws(PlaylistSyntaxError) -> String {
        guard !reference.isEmpty else { throw PlaylistSyntaxError("the URI is empty") }
        // Refused before resolving: Foundation would percent-encode them into a valid URL.
        if ControlCharacters.occur(in: reference) {
            throw PlaylistSyntaxError("the URI contains control characters")
        }
        if let joined = joinedPlainly(reference, to: base) { return joined }
        return try resolvedByFoundation(String(reference), against: base)
    }

    /// The general way: Foundation resolves, then the result is checked as any URL is.
    static func resolvedByFoundation(_ text: String, against base: String) throws(PlaylistSyntaxError) -> String {
        guard let resolved = URLParts.resolve(text, against: base) else {
            throw PlaylistSyntaxError("the URI \(PlaylistSyntaxError.quote(text)) is not a valid URI reference")
        }
        if let problem = URLParts.problem(with: resolved) {
            throw PlaylistSyntaxError("the URI \(PlaylistSyntaxError.quote(text)): \(problem)")
        }
        // A fragment never reaches the server; it is no part of what is fetched.
        return URLParts.removingFragment(resolved) ?? resolved
    }

    /// What nearly every segment line is, resolved without Foundation (which costs a
    /// 1,000-segment playlist a tenth of a second): a relative path of plain characters,
    /// with or without a plain query, against a plain http(s) URL. RFC 3986's merge then
    /// is the base up to its last `/` followed by the reference. Anything else (dot
    /// segments, percent escapes, a fragment, an unusual base) takes the general way.
    static func joinedPlainly(_ reference: some StringProtocol, to base: String) -> String? {
        guard let directory = plainDirectory(of: base), isPlainRelative(reference),
            directory.utf8.count + reference.utf8.count <= URLParts.maxLength
        else { return nil }
        var joined = directory
        joined.append(contentsOf: reference)
        return joined
    }

    /// `base` up to and including the last `/` of its path (a `/` added when it has no
    /// path), if it is an http(s) URL of plain characters: a host of letters, digits, dots
    /// and dashes with an optional port, no user, and no dot segment or escape in its path.
    private static func plainDirectory(of base: String) -> String? {
        let bytes = base.utf8
        let schemeLength: Int
        if bytes.starts(with: "http://".utf8) {
            schemeLength = 7
        } else if bytes.starts(with: "https://".utf8) {
            schemeLength = 8
        } else {
            return nil
        }
        let authorityStart = bytes.index(bytes.startIndex, offsetBy: schemeLength)
        let authorityEnd =
            bytes[authorityStart...].firstIndex { $0 == UInt8(ascii: "/") || isQueryOrFragmentStart($0) } ?? bytes.endIndex
        let authority = bytes[authorityStart..<authorityEnd]
        let hostEnd = authority.firstIndex(of: UInt8(ascii: ":")) ?? authority.endIndex
        let host = authority[..<hostEnd]
        guard !host.isEmpty, host.allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }),
            hostEnd == authority.endIndex || isPort(authority[hostEnd...].dropFirst())
        else { return nil }
        let pathEnd = bytes[authorityEnd...].firstIndex(where: isQueryOrFragmentStart) ?? bytes.endIndex
        let path = bytes[authorityEnd..<pathEnd]
        guard path.allSatisfy({ isUnreserved($0) || isSubDelimiter($0) || isQueryExtra($0) && $0 != UInt8(ascii: "?") }),
            !hasDotSegment(path)
        else { return nil }
        // The query and fragment are dropped by the merge; they need only be harmless.
        guard bytes[pathEnd...].allSatisfy({ isUnreserved($0) || isSubDelimiter($0) || isQueryExtra($0) || $0 == UInt8(ascii: "#") })
        else { return nil }
        guard let lastSlash = path.lastIndex(of: UInt8(ascii: "/")) else {
            return base[..<pathEnd] + "/"
        }
        return String(base[...lastSlash])
    }

    /// A non-empty relative path of unreserved characters, without dot or empty segments,
    /// and an optional query of plain characters.
    private static func isPlainRelative(_ reference: some StringProtocol) -> Bool {
        let bytes = reference.utf8
        let queryStart = bytes.firstIndex(of: UInt8(ascii: "?")) ?? bytes.endIndex
        let path = bytes[..<queryStart]
        guard path.first != UInt8(ascii: "/"), path.allSatisfy({ isUnreserved($0) || $0 == UInt8(ascii: "/") }),
            !path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).contains(where: { isEmptyOrDot($0) })
        else { return false }
        return bytes[queryStart...].dropFirst().allSatisfy { isUnreserved($0) || isSubDelimiter($0) || isQueryExtra($0) }
    }

    private static func hasDotSegment(_ path: some Collection<UInt8>) -> Bool {
        path.split(separator: UInt8(ascii: "/")).contains(where: { isEmptyOrDot($0) })
    }

    /// An empty segment, `.` or `..`.
    private static func isEmptyOrDot(_ segment: some Collection<UInt8>) -> Bool {
        segment.count <= 2 && segment.allSatisfy { $0 == UInt8(ascii: ".") }
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }

    /// RFC 3986's unreserved characters.
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: "~")
    }

    /// The sub-delimiters Foundation leaves as they are.
    private static func isSubDelimiter(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "=") || byte == UInt8(ascii: "&") || byte == UInt8(ascii: ",") || byte == UInt8(ascii: ";")
            || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "!") || byte == UInt8(ascii: "*")
    }

    private static func isQueryOrFragmentStart(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
    }

    /// 1 to 65535 in at most five digits.
    private static func isPort(_ digits: some Collection<UInt8>) -> Bool {
        guard (1...5).contains(digits.count), digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return false }
        let value = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        return (1...65535).contains(value)
    }

    private static func isQueryExtra(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "/") || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "@") || byte == UInt8(ascii: "?")
    }
}
