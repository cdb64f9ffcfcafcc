import Foundation

/// A proxy as `--proxy` or a list's `all-proxy=` names it: `[SCHEME://][USER:PASSWORD@]HOST[:PORT]`
/// with SCHEME one of http (the default, as curl and aria2 take it), https, socks5 or
/// socks5h, or empty for "no proxy at all", not even one from the environment.
///
/// The URL may hold a password: `description` and every message show it as `***`.
public struct ProxyURL: Sendable, Equatable, CustomStringConvertible {
    public static let schemes = ["http", "https", "socks5", "socks5h"]

    /// What libcurl gets (`CURLOPT_PROXY`); empty: connect directly.
    public let value: String

    /// No proxy, whatever the environment says.
    public static let direct = ProxyURL(checked: "")

    private init(checked value: String) { self.value = value }

    public var isDirect: Bool { value.isEmpty }

    /// The URL with its password (if any) replaced by `***`.
    public var description: String { URLCredentials.masked(value) }

    /// Why a proxy setting cannot be used; its text never holds the password.
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    public init(parsing text: String) throws(Problem) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty {
            self = .direct
            return
        }
        func problem(_ reason: String) -> Problem {
            Problem(description: "proxy '\(Printable.name(URLCredentials.masked(trimmed), limit: 200))' \(reason)")
        }
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control })
        else { throw problem("contains spaces or control characters") }
        var rest = Substring(trimmed)
        if let separator = rest.range(of: "://") {
            let scheme = rest[..<separator.lowerBound].lowercased()
            guard Self.schemes.contains(scheme) else {
                throw problem("has an unsupported scheme '\(scheme)' (use http, https, socks5 or socks5h)")
            }
            rest = rest[separator.upperBound...]
        }
        // Only an optional "/" may follow the authority: a proxy has no path.
        let authority = rest.prefix { $0 != "/" }
        guard rest.dropFirst(authority.count).allSatisfy({ $0 == "/" }) else { throw problem("has a path") }
        let hostAndPort = authority.lastIndex(of: "@").map { authority[authority.index(after: $0)...] } ?? authority
        // libcurl splits the login at the first "@", not the last: it would take the rest
        // of the password for the host ("Unsupported proxy syntax", password and all).
        if authority.filter({ $0 == "@" }).count > 1 {
            throw problem("has an '@' in its user name or password: write it as %40")
        }
        var host = hostAndPort
        var port: Substring?
        if hostAndPort.hasPrefix("[") {
            // [IPv6]:port
            guard let close = hostAndPort.firstIndex(of: "]") else { throw problem("has an unclosed '['") }
            host = hostAndPort[...close]
            let after = hostAndPort[hostAndPort.index(after: close)...]
            if !after.isEmpty {
                guard after.first == ":" else { throw problem("has text after ']'") }
                port = after.dropFirst()
            }
        } else if let colon = hostAndPort.lastIndex(of: ":") {
            host = hostAndPort[..<colon]
            port = hostAndPort[hostAndPort.index(after: colon)...]
        }
        guard !host.isEmpty, host != "[]" else { throw problem("has no host") }
        if let port {
            guard let number = Int(port), (1...65535).contains(number) else {
                throw problem("has a bad port '\(Printable.name(String(port), limit: 20))' (1-65535)")
            }
        }
        self.init(checked: trimmed)
    }
}
