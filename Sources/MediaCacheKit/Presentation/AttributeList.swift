/// An RFC 8216 attribute list (`NAME=VALUE,NAME="quoted, with commas",...`), the value
/// of most `EXT-X-` tags.
///
/// Values are kept as written and typed when asked for (`decimalInteger`, `resolution`,
/// ...): the same attribute is an enumerated string in one tag and a number in another,
/// and only the tag knows which. Names are upper-case letters, digits and `-`, each at
/// most once; whitespace around commas and at the end is tolerated, anything else that
/// does not follow the grammar is refused with its reason.
public struct AttributeList: Sendable, Equatable {
    /// One value as written: quoted strings without their quotes, the rest verbatim.
    public enum Value: Sendable, Equatable {
        case quoted(String)
        case bare(String)
    }

    /// One `NAME=VALUE` pair.
    public struct Attribute: Sendable, Equatable {
        public let name: String
        public var value: Value
    }

    /// The attributes in the order written.
    public private(set) var attributes: [Attribute]

    public init(parsing text: some StringProtocol) throws(PlaylistSyntaxError) {
        var reader = Reader(bytes: Array(text.utf8))
        attributes = try reader.readAll()
    }

    public init(_ attributes: [Attribute]) {
        self.attributes = attributes
    }

    public subscript(name: String) -> Value? {
        attributes.first { $0.name == name }?.value
    }

    /// The same list with every quoted value rewritten by `transform` (variable
    /// substitution applies to quoted strings, never to the names or bare values).
    func mappingQuotedValues(
        _ transform: (String) throws(PlaylistSyntaxError) -> String
    ) throws(PlaylistSyntaxError) -> AttributeList {
        var copy = self
        for index in copy.attributes.indices {
            if case .quoted(let text) = copy.attributes[index].value {
                copy.attributes[index].value = .quoted(try transform(text))
            }
        }
        return copy
    }

    /// Reads the grammar of RFC 8216 section 4.2 over UTF-8 bytes.
    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        mutating func readAll() throws(PlaylistSyntaxError) -> [Attribute] {
            var attributes: [Attribute] = []
            var names: Set<String> = []
            skipWhitespace()
            while index < bytes.count {
                let name = try readName()
                guard names.insert(name).inserted else {
                    throw PlaylistSyntaxError("attribute \(name) appears twice")
                }
                attributes.append(Attribute(name: name, value: try readValue(of: name)))
                skipWhitespace()
                guard index < bytes.count else { break }
                guard bytes[index] == UInt8(ascii: ",") else {
                    throw PlaylistSyntaxError("expected ',' after the value of \(name), found \(rest)")
                }
                index += 1
                // A trailing comma ends the list: some packagers write one.
                skipWhitespace()
            }
            return attributes
        }

        private mutating func readName() throws(PlaylistSyntaxError) -> String {
            let start = index
            while index < bytes.count, Self.isNameByte(bytes[index]) { index += 1 }
            guard index > start else { throw PlaylistSyntaxError("expected an attribute name, found \(rest)") }
            let name = String(decoding: bytes[start..<index], as: UTF8.self)
            guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else {
                throw PlaylistSyntaxError("attribute \(name) has no '=' and value")
            }
            index += 1
            return name
        }

        private mutating func readValue(of name: String) throws(PlaylistSyntaxError) -> Value {
            if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                let start = index + 1
                guard let end = bytes[start...].firstIndex(of: UInt8(ascii: "\"")) else {
                    throw PlaylistSyntaxError("the quoted value of \(name) has no closing quote")
                }
                index = end + 1
                return .quoted(String(decoding: bytes[start..<end], as: UTF8.self))
            }
            let start = index
            while index < bytes.count, bytes[index] != UInt8(ascii: ",") { index += 1 }
            var end = index
            while end > start, Self.isWhitespace(bytes[end - 1]) { end -= 1 }
            let value = bytes[start..<end]
            guard !value.isEmpty else { throw PlaylistSyntaxError("attribute \(name) has an empty value") }
            guard !value.contains(where: { Self.isWhitespace($0) || $0 == UInt8(ascii: "\"") }) else {
                throw PlaylistSyntaxError(
                    "the value of \(name) is neither quoted nor a single word: "
                        + PlaylistSyntaxError.quote(String(decoding: value, as: UTF8.self)))
            }
            return .bare(String(decoding: value, as: UTF8.self))
        }

        private mutating func skipWhitespace() {
            while index < bytes.count, Self.isWhitespace(bytes[index]) { index += 1 }
        }

        /// What is left of the line, for a message.
        private var rest: String {
            guard index < bytes.count else { return "the end" }
            return PlaylistSyntaxError.quote(String(decoding: bytes[index...], as: UTF8.self))
        }

        private static func isNameByte(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
        }

        private static func isWhitespace(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
        }
    }
}
