/// One hexadecimal digit as bytes carry it: what playlists' `0x…` values and URL escapes
/// are written in.
enum HexDigit {
    /// The digit `byte` stands for (either case), or nil when it is none.
    static func value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The upper-case digit for `value` (0–15).
    static func upper(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }

    /// The byte a `%XX` escape at `index` of `bytes` stands for; nil when none is there.
    static func escape<Bytes: RandomAccessCollection>(in bytes: Bytes, at index: Bytes.Index) -> UInt8?
    where Bytes.Element == UInt8 {
        guard bytes[index] == UInt8(ascii: "%"), bytes.distance(from: index, to: bytes.endIndex) >= 3,
            let high = value(bytes[bytes.index(index, offsetBy: 1)]), let low = value(bytes[bytes.index(index, offsetBy: 2)])
        else { return nil }
        return high << 4 | low
    }
}
