import Foundation
import MediaCacheKit
import MediaCacheServe

/// What `serve` prints: download events as `prefetch` prints them (lines on stderr, or
/// NDJSON on stdout with `--json`), and with `--json` one `request` event per response.
final class ServeEventPrinter: Sendable {
    private let json: Bool
    private let downloads: EventPrinter

    init(json: Bool, quiet: Bool) {
        self.json = json
        // A server runs for hours: no progress board, one line per event.
        downloads = EventPrinter(style: json ? .json : quiet ? .quiet : .human, board: false)
    }

    var download: @Sendable (PrefetchEvent) -> Void { { [downloads] in downloads.handle($0) } }

    var request: @Sendable (ServeEvent) -> Void {
        { [json] event in
            guard json else { return }
            switch event {
            case .served(let url, let range, let status):
                var fields: [String: Any] = ["event": "request", "url": url, "status": status]
                if let range { fields["range"] = range }
                Terminal.out(JSONEvent.encode(fields))
            case .refused(let path, let reason):
                Terminal.out(JSONEvent.encode(["event": "refused", "path": path, "reason": reason]))
            }
        }
    }

    /// The background lists are done; the server goes on.
    func backgroundDone(_ summary: PrefetchSummary, inputErrors: Int) {
        guard !json, !summary.interrupted else { return }
        Terminal.err("mediacache: background prefetch finished: " + SummaryPrinter.counts(summary, inputErrors: inputErrors))
    }
}
