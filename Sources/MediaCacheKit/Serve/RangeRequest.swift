import Foundation

/// A `Range` request header, as a server reads it (RFC 9110 §14.2): one range of bytes
/// `a-b`, `a-` or the suffix `-n` (the last n bytes). Several ranges, other units and
/// malformed values are answered with the whole object, as the RFC allows.
public enum RangeRequest: Equatable, Sendable {
    case whole
    case from(Int64, through: Int64?)
    case suffix(Int64)

    public init(header: String?) {
        guard let header else {
            self = .whole
            return
        }
        let value = header.trimmingCharacters(in: .whitespaces)
        guard value.lowercased().hasPrefix("bytes=") else {
            self = .whole
            return
        }
        // Empty elements of the list are no ranges (RFC 9110 5.6.1): `bytes=0-9,` is one.
        let specs = value.dropFirst("bytes=".count).split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard specs.count == 1, let spec = specs.first else {
            self = .whole
            return
        }
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            self = .whole
            return
        }
        let first = parts[0].trimmingCharacters(in: .whitespaces)
        let last = parts[1].trimmingCharacters(in: .whitespaces)
        // A number past Int64 is past any file, so it saturates: as a first byte it asks
        // for nothing that exists (416), as a last byte or a suffix for everything to the
        // end. One below the maximum, so `end + 1` cannot overflow.
        func number(_ text: String) -> Int64? {
            guard !text.isEmpty, text.allSatisfy(\.isASCIIDigit) else { return nil }
            return min(Int64(text) ?? Int64.max, Int64.max - 1)
        }
        if first.isEmpty, let count = number(last) {
            self = .suffix(count)
        } else if let start = number(first), last.isEmpty {
            self = .from(start, through: nil)
        } else if let start = number(first), let end = number(last), end >= start {
            self = .from(start, through: end)
        } else {
            self = .whole
        }
    }

    /// The bytes to send of an object of `length` bytes: nil for the whole object, the
    /// range otherwise; throws when no byte of it exists (416).
    public func resolve(length: Int64) throws(Unsatisfiable) -> ByteRange? {
        switch self {
        case .whole:
            return nil
        case .from(let start, let end):
            guard start < length else { throw Unsatisfiable() }
            return ByteRange(start, min(length, (end ?? Int64.max - 1) + 1))
        case .suffix(let count):
            guard count > 0, length > 0 else { throw Unsatisfiable() }
            return ByteRange(max(0, length - count), length)
        }
    }

    public struct Unsatisfiable: Error {}
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
