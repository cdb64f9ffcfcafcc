/// The one spelling the cache files an http(s) URL under. Spellings that differ only
/// where RFC 3986 (6.2.2, 6.2.3) says they name the same resource are one object, not
/// several: the scheme's and host's case, the scheme's default port, an empty path,
/// how a character is escaped, `.` and `..` segments, and a `#fragment`, which never
/// reaches the server.
enum URLCanonicalForm {
    /// `string` with its scheme and host lowercased, `:80` (http) or `:443` (https) and
    /// its fragment dropped, an empty path written `/`, and in its path and query every
    /// escape of a letter, digit, `-`, `.`, `_` or `~` decoded, every other escape in
    /// upper case, and every byte outside ASCII escaped (an IRI's `ü` is `%C3%BC`); `.`
    /// and `..` segments are removed from the path. Anything that is not an http(s) URL
    /// is unchanged. The user information, path and query keep their case.
    static func of(_ string: String) -> String {
        let bytes = Array(string.utf8)
        guard let colon = bytes.prefix(6).firstIndex(of: UInt8(ascii: ":")) else { return string }
        let scheme = lowercased(bytes[..<colon])
        guard scheme == Array("http".utf8) || scheme == Array("https".utf8),
            bytes[colon...].starts(with: "://".utf8)
        else { return string }
        let end = bytes.firstIndex(of: UInt8(ascii: "#")) ?? bytes.endIndex
        let authorityStart = colon + 3
        let authorityEnd = bytes[authorityStart..<end].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? end
        let hostStart = bytes[authorityStart..<authorityEnd].lastIndex(of: UInt8(ascii: "@")).map { $0 + 1 } ?? authorityStart
        // A colon inside an IPv6 literal's brackets is no port's.
        let afterLiteral = bytes[hostStart..<authorityEnd].lastIndex(of: UInt8(ascii: "]")) ?? hostStart
        let portColon = bytes[afterLiteral..<authorityEnd].lastIndex(of: UInt8(ascii: ":"))
        let hostEnd = portColon ?? authorityEnd

        var canonical = scheme + Array("://".utf8)
        canonical += bytes[authorityStart..<hostStart]
        canonical += lowercased(bytes[hostStart..<hostEnd])
        if let portColon {
            let port = bytes[(portColon + 1)..<authorityEnd]
            let defaultPort = Array((scheme.count == 4 ? "80" : "443").utf8)
            if !port.isEmpty && !port.elementsEqual(defaultPort) { canonical += bytes[portColon..<authorityEnd] }
        }
        let queryStart = bytes[authorityEnd..<end].firstIndex(of: UInt8(ascii: "?")) ?? end
        canonical += withoutDotSegments(escapes(bytes[authorityEnd..<queryStart]))
        canonical += escapes(bytes[queryStart..<end])
        return String(decoding: canonical, as: UTF8.self)
    }

    /// `part` with unreserved characters unescaped, other escapes in upper case, and
    /// bytes outside ASCII escaped.
    private static func escapes(_ part: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(part.count)
        var index = part.startIndex
        while index < part.endIndex {
            let byte = part[index]
            if let decoded = HexDigit.escape(in: part, at: index) {
                if isUnreserved(decoded) {
                    out.append(decoded)
                } else {
                    out += [byte, HexDigit.upper(decoded >> 4), HexDigit.upper(decoded & 0xF)]
                }
                index += 3
            } else if byte >= 0x80 {
                out += [UInt8(ascii: "%"), HexDigit.upper(byte >> 4), HexDigit.upper(byte & 0xF)]
                index += 1
            } else {
                out.append(byte)
                index += 1
            }
        }
        return out
    }

    /// An absolute path without `.` and `..` segments (RFC 3986 5.2.4); `/` when empty.
    private static func withoutDotSegments(_ path: [UInt8]) -> [UInt8] {
        guard !path.isEmpty else { return [UInt8(ascii: "/")] }
        let segments = path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst()
        guard segments.contains(where: { $0.elementsEqual([0x2E]) || $0.elementsEqual([0x2E, 0x2E]) }) else { return path }
        var kept: [ArraySlice<UInt8>] = []
        for (position, segment) in segments.enumerated() {
            let isLast = position == segments.count - 1
            if segment.elementsEqual([0x2E]) {
                if isLast { kept.append([]) }
            } else if segment.elementsEqual([0x2E, 0x2E]) {
                if !kept.isEmpty { kept.removeLast() }
                if isLast { kept.append([]) }
            } else {
                kept.append(segment)
            }
        }
        let joined = kept.reduce(into: [UInt8]()) { out, segment in out += [UInt8(ascii: "/")] + segment }
        return joined.isEmpty ? [UInt8(ascii: "/")] : joined
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || [0x2D, 0x2E, 0x5F, 0x7E].contains(byte)
    }

    private static func lowercased(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        bytes.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 | 0x20 : $0 }
    }
}
