/// The one spelling the cache files an http(s) URL under. Spellings that differ only
/// where RFC 3986 (6.2.2, 6.2.3) says they name the same resource — the scheme's and
/// host's case, the scheme's default port, an empty path — and a `#fragment`, which
/// never reaches the server, are one object, not several.
enum URLCanonicalForm {
    /// `string` with its scheme and host lowercased, `:80` (http) or `:443` (https) and
    /// its fragment dropped, and an empty path written `/`; anything that is not an
    /// http(s) URL unchanged. The user information, path and query keep their case.
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
        if authorityEnd == end || bytes[authorityEnd] == UInt8(ascii: "?") { canonical.append(UInt8(ascii: "/")) }
        canonical += bytes[authorityEnd..<end]
        return String(decoding: canonical, as: UTF8.self)
    }

    private static func lowercased(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        bytes.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 | 0x20 : $0 }
    }
}
