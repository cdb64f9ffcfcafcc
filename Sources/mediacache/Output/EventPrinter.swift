import Foundation
import MediaCacheKit

/// Shows a run's events: plain lines for people on stderr, or NDJSON on stdout.
final class EventPrinter: Sendable {
    enum Style { case human, quiet, json }
    let style: Style
    private let board: ProgressBoard?
    private let summary: IntervalSummary?

    /// `board`: redraw progress lines on a terminal (not for a long-running server);
    /// elsewhere, a summary line every `summaryInterval` seconds (0: none).
    /// `expectedFiles`: how many files the run has, when known.
    init(style: Style, board: Bool = true, expectedFiles: Int? = nil, summaryInterval: Double = 0) {
        self.style = style
        let human = board && style == .human
        self.board = human && Terminal.stderrIsTerminal ? ProgressBoard(expectedFiles: expectedFiles) : nil
        self.summary = human && !Terminal.stderrIsTerminal && summaryInterval > 0
            ? IntervalSummary(interval: summaryInterval, expectedFiles: expectedFiles) : nil
    }

    /// Whether `handle` does anything with `event`.
    func shows(_ event: PrefetchEvent) -> Bool {
        guard style == .quiet else { return true }
        if case .failed = event { return true }
        return false
    }

    func handle(_ event: PrefetchEvent) {
        switch style {
        case .json: Terminal.out(JSONEvent.line(for: event))
        case .quiet: if shows(event) { printHuman(event) }
        case .human: printHuman(event)
        }
    }

    private func printHuman(_ event: PrefetchEvent) {
        switch event {
        case .started(_, let name, let length, let resumed, _, let source, let title):
            let from = source == .tier ? " from the tier" : ""
            if let title {
                let segments = "\(title.segments) segment\(title.segments == 1 ? "" : "s")"
                if resumed > 0 {
                    say("resume   \(name) at \(title.segmentsHeld) of \(segments) (streaming title\(from))")
                } else {
                    say("start    \(name) (streaming title, \(segments)\(from))")
                }
                return
            }
            let size = length.map { ByteCount.format($0) } ?? "size unknown"
            if resumed > 0 {
                say("resume   \(name) at \(ByteCount.format(resumed)) of \(size)\(from)")
            } else {
                // No connection count: idle connections take parts of slow ranges, so the
                // count changes as it goes; the progress line shows the ones in use.
                say("start    \(name) (\(size)\(from))")
            }
        case .progress(let url, let name, let done, let length, let rate, let connections, let title):
            let file = RunTally.File(
                name: name, done: done, length: length, rate: rate, connections: connections,
                segments: title.map { ($0.segmentsHeld, $0.segments) })
            board?.update(url: url, file)
            summary?.update(url: url, file)
        case .retry(let url, let attempt, let delay, let reason):
            say("retry    \(Printable.url(url)): \(reason) (attempt \(attempt), in \(ByteCount.formatSeconds(delay)))")
        case .notice(let url, let message):
            say("note     \(Printable.url(url)): \(message)")
        case .waiting(let url, let reason):
            say("wait     \(Printable.url(url)): \(reason)")
        case .verified, .moovFound:
            break
        case .committed(let url, let name, _, let size, let faststart):
            board?.remove(url: url, fetched: size)
            summary?.finish(url: url, fetched: size)
            let layout =
                switch faststart {
                case .notMP4, .original: ""
                case .streamingTitle: ", streaming title"
                default: ", faststart: \(faststart)"
                }
            say("done     \(name) (\(ByteCount.format(size))\(layout))")
        case .skipped(let url, let name, _):
            board?.remove(url: url, fetched: 0)
            summary?.finish(url: url, fetched: 0)
            say("cached   \(name)")
        case .failed(let url, _, let failure):
            board?.remove(url: url)
            summary?.finish(url: url)
            say("FAILED   \(Printable.url(url)): \(failure.message)")
        }
    }

    /// A line about the input (a bad list line met during the run), shown above the
    /// progress lines in every style: it is an error message, on stderr.
    func note(_ line: String) { say(line) }

    /// A bad list line: on stderr as ever, and with --json an event too, so a script
    /// reading the events learns which line and why, not only a count in the summary.
    func listProblem(_ problem: ListDiagnostic) {
        say(problem.description)
        guard style == .json else { return }
        Terminal.out(
            JSONEvent.encode([
                "event": "list_problem", "severity": problem.severity.rawValue, "file": problem.file, "line": problem.line,
                "message": problem.message,
            ]))
    }

    /// Messages carry what origins sent (validators, reasons, names): a control character
    /// in one must not reach the terminal, where ESC sequences retitle, recolour or clear it.
    private func say(_ line: String) {
        let shown = line.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F } ? line : Printable.visible(line.unicodeScalars)
        if let board {
            board.printAbove(shown)
        } else {
            Terminal.err(shown)
        }
    }

    /// The run's file count, once the lists are read to their end.
    func expectFiles(_ count: Int) {
        board?.expectFiles(count)
        summary?.expectFiles(count)
    }

    func finish() {
        board?.clear()
        summary?.stop()
    }
}
