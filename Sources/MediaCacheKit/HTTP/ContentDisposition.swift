import Foundation

/// The file name an origin gives its answer in `Content-Disposition` (RFC 6266), as
/// aria2 uses it by default (curl with `-J`, wget with `--content-disposition`): what a
/// file from `/download?id=7` is called in the folder `-d` names.
enum ContentDisposition {
    /// The name in `value`: `filename*` (RFC 8187, UTF-8 or ISO-8859-1) before
    /// `filename`; only its last path segment (a name, never a path); nil when there is
    /// none, or it is empty, `.`, `..`, or holds a control character or a direction override.
    static func fileName(_ value: String) -> String? {
        let parameters = self.parameters(of: value)
        let extended = parameters["filename*"].flatMap(decodeExtended)
        guard let name = extended ?? parameters["filename"] else { return nil }
        // Some origins send a Windows path; only its last segment is a name.
        let last = name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        let trimmed = last.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed != ".", trimmed != "..",
            !trimmed.unicodeScalars.contains(where: {
                $0.properties.generalCategory == .control || ObjectPlacement.isDirectionControl($0)
            })
        else { return nil }
        return trimmed
    }

    /// The parameters after the disposition type, names lowercased, values unquoted;
    /// the first of a repeated name.
    static func parameters(of value: String) -> [String: String] {
        var result: [String: String] = [:]
        var rest = Substring(value)
        // The disposition type (`attachment`, `inline`) comes first.
        guard let semicolon = rest.firstIndex(of: ";") else { return result }
        rest = rest[rest.index(after: semicolon)...]
        while !rest.isEmpty {
            rest = rest.drop(while: { $0 == " " || $0 == "\t" || $0 == ";" })
            guard let equals = rest.firstIndex(of: "=") else { break }
            let name = rest[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            rest = rest[rest.index(after: equals)...].drop(while: { $0 == " " || $0 == "\t" })
            var parameter = ""
            if rest.first == "\"" {
                // A quoted string: `\x` stands for `x`; it ends at the next bare quote.
                rest = rest.dropFirst()
                var escaped = false
                while let character = rest.first {
                    rest = rest.dropFirst()
                    if escaped {
                        parameter.append(character)
                        escaped = false
                    } else if character == "\\" {
                        escaped = true
                    } else if character == "\"" {
                        break
                    } else {
                        parameter.append(character)
                    }
                }
                rest = rest.drop(while: { $0 != ";" })
            } else {
                let end = rest.firstIndex(of: ";") ?? rest.endIndex
                parameter = rest[..<end].trimmingCharacters(in: .whitespaces)
                rest = rest[end...]
            }
            if !name.isEmpty, result[name] == nil { result[name] = parameter }
        }
        return result
    }

    /// `UTF-8''%E2%82%AC%20rates.mp4` (RFC 8187): the charset, an optional language, and
    /// the percent-encoded bytes; nil for another charset or bad escapes.
    private static func decodeExtended(_ value: String) -> String? {
        let parts = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        let encoded = Array(parts[2].utf8)
        var bytes: [UInt8] = []
        var index = 0
        while index < encoded.count {
            if encoded[index] != UInt8(ascii: "%") {
                bytes.append(encoded[index])
                index += 1
            } else {
                guard let byte = HexDigit.escape(in: encoded, at: index) else { return nil }
                bytes.append(byte)
                index += 3
            }
        }
        switch parts[0].lowercased() {
        case "utf-8": return String(validating: bytes, as: UTF8.self)
        case "iso-8859-1": return String(bytes.map { Character(Unicode.Scalar($0)) })
        default: return nil
        }
    }
}
