/// Shard K of N (`--shard K/N`): the entries whose cache key falls in it, so that N
/// machines split one catalogue between them without talking to each other.
///
/// The shard of a key is its SHA-256 (the first 64 bits) modulo N: the same on every
/// machine and every version, which is what lets machines of different releases split
/// one list. Duplicates share a key, so they always land in one shard.
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    public let index: Int
    public let count: Int

    /// The most shards one catalogue can be split into.
    public static let maximumCount = 4096

    public struct ParseError: Error, CustomStringConvertible {
        public let description: String
    }

    public init(index: Int, count: Int) throws(ParseError) {
        guard count >= 1, count <= Self.maximumCount else {
            throw ParseError(description: "the shard count must be between 1 and \(Self.maximumCount), not \(count)")
        }
        guard index >= 0, index < count else {
            throw ParseError(
                description: "shard \(index) does not exist in \(count): shards are numbered 0 to \(count - 1)")
        }
        self.index = index
        self.count = count
    }

    /// `K/N`, e.g. `0/4` for the first of four.
    public init(parsing text: String) throws(ParseError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            throw ParseError(description: "'\(text)' is not K/N: write the shard and the count, e.g. 0/4 for the first of four")
        }
        try self.init(index: index, count: count)
    }

    public func contains(_ key: CacheKey) -> Bool {
        Self.position(of: key, among: count) == index
    }

    static func position(of key: CacheKey, among count: Int) -> Int {
        Int(key.leadingWord % UInt64(count))
    }

    public var description: String { "\(index)/\(count)" }
}
