/// Path-style request URLs in the form SigV4 signs as they are: the key's bytes
/// percent-encoded as S3's canonical request has them (every byte but `A-Z a-z 0-9
/// - _ . ~`, and `/` in paths), query parameters sorted by name, each written
/// `name=value` even when the value is empty. libcurl 7.88 signs the URL's own text,
/// so anything else would not match the signature the store computes.
enum S3RequestURL {
    static func make(endpoint: String, bucket: String, key: String? = nil, query: [(String, String)] = []) -> String {
        var url = endpoint + "/" + bucket
        if let key { url += "/" + encode(key, keepingSlashes: true) }
        if !query.isEmpty {
            let sorted = query.map { (encode($0.0), encode($0.1)) }.sorted { $0.0 == $1.0 ? $0.1 < $1.1 : $0.0 < $1.0 }
            url += "?" + sorted.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
        }
        return url
    }

    static func encode(_ text: String, keepingSlashes: Bool = false) -> String {
        var encoded = ""
        encoded.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            let isUnreserved =
                (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                || byte == 0x2D || byte == 0x5F || byte == 0x2E || byte == 0x7E
            if isUnreserved || (keepingSlashes && byte == 0x2F) {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = Array("0123456789ABCDEF".utf8)
                encoded.unicodeScalars.append("%")
                encoded.unicodeScalars.append(Unicode.Scalar(hex[Int(byte >> 4)]))
                encoded.unicodeScalars.append(Unicode.Scalar(hex[Int(byte & 0x0F)]))
            }
        }
        return encoded
    }
}
