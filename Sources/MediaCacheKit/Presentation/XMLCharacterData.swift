/// The text of an XML document between its markup, and of attribute values, as the
/// characters it stands for: line ends made LF (blanks made spaces in an attribute
/// value, XML 1.0 sections 2.11 and 3.3.3), entity references replaced, UTF-8 checked,
/// control characters refused.
enum XMLCharacterData {
    /// What is wrong, and the index of the byte where it is.
    struct Problem: Error {
        let index: Int
        let reason: String
    }

    /// `raw` decoded; references are left as written when not `entities` (CDATA).
    static func decoded(_ raw: ArraySlice<UInt8>, inAttribute: Bool, entities: Bool) throws(Problem) -> String {
        // Most text has nothing to replace: checked once, copied once.
        let plain = raw.allSatisfy {
            $0 >= 0x20 && ($0 != UInt8(ascii: "&") || !entities) || $0 == UInt8(ascii: "\n") && !inAttribute
        }
        var result: [UInt8] = []
        if !plain {
            result.reserveCapacity(raw.count)
            try replace(raw, into: &result, inAttribute: inAttribute, entities: entities)
        }
        guard let text = plain ? String(validating: raw, as: UTF8.self) : String(validating: result, as: UTF8.self)
        else {
            throw Problem(index: raw.startIndex, reason: "the text is not UTF-8")
        }
        return text
    }

    private static func replace(
        _ raw: ArraySlice<UInt8>, into result: inout [UInt8], inAttribute: Bool, entities: Bool
    ) throws(Problem) {
        var index = raw.startIndex
        while index < raw.endIndex {
            let byte = raw[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\r"):
                if index < raw.endIndex && raw[index] == UInt8(ascii: "\n") { index += 1 }
                result.append(inAttribute ? UInt8(ascii: " ") : UInt8(ascii: "\n"))
            case UInt8(ascii: "\n"), UInt8(ascii: "\t"):
                result.append(inAttribute ? UInt8(ascii: " ") : byte)
            case UInt8(ascii: "&") where entities:
                guard let end = raw[index...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else {
                    throw Problem(
                        index: index - 1, reason: "an '&' that starts no entity reference (write &amp; for '&')")
                }
                guard let scalar = entity(raw[index..<end]) else {
                    let written = Printable.name(String(decoding: raw[(index - 1)...end], as: UTF8.self), limit: 20)
                    throw Problem(
                        index: index - 1,
                        reason: "unknown entity or character '\(written)'; only &amp; &lt; &gt; &quot; &apos; "
                            + "and references to characters XML allows are defined")
                }
                result.append(contentsOf: String(Character(scalar)).utf8)
                index = end + 1
            case 0..<0x20:
                throw Problem(index: index - 1, reason: "a control character (0x\(String(byte, radix: 16))) in text")
            default:
                result.append(byte)
            }
        }
    }

    /// The character an entity reference names (`amp`, `#38`, `#x26`); nil for a name
    /// no DTD here defines, or a character XML does not allow (NUL, a surrogate).
    static func entity(_ name: ArraySlice<UInt8>) -> Unicode.Scalar? {
        let text = String(decoding: name, as: UTF8.self)
        switch text {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        default: break
        }
        guard text.hasPrefix("#") else { return nil }
        let hex = text.hasPrefix("#x")
        let digits = text.dropFirst(hex ? 2 : 1)
        guard !digits.isEmpty, digits.count <= 8,
            digits.allSatisfy({ $0.isASCII && (hex ? $0.isHexDigit : $0.isNumber) }),
            let value = UInt32(digits, radix: hex ? 16 : 10),
            value == 0x9 || value == 0xA || value == 0xD || (0x20...0xD7FF).contains(value)
                || (0xE000...0xFFFD).contains(value) || (0x10000...0x10FFFF).contains(value)
        else { return nil }
        return Unicode.Scalar(value)
    }
}
