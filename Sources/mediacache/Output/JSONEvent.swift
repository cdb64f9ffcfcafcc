import Foundation
import MediaCacheKit

/// One NDJSON line per event (`--json`): `{"event":"committed","url":...}`.
enum JSONEvent {
    static func line(for event: PrefetchEvent) -> String {
        var fields: [String: Any] = [:]
        switch event {
        case .started(let url, let name, let length, let resumed, let connections, let source, let title):
            fields = [
                "event": "started", "url": url, "name": name, "resumed_bytes": resumed, "connections": connections,
                "source": source.rawValue,
            ]
            if let length { fields["length"] = length }
            if let title { fields.merge(counts(title)) { $1 } }
        case .progress(let url, let name, let done, let length, let rate, let connections, let title):
            fields = [
                "event": "progress", "url": url, "name": name, "bytes_done": done, "bytes_per_second": Int(rate),
                "connections": connections,
            ]
            if let length { fields["length"] = length }
            if let title { fields.merge(counts(title)) { $1 } }
        case .retry(let url, let attempt, let delay, let reason):
            fields = ["event": "retry", "url": url, "attempt": attempt, "delay": delay, "reason": reason]
        case .notice(let url, let message):
            fields = ["event": "notice", "url": url, "message": message]
        case .waiting(let url, let reason):
            fields = ["event": "waiting", "url": url, "reason": reason]
        case .verified(let url, let sha256):
            fields = ["event": "verified", "url": url, "sha256": sha256]
        case .moovFound(let url, let offset, let size, let received):
            fields = ["event": "moov-found", "url": url, "offset": offset, "size": size, "bytes_received": received]
        case .committed(let url, let name, let path, let size, let faststart):
            fields = ["event": "committed", "url": url, "name": name, "path": path, "size": size, "faststart": faststart.rawValue]
        case .skipped(let url, let name, let path):
            fields = ["event": "skipped", "url": url, "name": name, "path": path, "reason": "already-cached"]
        case .failed(let url, let name, let failure):
            fields = ["event": "failed", "url": url, "name": name, "code": failure.code.rawValue, "reason": failure.message]
            if let title = failure.title {
                fields.merge(counts(title)) { $1 }
                fields["missing"] = title.missing
            }
        }
        // A password in a URL is the user's secret, not the script's.
        if let url = fields["url"] as? String { fields["url"] = URLCredentials.masked(url) }
        return encode(fields)
    }

    /// A title's counts: `segments_done`, `segments_total`, `files_done`, `files_total`.
    private static func counts(_ title: TitleCounts) -> [String: Any] {
        [
            "segments_done": title.segmentsHeld, "segments_total": title.segments, "files_done": title.filesHeld,
            "files_total": title.files,
        ]
    }

    /// A failure of the whole run before any file started (no "url"): the cache cannot
    /// be used, the list cannot be read, too few file descriptors.
    static func runFailed(code: String, reason: String) -> String {
        encode(["event": "failed", "code": code, "reason": reason])
    }

    static func encode(_ fields: [String: Any]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
