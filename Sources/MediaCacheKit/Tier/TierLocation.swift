/// Where the tier lives in a store: `s3://BUCKET/PREFIX`. Every key of the tier starts
/// with the prefix, so one bucket can hold several tiers.
public struct TierLocation: Sendable, Hashable, CustomStringConvertible {
    public let bucket: String
    /// Without slashes at either end; empty for the whole bucket.
    public let prefix: String

    /// Object keys are at most 1024 bytes; the tier's own names after the prefix take ~80.
    static let maxPrefixBytes = 900

    public init(parsing text: String) throws(TierError) {
        func invalid(_ reason: String) -> TierError { .invalidLocation(text, reason: reason) }
        guard text.lowercased().hasPrefix("s3://") else { throw invalid("it does not start with s3://") }
        let rest = text.dropFirst(5)
        let bucket = String(rest.prefix { $0 != "/" })
        var prefix = Substring(rest.dropFirst(bucket.count))
        while prefix.hasPrefix("/") { prefix = prefix.dropFirst() }
        while prefix.hasSuffix("/") { prefix = prefix.dropLast() }
        if let reason = Self.problem(withBucket: bucket) { throw invalid(reason) }
        if let reason = Self.problem(withPrefix: prefix) { throw invalid(reason) }
        self.bucket = bucket
        self.prefix = String(prefix)
    }

    public var description: String { prefix.isEmpty ? "s3://\(bucket)" : "s3://\(bucket)/\(prefix)" }

    /// `name` under the prefix: the key of one of the tier's objects.
    func key(_ name: String) -> String { prefix.isEmpty ? name : prefix + "/" + name }

    /// S3's rules for bucket names, which path-style requests rely on.
    private static func problem(withBucket bucket: String) -> String? {
        if bucket.isEmpty { return "no bucket name" }
        guard (3...63).contains(bucket.count) else { return "bucket name '\(bucket)' is not 3 to 63 characters long" }
        let allowed = bucket.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "."
        }
        guard allowed else {
            return "bucket name '\(bucket)' may hold only lowercase letters, digits, '-' and '.'"
        }
        let ends = [bucket.unicodeScalars.first!, bucket.unicodeScalars.last!]
        guard ends.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) }) else {
            return "bucket name '\(bucket)' must start and end with a letter or digit"
        }
        if bucket.contains("..") { return "bucket name '\(bucket)' has two dots in a row" }
        return nil
    }

    private static func problem(withPrefix prefix: Substring) -> String? {
        if prefix.isEmpty { return nil }
        if prefix.utf8.count > maxPrefixBytes { return "the prefix is longer than \(maxPrefixBytes) bytes" }
        if prefix.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "the prefix holds a control character"
        }
        for segment in prefix.split(separator: "/", omittingEmptySubsequences: false) {
            if segment.isEmpty { return "the prefix has an empty segment ('//')" }
            // Stores and tools disagree on what `.` and `..` in a key mean.
            if segment == "." || segment == ".." { return "the prefix has a '\(segment)' segment" }
        }
        return nil
    }
}
