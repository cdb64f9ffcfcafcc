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

    /// `<kind>-<field>-<field>...`: `video-720p`, `audio-en-a1` for a DASH
    /// representation. A field with any byte other than ASCII letters, digits, `.` and
    /// `_` has each such byte (`-` included) written as `_`, and the identity then ends
    /// in `~` and a digest of the fields as given: distinct renditions never share a
    /// name, and the name needs no percent-escape in a playlist URI (players differ on
    /// whether they decode one in a local path).
    static func of(_ kind: String, _ fields: [String]) -> String {
        let plain = fields.map(plain)
        var identity = ([kind] + plain).joined(separator: "-")
        let digest = Digest.sha256Hex(([kind] + fields).joined(separator: "\n")).prefix(12)
        let changed = plain != fields
        if changed || identity.utf8.count > maxLength {
            // Long names keep a readable start.
            identity = String(decoding: identity.utf8.prefix(maxLength - 13), as: UTF8.self) + "~" + digest
        }
        return identity
    }

    /// `text` with every byte other than ASCII letters, digits, `.` and `_` written as `_`.
    static func plain(_ text: String) -> String {
        String(
            decoding: text.utf8.map { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"):
                    byte
                default:
                    UInt8(ascii: "_")
                }
            }, as: UTF8.self)
    }
}
