/// The identity of a cached object: SHA-256 of its cache key (the URL unless
/// `cache-key=` says otherwise), without a password the URL may hold.
public struct CacheKey: Sendable, Hashable, CustomStringConvertible {
    public let hex: String

    public init(identity: String) {
        hex = Digest.sha256Hex(URLCredentials.withoutPassword(identity))
    }

    public init?(hex: String) {
        guard hex.count == 64, hex.allSatisfy({ $0.isASCII && $0.isHexDigit && !$0.isUppercase }) else { return nil }
        self.hex = hex
    }

    public var description: String { hex }
}
