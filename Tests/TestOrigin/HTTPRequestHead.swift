import Foundation

/// A parsed HTTP/1.x request line plus header fields.
struct HTTPRequestHead {
    var method: String
    var version: String
    /// The path part of the request target, without query (absolute-form targets are reduced to it).
    var path: String
    var query: String?
    /// Lowercased names; repeated fields joined with ", ".
    var headers: [String: String]

    /// HTTP/1.1 keeps the connection open unless told `close`; HTTP/1.0 only when asked.
    var wantsKeepAlive: Bool {
        let tokens = (headers["connection"] ?? "").lowercased()
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        if tokens.contains("close") { return false }
        return version == "HTTP/1.1" || tokens.contains("keep-alive")
    }

    /// Where a request body ends; nil when it cannot be delimited without chunked decoding.
    var bodyLength: Int? {
        if headers["transfer-encoding"] != nil { return nil }
        guard let value = headers["content-length"] else { return 0 }
        return Int(value.trimmingCharacters(in: .whitespaces))
    }

    /// The path to look up routes by: as sent, or percent-decoded as a fallback.
    var lookupPaths: [String] {
        if let decoded = path.removingPercentEncoding, decoded != path { return [path, decoded] }
        return [path]
    }

    /// Parses the bytes before the blank line. Returns nil for anything malformed.
    init?(_ bytes: ArraySlice<UInt8>) {
        // Split on bytes: as Characters, "\r\n" is one grapheme and would not split on "\n".
        // ISO-8859-1 maps every byte, so odd header bytes cannot fail decoding.
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map { line in
            String(bytes: line.last == 0x0D ? line.dropLast() : line, encoding: .isoLatin1) ?? ""
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard !lines.isEmpty else { return nil }

        let requestLine = lines.removeFirst().split(separator: " ", omittingEmptySubsequences: true)
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1.") else { return nil }
        method = String(requestLine[0])
        version = String(requestLine[2])

        var target = Substring(requestLine[1])
        if let schemeEnd = target.range(of: "://"), target.hasPrefix("http") {
            let authorityAndPath = target[schemeEnd.upperBound...]
            target = authorityAndPath.firstIndex(of: "/").map { authorityAndPath[$0...] } ?? "/"
        }
        if let mark = target.firstIndex(of: "?") {
            path = String(target[..<mark])
            query = String(target[target.index(after: mark)...])
        } else {
            path = String(target)
            query = nil
        }

        headers = [:]
        var lastName: String?
        for line in lines {
            if line.first == " " || line.first == "\t" {
                // Obsolete line folding: a continuation of the previous field.
                guard let name = lastName else { return nil }
                headers[name, default: ""] += " " + line.trimmingCharacters(in: .whitespaces)
                continue
            }
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else { return nil }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if let existing = headers[name] {
                headers[name] = existing + ", " + value
            } else {
                headers[name] = value
            }
            lastName = name
        }
    }
}
