/// Typed reads of an attribute: nil when the attribute is absent, an error naming it
/// when it is present but not of the type its tag gives it.
extension AttributeList {
    public func quotedString(_ name: String) throws(PlaylistSyntaxError) -> String? {
        switch self[name] {
        case nil: return nil
        case .quoted(let text): return text
        case .bare(let text):
            throw PlaylistSyntaxError("\(name) must be a quoted string, found \(PlaylistSyntaxError.quote(text))")
        }
    }

    /// An enumerated string (`TYPE=AUDIO`): a bare word, compared as written.
    public func enumeratedString(_ name: String) throws(PlaylistSyntaxError) -> String? {
        try bare(name, "an enumerated string")
    }

    /// `YES` or `NO`; `defaultValue` when absent.
    public func boolean(_ name: String, default defaultValue: Bool = false) throws(PlaylistSyntaxError) -> Bool {
        switch try enumeratedString(name) {
        case nil: return defaultValue
        case "YES": return true
        case "NO": return false
        case let other?:
            throw PlaylistSyntaxError("\(name) must be YES or NO, found \(PlaylistSyntaxError.quote(other))")
        }
    }

    /// A decimal integer (RFC 8216 allows up to 2^64-1; this reads what fits an `Int`).
    public func decimalInteger(_ name: String) throws(PlaylistSyntaxError) -> Int? {
        guard let text = try bare(name, "a decimal integer") else { return nil }
        return try Self.decimalInteger(text, name: name)
    }

    /// A non-negative decimal number (`FRAME-RATE=29.970`).
    public func decimalFloat(_ name: String) throws(PlaylistSyntaxError) -> Double? {
        guard let text = try bare(name, "a decimal number") else { return nil }
        return try Self.decimalFloat(text, name: name)
    }

    /// A hexadecimal sequence (`0x0A1B...`) as bytes, most significant first; an odd
    /// number of digits is read as if it had a leading zero.
    public func hexadecimal(_ name: String) throws(PlaylistSyntaxError) -> [UInt8]? {
        guard let text = try bare(name, "a hexadecimal sequence") else { return nil }
        guard text.hasPrefix("0x") || text.hasPrefix("0X") else {
            throw PlaylistSyntaxError("\(name) must start with 0x, found \(PlaylistSyntaxError.quote(text))")
        }
        let digits = Array(text.utf8.dropFirst(2))
        guard !digits.isEmpty else { throw PlaylistSyntaxError("\(name) has no digits after 0x") }
        var nibbles: [UInt8] = digits.count % 2 == 1 ? [0] : []
        for digit in digits {
            guard let value = HexDigit.value(digit) else {
                throw PlaylistSyntaxError("\(name) is not hexadecimal: \(PlaylistSyntaxError.quote(text))")
            }
            nibbles.append(value)
        }
        return stride(from: 0, to: nibbles.count, by: 2).map { nibbles[$0] << 4 | nibbles[$0 + 1] }
    }

    /// A resolution `WIDTHxHEIGHT` (`1920x1080`).
    public func resolution(_ name: String) throws(PlaylistSyntaxError) -> HLSResolution? {
        guard let text = try bare(name, "a resolution") else { return nil }
        let parts = text.split(separator: "x", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            throw PlaylistSyntaxError("\(name) must be WIDTHxHEIGHT, found \(PlaylistSyntaxError.quote(text))")
        }
        return HLSResolution(
            width: try Self.decimalInteger(parts[0], name: name), height: try Self.decimalInteger(parts[1], name: name))
    }

    /// The value of an attribute its tag cannot do without.
    public func required<T>(_ value: T?, _ name: String) throws(PlaylistSyntaxError) -> T {
        guard let value else { throw PlaylistSyntaxError("\(name) is missing") }
        return value
    }

    static func decimalInteger(_ text: some StringProtocol, name: String) throws(PlaylistSyntaxError) -> Int {
        guard !text.isEmpty, text.utf8.allSatisfy(isDigit) else {
            throw PlaylistSyntaxError("\(name) must be a decimal integer, found \(PlaylistSyntaxError.quote(text))")
        }
        guard let value = Int(text) else {
            throw PlaylistSyntaxError("\(name) is out of range: \(PlaylistSyntaxError.quote(text))")
        }
        return value
    }

    static func decimalFloat(_ text: some StringProtocol, name: String) throws(PlaylistSyntaxError) -> Double {
        // Digits with at most one point: Double(_:) alone would also take "inf", "nan"
        // and exponents.
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, parts.allSatisfy({ $0.utf8.allSatisfy(isDigit) }),
            let value = Double(text), value.isFinite
        else {
            throw PlaylistSyntaxError("\(name) must be a decimal number, found \(PlaylistSyntaxError.quote(text))")
        }
        return value
    }

    private func bare(_ name: String, _ kind: String) throws(PlaylistSyntaxError) -> String? {
        switch self[name] {
        case nil: return nil
        case .bare(let text): return text
        case .quoted(let text):
            throw PlaylistSyntaxError(
                "\(name) must be \(kind) without quotes, found \(PlaylistSyntaxError.quote(text))")
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}

/// A picture size from `RESOLUTION=WIDTHxHEIGHT`.
public struct HLSResolution: Sendable, Hashable, CustomStringConvertible {
    public let width: Int
    public let height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Width times height, saturating: it only ranks variants.
    public var area: Int {
        let (product, overflow) = width.multipliedReportingOverflow(by: height)
        return overflow ? Int.max : product
    }

    public var description: String { "\(width)x\(height)" }
}
