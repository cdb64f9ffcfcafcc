import Foundation

/// A look at a cookie file before libcurl reads it. libcurl skips every line it cannot
/// parse without a word, so a file in another format (a browser extension's JSON, a
/// cookies.txt whose tabs became spaces) would send no cookie at all, and the origin's
/// 403 would be the only hint.
public enum CookieFileCheck {
    /// Only the start is read: a cookie file holding no cookie line by then holds none.
    static let bytesRead = 1 << 20

    /// Why the file at `path` holds no cookies libcurl can read, or nil. A file without
    /// any content lines (empty, or only comments) is fine: there is nothing to send.
    public static func problem(path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return "cannot open it" }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: bytesRead)) ?? Data()
        return problem(text: String(decoding: data, as: UTF8.self))
    }

    static func problem(text: String) -> String? {
        // libcurl reads a byte order mark as part of the first line: a cookie there gets
        // a domain no host has, and is never sent.
        if text.hasPrefix("\u{FEFF}"), let first = text.dropFirst().split(whereSeparator: \.isNewline).first,
            !first.hasPrefix("#") || first.hasPrefix("#HttpOnly_")
        {
            return "starts with a UTF-8 byte order mark, which libcurl reads as part of the first cookie's domain "
                + "(that cookie would never be sent): save the file without it"
        }
        var contentLines = 0
        for raw in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            var line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#HttpOnly_") {
                line.removeFirst("#HttpOnly_".count)
            } else if line.isEmpty || line.hasPrefix("#") {
                continue
            }
            contentLines += 1
            // Netscape format: domain, subdomains, path, secure, expiry, name[, value]
            // tab-separated; libcurl also reads Set-Cookie: header lines.
            if line.split(separator: "\t", omittingEmptySubsequences: false).count >= 6 { return nil }
            if line.lowercased().hasPrefix("set-cookie:") { return nil }
        }
        guard contentLines > 0 else { return nil }
        return "holds no cookies in Netscape cookies.txt format (one cookie a line, 7 fields separated by tabs: "
            + "domain, include-subdomains, path, secure, expiry, name, value)"
    }
}
