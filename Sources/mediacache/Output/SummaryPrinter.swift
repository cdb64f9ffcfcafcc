import Foundation
import MediaCacheKit

/// The final summary: counts, bytes, time and rate; each failure with its reason.
enum SummaryPrinter {
    /// A run that could not start: `message` on stderr and, with `--json`, the failure
    /// and an empty summary as events, so the stream ends with a summary whatever happened.
    static func printRunFailure(_ message: String, code: String, json: Bool) {
        Terminal.err("mediacache: \(message)")
        if json {
            Terminal.out(JSONEvent.runFailed(code: code, reason: message))
            printJSON(PrefetchSummary(), inputErrors: 0)
        }
    }

    /// With `--json`, a run with nothing to do still ends its stream with a summary.
    static func printNothingToDo(json: Bool) {
        if json { printJSON(PrefetchSummary(), inputErrors: 0) }
    }

    /// `3 done, 1 failed, 0 already cached` (and what was left or bad, if any).
    static func counts(_ summary: PrefetchSummary, inputErrors: Int) -> String {
        var parts = ["\(summary.committed) done", "\(summary.failed.count) failed", "\(summary.alreadyCached) already cached"]
        if summary.unfinished > 0 { parts.append("\(summary.unfinished) unfinished") }
        if summary.notPlaced > 0 { parts.append("\(summary.notPlaced) not put where asked") }
        if inputErrors > 0 { parts.append("\(inputErrors) bad list line\(inputErrors == 1 ? "" : "s")") }
        return parts.joined(separator: ", ")
    }

    static func print(_ summary: PrefetchSummary, inputErrors: Int, json: Bool) {
        let rate = summary.elapsed > 0 ? Double(summary.bytesFetched) / summary.elapsed : 0
        if json { printJSON(summary, inputErrors: inputErrors) }
        Terminal.err(
            "\(counts(summary, inputErrors: inputErrors)); \(ByteCount.format(summary.bytesFetched)) in "
                + "\(ByteCount.formatSeconds(summary.elapsed)) (\(ByteCount.format(Int64(rate)))/s)")
        for (url, failure) in summary.failed {
            Terminal.err("  failed: \(Printable.url(url)): \(failure.message)")
        }
        if let advice = nextStep(after: summary.failed.map(\.failure)) { Terminal.err(advice) }
        if summary.interrupted {
            Terminal.err("interrupted: progress is saved; run the same command again, or `mediacache resume`")
        }
    }

    /// What the failures leave for `resume`, and what to do about the others.
    static func nextStep(after failures: [JobFailure]) -> String? {
        let kept = failures.filter(\.keptForResume).count
        let dropped = failures.count - kept
        // A full disk or an unwritable cache is mended on this machine, not in the list.
        let disk = failures.filter { !$0.keptForResume && $0.cause == .storage }.count
        let retry = "`mediacache resume` tries again later (`mediacache rm URL` forgets one)"
        let mend = disk == 0 ? "fix the URL or the options"
            : disk == dropped ? "free space on the disk (or fix the cache's folder)"
            : "fix the URL or the options (for a disk failure, the disk)"
        let fix = "\(mend) and run again (`mediacache status` lists them)"
        switch (kept, dropped) {
        case (0, 0): return nil
        case (_, 0): return "kept for resume: \(retry)"
        case (0, _): return "not kept for resume: \(fix)"
        default: return "\(kept) kept for resume: \(retry); \(dropped) not kept: \(fix)"
        }
    }

    private static func printJSON(_ summary: PrefetchSummary, inputErrors: Int) {
        Terminal.out(
            JSONEvent.encode([
                "event": "summary", "done": summary.committed, "failed": summary.failed.count,
                "already_cached": summary.alreadyCached, "unfinished": summary.unfinished,
                "bad_list_lines": inputErrors, "not_placed": summary.notPlaced, "bytes": summary.bytesFetched,
                "seconds": (summary.elapsed * 1000).rounded() / 1000, "interrupted": summary.interrupted,
            ]))
    }
}
