import Foundation

/// The parts of an http(s) URL the engine reasons about: scheme, host, port and path.
public struct URLParts: Sendable, Equatable {
    public let scheme: String
    public let host: String
    public let port: Int
    public let path: String

    public init?(_ string: String) {
        guard let components = URLComponents(string: string),
            let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https",
            let host = components.host, !host.isEmpty
        else { return nil }
        self.scheme = scheme
        self.host = host.lowercased()
        self.port = components.port ?? (scheme == "https" ? 443 : 80)
        self.path = components.percentEncodedPath
    }

    /// `scheme://host:port`: custom headers are sent only while this stays the same.
    public var origin: String { "\(scheme)://\(host):\(port)" }

    public var lastPathComponent: String {
        let last = path.split(separator: "/").last.map(String.init) ?? ""
        guard last.utf8.contains(UInt8(ascii: "%")) else { return last }
        return last.removingPercentEncoding ?? last
    }

    /// The lowercase file extension of the path, if it has a short one.
    public var pathExtension: String? {
        // Without escapes the last component is the path's own (every file's response asks).
        path.utf8.contains(UInt8(ascii: "%")) ? Self.shortExtension(of: lastPathComponent) : Self.shortExtension(of: path)
    }

    /// `URLParts(url)?.pathExtension`, without parsing the whole URL when its last path
    /// component has no escapes (a title names thousands of URLs).
    public static func pathExtension(ofURL url: String) -> String? {
        let bytes = url.utf8
        // The first ':' is the scheme's (a URL made absolute); `firstRange(of:)` costs more.
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")),
            bytes[colon...].starts(with: "://".utf8)
        else { return nil }
        let authority = bytes.index(colon, offsetBy: 3)
        let end = bytes[authority...].firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.endIndex
        guard let slash = bytes[authority..<end].lastIndex(of: UInt8(ascii: "/")) else { return nil }
        let last = url[bytes.index(after: slash)..<end]
        guard !last.utf8.contains(UInt8(ascii: "%")) else { return URLParts(url)?.pathExtension }
        return shortExtension(of: String(last))
    }

    /// The extension of a file name, lowercased, if it is 1–8 ASCII letters or digits.
    public static func shortExtension(of name: String) -> String? {
        // Bytes, not Characters: this runs for every file a run fetches.
        var bytes = name.utf8[...]
        while bytes.last == UInt8(ascii: "/") { bytes = bytes.dropLast() }
        let base = bytes.lastIndex(of: UInt8(ascii: "/")).map { bytes[bytes.index(after: $0)...] } ?? bytes
        guard let dot = base.lastIndex(of: UInt8(ascii: ".")), dot != base.startIndex else { return nil }
        let ext = base[base.index(after: dot)...]
        let upper = UInt8(ascii: "A")...UInt8(ascii: "Z")
        let lower = UInt8(ascii: "a")...UInt8(ascii: "z")
        let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
        let lowered = ext.map { upper.contains($0) ? $0 | 0x20 : $0 }
        guard (1...8).contains(lowered.count), lowered.allSatisfy({ lower.contains($0) || digits.contains($0) }) else { return nil }
        return String(decoding: lowered, as: UTF8.self)
    }

    /// The longest URL fetched. Servers refuse far shorter ones (nginx and Apache at
    /// about 8 KiB by default), and libcurl refuses 8 MB; past this it is not a URL
    /// anyone meant.
    public static let maxLength = 64 * 1024

    /// Why `string` cannot be fetched, or nil if it can.
    public static func problem(with string: String) -> String? {
        let length = string.utf8.count
        if length > maxLength {
            return "URL is \(length) bytes long; mediacache fetches URLs of up to \(maxLength) bytes"
        }
        // URLComponents lets NUL and CR through in a fragment; libcurl would cut the URL
        // at the NUL, so the cache would file other bytes under this one.
        if ControlCharacters.occur(in: string) {
            return "URL contains control characters"
        }
        guard let components = URLComponents(string: string), let scheme = components.scheme else {
            return "not a valid URL"
        }
        let lower = scheme.lowercased()
        guard lower == "http" || lower == "https" else {
            return "unsupported scheme '\(scheme)' (only http and https are fetched)"
        }
        guard let host = components.host, !host.isEmpty else { return "URL has no host" }
        if let port = components.port, !(1...65535).contains(port) {
            return "port \(port) is not a TCP port (1-65535)"
        }
        return nil
    }

    /// `string` without its `#fragment`, or nil when it has none or is no http(s) URL.
    /// A fragment never reaches the server (`#t=10` is for the player), so it is no
    /// part of what is cached.
    public static func removingFragment(_ string: String) -> String? {
        guard let hash = string.utf8.firstIndex(of: UInt8(ascii: "#")) else { return nil }
        let lower = string.prefix(8).lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else { return nil }
        return String(string[..<hash])
    }

    /// Resolves a `Location` header against the URL it came from.
    public static func resolve(_ location: String, against base: String) -> String? {
        guard let baseURL = URL(string: base),
            let resolved = URL(string: location, relativeTo: baseURL)
        else { return nil }
        return resolved.absoluteString
    }
}
