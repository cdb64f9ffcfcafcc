/// How a segment is encrypted (`EXT-X-KEY` METHOD other than NONE).
public enum HLSKeyMethod: String, Sendable, Hashable {
    case aes128 = "AES-128"
    case sampleAES = "SAMPLE-AES"
    case sampleAESCTR = "SAMPLE-AES-CTR"
}

/// A key declared by `EXT-X-KEY` (it applies to the segments after it, until the next
/// one) or `EXT-X-SESSION-KEY` (a master playlist's preview of them). Only keys anyone
/// may fetch are read: DRM key systems are refused while reading.
public struct HLSKey: Sendable, Hashable {
    public var method: HLSKeyMethod
    /// Absolute, or a `data:` URI that holds the key itself.
    public var uri: String
    /// 16 bytes when the playlist gives one (see `initializationVector(mediaSequence:)`).
    public var iv: [UInt8]?
    public var keyFormat: String
    public var keyFormatVersions: String?

    public init(
        method: HLSKeyMethod, uri: String, iv: [UInt8]? = nil, keyFormat: String = "identity",
        keyFormatVersions: String? = nil
    ) {
        self.method = method
        self.uri = uri
        self.iv = iv
        self.keyFormat = keyFormat
        self.keyFormatVersions = keyFormatVersions
    }

    /// The IV that decrypts the segment with media sequence number `mediaSequence`:
    /// the written one, else that number as a 128-bit big-endian integer (RFC 8216
    /// section 5.2).
    public func initializationVector(mediaSequence: Int) -> [UInt8] {
        if let iv { return iv }
        let number = UInt64(clamping: mediaSequence)
        return [UInt8](repeating: 0, count: 8) + (0..<8).map { UInt8(truncatingIfNeeded: number >> (56 - 8 * $0)) }
    }

    /// An AES-128 key's length in bytes.
    static let aes128KeyLength: Int64 = 16

    /// Checks the body fetched from an AES-128 key URI: exactly 16 bytes, or an error
    /// naming the key (servers answer an expired token with a page, not a status).
    public static func checkAES128Key(_ body: [UInt8], uri: String) throws(PresentationError) {
        guard body.count == Int(aes128KeyLength) else { throw .badKeyLength(keyURI: uri, bytes: body.count) }
    }

    /// The key `tag` declares, nil for `METHOD=NONE` (where `allowsNone`, else an error).
    static func read(
        _ tag: PlaylistTag, _ attributes: AttributeList, allowsNone: Bool
    ) throws(PresentationError) -> HLSKey? {
        let methodName = try tag.reading { () throws(PlaylistSyntaxError) in
            try attributes.required(attributes.enumeratedString("METHOD"), "METHOD")
        }
        if methodName == "NONE" {
            guard allowsNone else { throw tag.malformed("METHOD=NONE is not allowed here") }
            return nil
        }
        guard let method = HLSKeyMethod(rawValue: methodName) else {
            throw .unknownKeyMethod(url: tag.url, line: tag.line, method: methodName)
        }
        let (written, keyFormat, versions, iv) = try tag.reading { () throws(PlaylistSyntaxError) in
            (
                try attributes.required(attributes.quotedString("URI"), "URI"),
                try attributes.quotedString("KEYFORMAT") ?? "identity",
                try attributes.quotedString("KEYFORMATVERSIONS"),
                try attributes.hexadecimal("IV")
            )
        }
        // Checked before the URI is resolved: `skd://` is no http(s) URL, and the user
        // should read "DRM", not "unsupported scheme".
        if written.lowercased().hasPrefix("skd://") {
            throw .drm(url: tag.url, line: tag.line, reason: "the key is a FairPlay skd:// key")
        }
        guard keyFormat == "identity" else {
            throw .drm(
                url: tag.url, line: tag.line,
                reason: "\(method.rawValue) key with KEYFORMAT \(PlaylistSyntaxError.quote(keyFormat))")
        }
        if let iv, iv.count > 16 { throw tag.malformed("IV must be a 128-bit number, it has \(iv.count) bytes") }
        // A key written into the playlist itself: checked now, stored as a file like any.
        if DataURI.isDataURI(written) {
            guard let bytes = DataURI.bytes(of: written) else { throw tag.malformed("the key's data: URI cannot be decoded") }
            guard bytes.count == Int(aes128KeyLength) else {
                throw tag.malformed("the key's data: URI holds \(bytes.count) bytes, not \(aes128KeyLength)")
            }
            return HLSKey(
                method: method, uri: written, iv: iv.map { [UInt8](repeating: 0, count: 16 - $0.count) + $0 },
                keyFormat: keyFormat, keyFormatVersions: versions)
        }
        let uri = try tag.reading { () throws(PlaylistSyntaxError) in
            try PlaylistURI.resolve(written, against: tag.url)
        }
        return HLSKey(
            method: method, uri: uri, iv: iv.map { [UInt8](repeating: 0, count: 16 - $0.count) + $0 },
            keyFormat: keyFormat, keyFormatVersions: versions)
    }
}
