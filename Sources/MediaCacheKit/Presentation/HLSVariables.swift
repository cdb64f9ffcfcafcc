import Foundation

/// The variables a playlist defines with `EXT-X-DEFINE` (RFC 8216bis section 4.4.2.3),
/// and the substitution of `{$name}` references in URI lines and quoted values.
///
/// A media playlist may `IMPORT` the variables of the master playlist it was loaded
/// from; pass the master's `variables` when reading it.
public struct HLSVariables: Sendable, Equatable {
    public private(set) var values: [String: String]
    /// Bytes substitution has produced so far: a short reference to a long value, many
    /// times over, must not turn a 16 MiB playlist into gigabytes.
    private var expandedBytes = 0
    static let maxExpandedBytes = 4 * PlaylistText.maxBytes

    public init(_ values: [String: String] = [:]) {
        self.values = values
    }

    public static func == (a: HLSVariables, b: HLSVariables) -> Bool { a.values == b.values }

    /// Takes in one `EXT-X-DEFINE`: `NAME` with `VALUE`, `IMPORT` of a variable of
    /// `imports` (nil in a master playlist, or a media playlist read on its own), or
    /// `QUERYPARAM`, the value of that query parameter of `playlistURL`.
    mutating func define(
        _ attributes: AttributeList, playlistURL: String, imports: HLSVariables?
    ) throws(PlaylistSyntaxError) {
        let forms = ["NAME", "IMPORT", "QUERYPARAM"].filter { attributes[$0] != nil }
        guard forms.count == 1, let form = forms.first else {
            throw PlaylistSyntaxError("needs exactly one of NAME, IMPORT and QUERYPARAM")
        }
        let name = try attributes.required(attributes.quotedString(form), form)
        guard !name.isEmpty, name.utf8.allSatisfy(Self.isNameByte) else {
            throw PlaylistSyntaxError(
                "variable name \(PlaylistSyntaxError.quote(name)) is not letters, digits, - and _")
        }
        guard values[name] == nil else { throw PlaylistSyntaxError("variable \(name) is defined twice") }
        switch form {
        case "NAME":
            values[name] = try attributes.required(attributes.quotedString("VALUE"), "VALUE")
        case "IMPORT":
            guard let imports else {
                throw PlaylistSyntaxError("IMPORT of \(name), but this playlist was not loaded from a master playlist")
            }
            guard let value = imports.values[name] else {
                throw PlaylistSyntaxError("IMPORT of \(name), which the master playlist does not define")
            }
            values[name] = value
        default:
            let items = URLComponents(string: playlistURL)?.queryItems ?? []
            guard let value = items.first(where: { $0.name == name })?.value else {
                throw PlaylistSyntaxError("QUERYPARAM \(name), but the playlist URL has no such query parameter")
            }
            // Decoded, a query value may hold %0A or %00, which no line of the playlist could.
            guard !ControlCharacters.occur(in: value) else {
                throw PlaylistSyntaxError("QUERYPARAM \(name) has control characters in its value")
            }
            values[name] = value
        }
    }

    /// `text` with every `{$name}` replaced by its value; a reference to a variable
    /// that is not defined (above it) is an error, as RFC 8216bis asks.
    mutating func substitute(_ text: some StringProtocol) throws(PlaylistSyntaxError) -> String {
        guard text.contains("{$") else { return String(text) }
        let bytes = Array(text.utf8)
        var result: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if let (name, end) = Self.reference(in: bytes, at: index) {
                guard let value = values[name] else {
                    throw PlaylistSyntaxError(
                        "variable {$\(Printable.name(name, limit: 60))} is not defined by an EXT-X-DEFINE above")
                }
                expandedBytes += value.utf8.count
                guard expandedBytes <= Self.maxExpandedBytes else {
                    throw PlaylistSyntaxError(
                        "variable substitution makes the playlist larger than \(Self.maxExpandedBytes) bytes")
                }
                result.append(contentsOf: value.utf8)
                index = end
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// The variable name of a complete `{$name}` starting at `start`, and the index
    /// after its `}`; nil when the bytes there are not one (they stay as written).
    private static func reference(in bytes: [UInt8], at start: Int) -> (String, Int)? {
        guard bytes.count - start >= 4, bytes[start] == UInt8(ascii: "{"), bytes[start + 1] == UInt8(ascii: "$") else {
            return nil
        }
        var end = start + 2
        while end < bytes.count, isNameByte(bytes[end]) { end += 1 }
        guard end > start + 2, end < bytes.count, bytes[end] == UInt8(ascii: "}") else { return nil }
        return (String(decoding: bytes[(start + 2)..<end], as: UTF8.self), end + 1)
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }
}
