/// JSON written straight into bytes, for records saved often enough that Foundation's
/// `JSONEncoder` shows in a profile (a title's progress names every segment held and is
/// saved several times a second). What it writes `JSONDecoder` reads back.
struct JSONBytes {
    private(set) var bytes: [UInt8] = []
    /// Whether the object or array being written has a member yet (a comma goes first).
    private var hasMember: [Bool] = []

    init(reservingCapacity capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    /// `{ … }`: `body` writes the members with the `key` variants.
    mutating func object(_ body: (inout JSONBytes) -> Void) {
        bytes.append(UInt8(ascii: "{"))
        hasMember.append(false)
        body(&self)
        hasMember.removeLast()
        bytes.append(UInt8(ascii: "}"))
    }

    /// `"name": { … }`
    mutating func key(_ name: String, object body: (inout JSONBytes) -> Void) {
        member(name)
        object(body)
    }

    /// `"name": [ { … }, … ]`: `body` writes each element's members.
    mutating func key<Element>(_ name: String, array elements: [Element], _ body: (inout JSONBytes, Element) -> Void) {
        member(name)
        bytes.append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            object { body(&$0, element) }
        }
        bytes.append(UInt8(ascii: "]"))
    }

    mutating func key(_ name: String, _ value: String) {
        member(name)
        string(value)
    }

    mutating func key(_ name: String, _ value: Int64) {
        member(name)
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func key(_ name: String, _ value: Int) { key(name, Int64(value)) }

    private mutating func member(_ name: String) {
        if hasMember[hasMember.count - 1] { bytes.append(UInt8(ascii: ",")) }
        hasMember[hasMember.count - 1] = true
        string(name)
        bytes.append(UInt8(ascii: ":"))
    }

    /// A string with `"`, `\` and control characters escaped (RFC 8259, section 7); other
    /// characters as their UTF-8.
    private mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(byte)
            case 0..<0x20:
                bytes.append(contentsOf: "\\u00".utf8)
                bytes.append(Self.hexDigits[Int(byte >> 4)])
                bytes.append(Self.hexDigits[Int(byte & 0xF)])
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
