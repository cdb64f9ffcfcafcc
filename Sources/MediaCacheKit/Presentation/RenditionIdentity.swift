/// The identity of a rendition of a title: part of each of its resources' identity,
/// and of the names of their files, so it stays the same across runs (unlike URLs,
/// whose tokens change) and is safe as a file name.
enum RenditionIdentity {
    /// Bytes of an identity, well under a file name's 255 with room for a suffix.
    static let maxLength = 120

    /// `audio-<group>-<name>` or `subtitles-<group>-<name>`.
    static func of(_ kind: SelectedRendition.Kind, group: String, name: String) -> String {
        of(kind.rawValue, [group, name])
    }

    /// `<kind>-<field>-<field>...`, each field escaped: `video-720p`, `audio-en-a1` for
    /// a DASH representation.
    static func of(_ kind: String, _ fields: [String]) -> String {
        let identity = ([kind] + fields.map(escaped)).joined(separator: "-")
        guard identity.utf8.count > maxLength else { return identity }
        // Long names keep a readable start and stay distinct by a digest of the whole.
        let digest = Digest.sha256Hex(([kind] + fields).joined(separator: "\n")).prefix(16)
        return String(decoding: identity.utf8.prefix(maxLength - 17), as: UTF8.self) + "~" + digest
    }

    /// `text` with every byte other than ASCII letters, digits, `.` and `_` written as
    /// `%XX`, `-` included: then the dashes between kind, group and name are the only
    /// ones, and two different (group, name) pairs never give the same identity.
    static func escaped(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                result += byte < 16 ? "%0" + hex : "%" + hex
            }
        }
        return result
    }
}
