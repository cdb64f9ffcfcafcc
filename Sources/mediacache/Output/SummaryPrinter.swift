import Foundation
import MediaCacheKit

/// The final summary: counts, bytes, time and rate; each failure with its reason.
enum SummaryPrinter {
    static func print(_ summary: PrefetchSummary, inputErrors: Int, json: Bool) {
        let rate = summary.elapsed > 0 ? Double(summary.bytesFetched) / summary.elapsed : 0
        if json {
            Terminal.out(
                JSONEvent.encode([
                    "event": "summary", "done": summary.committed, "failed": summary.failed.count,
                    "already_cached": summary.alreadyCached, "unfinished": summary.unfinished,
                    "bad_list_lines": inputErrors, "bytes": summary.bytesFetched,
                    "seconds": (summary.elapsed * 1000).rounded() / 1000, "interrupted": summary.interrupted,
                ]))
        }
        var parts = ["\(summary.committed) done", "\(summary.failed.count) failed", "\(summary.alreadyCached) already cached"]
        if summary.unfinished > 0 { parts.append("\(summary.unfinished) unfinished") }
        if inputErrors > 0 { parts.append("\(inputErrors) bad list line\(inputErrors == 1 ? "" : "s")") }
        Terminal.err(
            "\(parts.joined(separator: ", ")); \(ByteCount.format(summary.bytesFetched)) in "
                + "\(ByteCount.formatSeconds(summary.elapsed)) (\(ByteCount.format(Int64(rate)))/s)")
        for (url, failure) in summary.failed {
            Terminal.err("  failed: \(Printable.url(url)): \(failure.message)")
        }
        if summary.interrupted {
            Terminal.err("interrupted: progress is saved; run the same command again, or `mediacache resume`")
        }
    }
}
