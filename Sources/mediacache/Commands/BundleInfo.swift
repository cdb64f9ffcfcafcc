import ArgumentParser
import Foundation
import MediaCacheKit

struct BundleInfo: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bundle-info",
        abstract: "List what a bundle holds without importing it.",
        discussion: """
            Reads only the manifest (the first entry), so it is quick on any size of bundle. \
            The last column says whether this cache already holds the object: yes, no, \
            other (a different version), or ? (its index cannot be read). `import --dry-run` checks every object's bytes too.
            """)

    @Argument(help: ArgumentHelp("A bundle file made by `mediacache export`.", valueName: "bundle"), completion: .file())
    var bundle: String

    @Flag(help: "Print the manifest as JSON on stdout.")
    var json = false

    @OptionGroup var cache: CacheOptions

    func run() throws {
        if let reason = CommandInputs.unreadableBundleReason(bundle) {
            Terminal.err("mediacache: cannot read bundle \(bundle): \(reason)")
            throw ExitStatus.usage
        }
        let manifest: BundleManifest
        do {
            manifest = try BundleManifest.read(bundleAt: bundle)
        } catch {
            Terminal.err("mediacache: \(error)")
            throw ExitStatus.usage
        }
        if json {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            Terminal.out(String(decoding: try encoder.encode(manifest), as: UTF8.self))
            return
        }
        // Only for the "cached" column: no cache (or no index yet) holds nothing, an index that
        // cannot be read is "?", and a path that cannot be a cache is exit 3.
        let hasIndex = try CommandInputs.cacheExists(cache.directory)
            && cache.directory.hasIndexOrObjects
        let objects = hasIndex ? try? ObjectStore(directory: cache.directory) : nil
        let total = manifest.entries.reduce(Int64(0)) { $0 + $1.size }
        Terminal.out(
            "\(bundle): mediacache bundle version \(manifest.version), created \(Self.date(manifest.created)) by "
                + "\(Printable.name(manifest.generator)); \(manifest.entries.count) object\(manifest.entries.count == 1 ? "" : "s"), "
                + "\(ByteCount.format(total))")
        for entry in manifest.entries {
            var cached = hasIndex ? "?" : "no"
            if let objects {
                cached = "no"
                if let object = objects.openIntact(key: CacheKey(identity: entry.cacheKey))?.object {
                    cached = object.sha256 == entry.sha256 ? "yes" : "other"
                }
            }
            let columns = [
                ByteCount.format(entry.size).padding(toLength: 10, withPad: " ", startingAt: 0),
                Self.kind(of: entry).padding(toLength: 24, withPad: " ", startingAt: 0),
                Self.date(entry.added), entry.sha256.prefix(12) + "…", "cached: " + cached.padding(toLength: 5, withPad: " ", startingAt: 0),
                Printable.name(entry.url) + (entry.urlsRedacted ? " (query removed; cache key \(Printable.name(entry.cacheKey)))" : ""),
            ]
            Terminal.out("  " + columns.joined(separator: "  "))
        }
    }

    /// A file's content type, or `hls title, 24 segments` for a streaming title.
    static func kind(of entry: BundleManifest.Entry) -> String {
        guard let title = entry.title else { return entry.contentType ?? "-" }
        return "\(title.format.rawValue) title, \(title.segments) segment\(title.segments == 1 ? "" : "s")"
    }

    static func date(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}
