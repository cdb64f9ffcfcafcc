/// A file to fetch: a list entry plus the command-line headers that apply to it.
public struct JobRequest: Sendable, Codable {
    public var entry: ListEntry
    public var commandHeaders: [String]

    public init(entry: ListEntry, commandHeaders: [String] = []) {
        self.entry = entry
        self.commandHeaders = commandHeaders
    }

    public var key: CacheKey { CacheKey(identity: entry.identity) }

    private enum CodingKeys: String, CodingKey { case entry, commandHeaders = "command_headers" }
}
