/// The identity of a cached object: SHA-256 of its cache key (the URL unless
/// `cache-key=` says otherwise), without a password the URL may hold, in its canonical
/// spelling (`URLCanonicalForm`).
public struct CacheKey: Sendable, Hashable, CustomStringConvertible {
    public let hex: String

    public init(identity: String) {
        hex = Digest.sha256Hex(URLCanonicalForm.of(URLCredentials.withoutPassword(identity)))
    }

    public init?(hex: String) {
        guard hex.count == 64, hex.allSatisfy({ $0.isASCII && $0.isHexDigit && !$0.isUppercase }) else { return nil }
        self.hex = hex
    }

    /// The digest's first 8 bytes as a number: what shards split by and what a list's
    /// duplicate check keeps of a key.
    var leadingWord: UInt64 {
        // The hex is lowercase and 64 digits long (this type's invariant).
        UInt64(hex.prefix(16), radix: 16) ?? 0
    }

    public var description: String { hex }
}
