import ArgumentParser
import Foundation
import MediaCacheKit

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls",
        abstract: "List cached objects.",
        discussion: "One line each: URL or name, size, type, faststart state, added, last used.")

    enum SortKey: String, ExpressibleByArgument, CaseIterable {
        case added, used, size, name
    }

    @OptionGroup var cache: CacheOptions

    @Option(help: "Sort by added, used (last use), size or name.")
    var sort: SortKey = .added

    @Flag(help: "Print one JSON object per cached object on stdout (JSON lines; nothing for an empty cache).")
    var json = false

    func run() throws {
        let directory = cache.directory
        guard try CommandInputs.cacheExists(directory), directory.hasIndexOrObjects else {
            if !json { Terminal.err("\(CommandInputs.emptyCache(directory))") }
            return
        }
        let objects: [CachedObject]
        let store: ObjectStore
        do {
            store = try ObjectStore(directory: directory)
            objects = try store.objects()
        } catch {
            Terminal.err("mediacache: \(error)")
            throw ExitStatus.cacheError
        }
        let sorted = objects.sorted(by: sort.order)
        if json {
            for object in sorted {
                var fields = Self.fields(object, directory: directory)
                if object.isTitle { fields["title"] = TitleSummary(object, store: store).jsonFields }
                Terminal.out(JSONEvent.encode(fields))
            }
            return
        }
        if sorted.isEmpty {
            Terminal.err("\(CommandInputs.emptyCache(directory))")
            return
        }
        var rows = [["NAME", "SIZE", "TYPE", "FASTSTART", "ADDED", "LAST USED"]]
        for object in sorted {
            rows.append([
                TextTable.cutInTheMiddle(Printable.visible(object.shownName.unicodeScalars), width: Self.nameWidth),
                ByteCount.format(object.size),
                object.isTitle
                    ? TitleSummary(object, store: store).line : Printable.name(object.contentType ?? "-", limit: 60),
                object.faststart.rawValue,
                Self.date(object.addedAt), Self.date(object.lastUsedAt),
            ])
        }
        for line in TextTable.render(rows) { Terminal.out(line) }
        let total = objects.reduce(Int64(0)) { $0 + $1.size }
        Terminal.err("\(objects.count) object\(objects.count == 1 ? "" : "s"), \(ByteCount.format(total))")
    }

    /// Longer names (URLs with long tokens) are cut in the middle, keeping the host and
    /// the file name; `--json` has them whole.
    static let nameWidth = 72

    static func fields(_ object: CachedObject, directory: CacheDirectory) -> [String: Any] {
        var fields: [String: Any] = [
            "url": URLCredentials.masked(object.url), "cache_key": URLCredentials.masked(object.cacheKey),
            "key": object.key, "size": object.size,
            "sha256": object.sha256, "faststart": object.faststart.rawValue, "path": directory.absolute(object.path),
            "added": ISO8601DateFormatter().string(from: object.addedAt),
            "last_used": ISO8601DateFormatter().string(from: object.lastUsedAt),
            "mirrors": object.mirrors.map(URLCredentials.masked),
        ]
        if let name = object.name { fields["name"] = name }
        if let type = object.contentType { fields["content_type"] = type }
        return fields
    }

    static func date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }
}

extension List.SortKey {
    var order: (CachedObject, CachedObject) -> Bool {
        switch self {
        case .added: { $0.addedAt < $1.addedAt }
        case .used: { $0.lastUsedAt > $1.lastUsedAt }
        case .size: { $0.size > $1.size }
        case .name: { ($0.name ?? $0.url, $0.path) < ($1.name ?? $1.url, $1.path) }
        }
    }
}

/// Columns padded to their widest cell; the last column is not padded.
enum TextTable {
    /// `text` at most `width` characters long: its start and end around an ellipsis.
    static func cutInTheMiddle(_ text: String, width: Int) -> String {
        guard text.count > width, width > 1 else { return text }
        let tail = (width - 1) / 2
        return text.prefix(width - 1 - tail) + "…" + text.suffix(tail)
    }

    static func render(_ rows: [[String]]) -> [String] {
        guard let columns = rows.first?.count else { return [] }
        let widths = (0..<columns).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == columns - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
    }
}
