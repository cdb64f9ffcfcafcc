import ArgumentParser
import Foundation
import MediaCacheKit

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Everything known about one object or download.",
        discussion: "Header values are never shown: they may hold tokens. Unknown: exit 1.")

    @Argument(help: ArgumentHelp("The URL, a mirror, or the cache key.", valueName: "url"))
    var url: String

    @OptionGroup var cache: CacheOptions

    @Flag(help: "Print one JSON object on stdout.")
    var json = false

    /// A number, as in `status --json`; null in JSON (`unknown` for people) when the
    /// origin never said.
    private static func length(_ length: Int64?, json: Bool) -> Any {
        if let length { return length }
        return json ? NSNull() : "unknown"
    }

    /// A time as `ls` shows it: local, to the minute, for people; ISO 8601 in UTC in
    /// JSON, as `ls --json` has it.
    private func time(_ date: Date) -> String { json ? ISO8601DateFormatter().string(from: date) : List.date(date) }

    /// A value the origin (or the list) never gave: null in JSON, `-` for people.
    private func absent(_ value: String?) -> Any { value ?? (json ? NSNull() : "-") }

    func run() throws {
        let directory = cache.directory
        guard try CommandInputs.cacheExists(directory), directory.hasIndexOrObjects else {
            Terminal.err("mediacache: not cached and no unfinished download: \(Printable.url(url)) (\(CommandInputs.emptyCache(directory)))")
            throw ExitStatus.someFailed
        }
        let store = try CommandInputs.usingCache(directory) { try ObjectStore(directory: directory) }
        var fields: [(String, Any)] = []
        if let object = try store.object(named: url) {
            let path = directory.absolute(object.path)
            let present = FileManager.default.fileExists(atPath: path)
            let title = object.isTitle ? TitleSummary(object, store: store) : nil
            let state = title.map { $0.manifest != nil ? "cached" : "damaged title (run mediacache verify)" }
            fields = [
                ("state", present ? state ?? "cached" : "missing file"), ("url", URLCredentials.masked(object.url)),
                ("mirrors", object.mirrors.map(URLCredentials.masked)), ("cache_key", URLCredentials.masked(object.cacheKey)), ("key", object.key), ("path", path), ("size", object.size),
                ("sha256", object.sha256), ("content_type", absent(object.contentType)),
                ("faststart", object.faststart == .notMP4 ? absent(nil) : object.faststart.rawValue), ("etag", absent(object.etag)),
                ("last_modified", absent(object.lastModified)), ("name", absent(object.name)),
                ("origin_name", absent(object.originName)),
                ("added", time(object.addedAt)), ("last_used", time(object.lastUsedAt)),
            ]
            if let title {
                fields += [
                    ("kind", title.kind), ("segments", title.manifest?.segmentCount ?? 0),
                    ("renditions", json ? title.renditionFields : title.renditionLines),
                ]
            }
        } else if let (state, isTitle) = store.partialJob(named: url) {
            fields = [
                ("state", isTitle ? "unfinished streaming title (mediacache status counts its parts)" : "unfinished"),
                ("url", URLCredentials.masked(state.entry.url)),
                ("mirrors", state.entry.urls.dropFirst().map(URLCredentials.masked)),
                ("cache_key", URLCredentials.masked(state.entry.identity)),
            ]
            // A title's parts are counted by its progress, not by one file's bytes.
            if !isTitle {
                fields += [
                    ("bytes_done", state.bytesDone), ("length", Self.length(state.length, json: json)),
                    ("etag", absent(state.validators.etag)), ("last_modified", absent(state.validators.lastModified)),
                    ("checksum", absent(state.entry.checksum?.description)),
                ]
            }
            fields += [
                // Strings, not Substrings: JSONSerialization refuses those (the output was `{}`).
                ("headers", (state.commandHeaders + state.entry.headers).map { String($0.prefix { $0 != ":" }) + ": (hidden)" }),
                ("started", time(state.createdAt)),
            ]
            if !isTitle { fields.append(("ranges_supported", state.rangesSupported)) }
        } else {
            Terminal.err("mediacache: not cached and no unfinished download: \(Printable.url(url))")
            throw ExitStatus.someFailed
        }
        if json {
            Terminal.out(JSONEvent.encode(Dictionary(fields, uniquingKeysWith: { first, _ in first })))
            return
        }
        for (name, value) in fields {
            // A title's renditions: one line each.
            if name == "renditions", let lines = value as? [String], !lines.isEmpty {
                for (number, line) in lines.enumerated() {
                    let label = (number == 0 ? name : "").padding(toLength: 17, withPad: " ", startingAt: 0)
                    Terminal.out(label + Printable.visible(line.unicodeScalars))
                }
                continue
            }
            let text = (value as? [String]).map { $0.isEmpty ? "-" : $0.joined(separator: ", ") } ?? "\(value)"
            // Stored strings came from origins, lists and bundles: no terminal escapes.
            Terminal.out(name.padding(toLength: 17, withPad: " ", startingAt: 0) + Printable.visible(text.unicodeScalars))
        }
    }
}
