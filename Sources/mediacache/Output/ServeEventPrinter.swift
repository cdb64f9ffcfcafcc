import Foundation
import MediaCacheKit
import MediaCacheServe

/// What `serve` prints: download events as `prefetch` prints them (lines on stderr, or
/// NDJSON on stdout with `--json`), and a request log: a line per response once it is
/// written (not with `-q`), or with `--json` a `request` event when its head is ready and
/// a `request-end` event when its body is written.
final class ServeEventPrinter: Sendable {
    private let json: Bool
    private let quiet: Bool
    private let downloads: EventPrinter

    init(json: Bool, quiet: Bool) {
        self.json = json
        self.quiet = quiet
        // A server runs for hours: no progress board, one line per event.
        downloads = EventPrinter(style: json ? .json : quiet ? .quiet : .human, board: false)
    }

    var download: @Sendable (PrefetchEvent) -> Void { { [downloads] in downloads.handle($0) } }

    var request: @Sendable (ServeEvent) -> Void {
        { [json, quiet] event in
            if json {
                Terminal.out(JSONEvent.encode(Self.fields(event)))
            } else if !quiet, let line = Self.line(event) {
                Terminal.err(line)
            }
        }
    }

    /// `request` when the head is ready, `request-end` once the body is written.
    static func fields(_ event: ServeEvent) -> [String: Any] {
        switch event {
        case .served(let record):
            var fields = common(record)
            fields["event"] = "request"
            fields["head_seconds"] = rounded(record.headSeconds)
            return fields
        case .finished(let record, let bytes, let seconds, let complete):
            var fields = common(record)
            fields["event"] = "request-end"
            fields["bytes"] = bytes
            fields["seconds"] = rounded(seconds)
            fields["complete"] = complete
            return fields
        case .refused(let path, let reason):
            return ["event": "refused", "path": path, "reason": reason]
        }
    }

    private static func common(_ record: RequestRecord) -> [String: Any] {
        var fields: [String: Any] = [
            "url": URLCredentials.masked(record.url), "method": record.method, "status": record.status,
            "from": record.from.rawValue,
        ]
        if let range = record.range { fields["range"] = range }
        if let member = record.member { fields["member"] = member }
        return fields
    }

    private static func rounded(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }

    /// One line per response once it is written, as an access log has it:
    /// `12:00:01 GET 206 URL bytes=0-65535: 64.0 KiB in 0.42 s, from a download (first byte after 0.40 s)`;
    /// a title's file is named after the URL: `GET 200 URL (variant-0/s3.ts): ...`.
    static func line(_ event: ServeEvent, at date: Date = Date()) -> String? {
        let time = clock.string(from: date)
        switch event {
        case .served:
            return nil
        case .finished(let record, let bytes, let seconds, let complete):
            let range = record.range.map { " " + Printable.name($0, limit: 80) } ?? ""
            let sent = ByteCount.format(bytes) + " in " + duration(seconds)
            let from =
                switch record.from {
                case .cache: "from the cache"
                case .download: "from a download (first byte after \(duration(record.headSeconds)))"
                case .error: "an error answer"
                }
            let ending = complete ? "" : "; stopped there (the player left, or the download failed)"
            let member = record.member.map { " (" + Printable.name($0, limit: 200) + ")" } ?? ""
            return "\(time) \(record.method) \(record.status) \(Printable.url(record.url))\(member)\(range): \(sent), \(from)\(ending)"
        case .refused(let path, let reason):
            return "\(time) refused \(Printable.name(path, limit: 200)): \(reason)"
        }
    }

    /// Milliseconds under a second: what a seek costs is worth reading.
    private static func duration(_ seconds: Double) -> String {
        seconds < 1 ? "\(Int((seconds * 1000).rounded())) ms" : ByteCount.formatSeconds(seconds)
    }

    private static let clock: DateFormatter = {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss"
        return formatter
    }()

    /// The background lists are done; the server goes on.
    func backgroundDone(_ summary: PrefetchSummary, inputErrors: Int) {
        guard !json, !summary.interrupted else { return }
        Terminal.err("mediacache: background prefetch finished: " + SummaryPrinter.counts(summary, inputErrors: inputErrors))
    }
}
