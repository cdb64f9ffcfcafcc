import Foundation

/// A `data:` URI (RFC 2397): `data:[<media type>][;base64],<data>`. HLS playlists carry
/// AES-128 keys this way (`URI="data:text/plain;base64,…"`); nothing fetches them.
enum DataURI {
    /// Whether `uri` is one (the scheme is case-insensitive).
    static func isDataURI(_ uri: some StringProtocol) -> Bool {
        uri.utf8.count >= 5 && uri.prefix(5).lowercased() == "data:"
    }

    /// The bytes `uri` holds; nil when it is not a well-formed `data:` URI.
    static func bytes(of uri: String) -> [UInt8]? {
        guard isDataURI(uri), let comma = uri.firstIndex(of: ",") else { return nil }
        let parameters = uri[uri.index(uri.startIndex, offsetBy: 5)..<comma].split(separator: ";")
        let payload = String(uri[uri.index(after: comma)...])
        if parameters.last?.lowercased() == "base64" {
            // Padding is optional in practice; whitespace is not part of the payload.
            var text = payload.filter { !$0.isWhitespace }
            if let decoded = text.removingPercentEncoding { text = decoded }
            while text.utf8.count % 4 != 0 { text += "=" }
            return Data(base64Encoded: text).map(Array.init)
        }
        return payload.removingPercentEncoding.map { Array($0.utf8) }
    }
}
