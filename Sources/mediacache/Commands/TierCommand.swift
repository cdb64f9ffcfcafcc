import ArgumentParser
import Foundation
import MediaCacheKit

struct TierCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tier",
        abstract: "Look at the fleet's shared tier (S3-compatible).",
        subcommands: [TierList.self])
}

struct TierList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls",
        abstract: "List what the tier holds: size, faststart state, SHA-256 and URL of each record.",
        discussion: "Records that cannot be read are named on stderr and make the exit status 1.")

    @OptionGroup var cache: CacheOptions
    @OptionGroup(title: "Fleet tier") var tier: TierLocationOptions

    @Flag(name: [.customShort("k"), .customLong("insecure")], help: "Do not check the S3 endpoint's TLS certificate.")
    var insecure = false

    @Flag(help: "Print one JSON object per record on stdout (JSON lines).")
    var json = false

    func validate() throws { try tier.validateNamed() }

    func run() throws {
        let store = try tier.store(for: cache.directory, verifyTLS: !insecure)
        let records: [(key: CacheKey, record: Result<TierRecord, TierError>)]
        do {
            try store.client.checkBucket()
            records = try store.records()
        } catch {
            Terminal.err("mediacache: \(error)")
            throw ExitStatus.someFailed
        }
        var rows = [["SIZE", "FASTSTART", "SHA256", "URL"]]
        var total: Int64 = 0
        var readable = 0
        var unreadable = 0
        for (key, result) in records {
            switch result {
            case .success(let record):
                readable += 1
                total += record.size
                if json {
                    var fields: [String: Any] = [
                        "key": record.key, "sha256": record.sha256, "size": record.size,
                        "faststart": record.faststart.rawValue, "url": record.url,
                    ]
                    if let type = record.contentType { fields["content_type"] = type }
                    if let etag = record.etag { fields["etag"] = etag }
                    if let date = record.lastModified { fields["last_modified"] = date }
                    if let cacheKey = record.cacheKey { fields["cache_key"] = cacheKey }
                    Terminal.out(JSONEvent.encode(fields))
                } else {
                    rows.append([
                        ByteCount.format(record.size), record.faststart.rawValue, String(record.sha256.prefix(12)),
                        TextTable.cutInTheMiddle(Printable.visible(record.url.unicodeScalars), width: List.nameWidth),
                    ])
                }
            case .failure(let error):
                unreadable += 1
                Terminal.err("mediacache: record \(key.hex): \(error)")
            }
        }
        if !json {
            if readable > 0 { for line in TextTable.render(rows) { Terminal.out(line) } }
            Terminal.err("\(readable) record\(readable == 1 ? "" : "s"), \(ByteCount.format(total)) in \(store.layout.location)")
        }
        if unreadable > 0 { throw ExitStatus.someFailed }
    }
}
