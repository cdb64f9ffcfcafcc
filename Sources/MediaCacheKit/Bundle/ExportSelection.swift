import Foundation

/// Which objects `export` writes: all, or the named ones; only those added since a
/// date; minus those another bundle already holds with the same bytes (incremental
/// bundles keep a fleet current with small downloads).
public struct ExportSelection: Sendable {
    /// URLs, mirrors or cache keys; empty means every object.
    public var names: [String] = []
    /// Only objects added to the cache at or after this moment.
    public var since: Date?
    /// Manifests of bundles whose objects (same key and SHA-256) are left out.
    public var excluded: [BundleManifest] = []

    public init(names: [String] = [], since: Date? = nil, excluded: [BundleManifest] = []) {
        self.names = names
        self.since = since
        self.excluded = excluded
    }

    /// The objects to export, in the index's order (oldest first) or the order named.
    func objects(in index: CacheIndex) throws -> [CachedObject] {
        var chosen: [CachedObject]
        if names.isEmpty {
            chosen = try index.all()
        } else {
            chosen = []
            var keys: Set<String> = []
            for name in names {
                guard let object = try index.lookup(name) else { throw BundleError.notCached(name) }
                if keys.insert(object.key).inserted { chosen.append(object) }
            }
        }
        if let since { chosen.removeAll { $0.addedAt < since } }
        let known = Set(excluded.flatMap { $0.entries.map { $0.key + ":" + $0.sha256 } })
        if !known.isEmpty { chosen.removeAll { known.contains($0.key + ":" + $0.sha256) } }
        return chosen
    }

    /// `2026-03-01` (local midnight), `2026-03-01T14:30`, `2026-03-01T14:30:00`
    /// (local time), or any of those with `Z` or `±hh:mm`; nil for anything else.
    public static func parseDate(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let formats: [(String, Bool)] = [
            ("yyyy-MM-dd'T'HH:mm:ssXXXXX", false), ("yyyy-MM-dd'T'HH:mmXXXXX", false),
            ("yyyy-MM-dd'T'HH:mm:ss", true), ("yyyy-MM-dd'T'HH:mm", true), ("yyyy-MM-dd", true),
            ("yyyy-MM-dd HH:mm:ss", true), ("yyyy-MM-dd HH:mm", true),
        ]
        for (format, local) in formats {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.calendar = Calendar(identifier: .gregorian)
            formatter.timeZone = local ? TimeZone.current : TimeZone(secondsFromGMT: 0)
            formatter.dateFormat = format
            formatter.isLenient = false
            if let date = formatter.date(from: trimmed) { return date }
        }
        return nil
    }
}
