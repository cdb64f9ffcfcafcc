import Foundation

/// `Range:` / `If-Range:` evaluation for a single representation (RFC 9110 §14).
enum ByteRange {
    enum Request: Equatable {
        /// `bytes=a-b` (b nil for `bytes=a-`).
        case fromStart(Int, Int?)
        /// `bytes=-n`.
        case suffix(Int)
        /// More than one range: this origin answers those with the full body.
        case multiple
    }

    enum Resolution: Equatable {
        case satisfiable(ClosedRange<Int>)
        case unsatisfiable
    }

    /// Parses a Range header value; nil when it is absent or invalid (and must be ignored).
    static func parse(_ header: String?) -> Request? {
        guard let header else { return nil }
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard let equals = trimmed.firstIndex(of: "="),
              trimmed[..<equals].trimmingCharacters(in: .whitespaces).lowercased() == "bytes" else { return nil }
        let specs = trimmed[trimmed.index(after: equals)...]
            .split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        guard let spec = specs.first else { return nil }
        if specs.count > 1 { return .multiple }

        guard let dash = spec.firstIndex(of: "-") else { return nil }
        let first = spec[..<dash], last = spec[spec.index(after: dash)...]
        if first.isEmpty {
            guard let count = number(last) else { return nil }
            return .suffix(count)
        }
        guard let start = number(first) else { return nil }
        if last.isEmpty { return .fromStart(start, nil) }
        guard let end = number(last), end >= start else { return nil }
        return .fromStart(start, end)
    }

    /// Resolves against the representation length; `.multiple` resolves to nil (serve full).
    static func resolve(_ request: Request, length: Int) -> Resolution? {
        switch request {
        case .multiple:
            return nil
        case .suffix(let count):
            guard count > 0, length > 0 else { return .unsatisfiable }
            return .satisfiable(max(0, length - count)...(length - 1))
        case .fromStart(let start, let end):
            guard start < length else { return .unsatisfiable }
            return .satisfiable(start...min(end ?? Int.max, length - 1))
        }
    }

    /// True when the range may be served: no If-Range, or it matches the current
    /// validator (strong ETag comparison, or exact Last-Modified date).
    static func ifRangeAllows(_ ifRange: String?, etag: String?, lastModified: String?) -> Bool {
        guard let value = ifRange?.trimmingCharacters(in: .whitespaces) else { return true }
        if value.hasPrefix("\"") || value.hasPrefix("W/") {
            guard let etag, !etag.hasPrefix("W/") else { return false }
            return value == etag
        }
        return lastModified != nil && value == lastModified
    }

    /// Digits only; values too large for Int saturate (a huge start is simply unsatisfiable).
    private static func number<S: StringProtocol>(_ text: S) -> Int? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text) ?? Int.max
    }
}
