import Foundation
import MediaCacheKit
import Synchronization

/// The live view on a terminal: one line per active file (name, bar, percent, bytes,
/// rate, ETA, connections) and a total line, redrawn in place on stderr at most five
/// times a second. Lines never wrap (they are cut to the terminal width), so the cursor
/// arithmetic stays right; messages print above the board; `clear()` leaves nothing.
final class ProgressBoard: Sendable {
    typealias File = RunTally.File

    private static let maxFileLines = 8
    private let board: Mutex<Board>

    /// What is on the screen; drawn while the lock is held, so lines never interleave.
    private struct Board {
        var tally = RunTally()
        var drawnLines = 0
        var lastDraw = 0.0

        /// Moves to the board's first line and clears to the end of the screen.
        mutating func erase() -> String {
            defer { drawnLines = 0 }
            return drawnLines > 0 ? "\r\u{1B}[\(drawnLines)A\u{1B}[J" : "\r\u{1B}[J"
        }

        mutating func redraw() {
            let files = tally.active
            guard !files.isEmpty else {
                Terminal.writeRaw(erase())
                return
            }
            // A line that fills the last column makes some terminals wrap: one to spare.
            let width = Terminal.lineWidth - 1
            var lines = files.prefix(ProgressBoard.maxFileLines).map { ProgressBoard.line(for: $0.file, width: width) }
            if files.count > ProgressBoard.maxFileLines {
                lines.append("  … and \(files.count - ProgressBoard.maxFileLines) more")
            }
            lines.append("total: " + tally.summary)
            let text = lines.map { String($0.prefix(width)) + "\n" }.joined()
            Terminal.writeRaw(erase() + text)
            drawnLines = lines.count
        }
    }

    /// `expectedFiles`: how many files the run has, when known.
    init(expectedFiles: Int?) {
        board = Mutex(Board(tally: RunTally(expected: expectedFiles)))
        Terminal.setOverlay(self)
    }

    func update(url: String, _ file: File) {
        board.withLock { board in
            board.tally.update(url: url, file)
            let now = Date().timeIntervalSince1970
            guard now - board.lastDraw >= 0.2 else { return }
            board.lastDraw = now
            board.redraw()
        }
    }

    func expectFiles(_ count: Int) {
        board.withLock { $0.tally.expected = count }
    }

    /// A file is done, cached already or failed; `fetched` as in `RunTally.finish`.
    func remove(url: String, fetched: Int64? = nil) {
        board.withLock { $0.tally.finish(url: url, fetched: fetched) }
    }

    /// Prints `line` above the board, then redraws the board below it.
    func printAbove(_ line: String) {
        board.withLock { board in
            Terminal.writeRaw(board.erase() + line + "\n")
            board.redraw()
        }
    }

    /// Removes the board from the screen (end of run, Ctrl-C).
    func clear() {
        board.withLock { board in
            Terminal.writeRaw(board.erase())
            board.tally.active = []
        }
        Terminal.setOverlay(nil)
    }

    /// `name  [#####-----]  45%  1.2 MiB/2.6 MiB  ETA 3 s  800 KiB/s  x4`; a title's
    /// bar and percent count segments (`412/900 seg  1.2 GiB`). On a narrow terminal
    /// the name gives way first, then the bar shrinks, then the details go.
    static func line(for file: File, width: Int) -> String {
        var fraction = file.length.map { $0 > 0 ? min(1, Double(file.done) / Double($0)) : 1 }
        var bytes = "  " + ByteCount.format(file.done) + (file.length.map { "/" + ByteCount.format($0) } ?? "")
        if let segments = file.segments {
            fraction = segments.total > 0 ? min(1, Double(segments.held) / Double(segments.total)) : 1
            bytes = "  \(segments.held)/\(segments.total) seg" + bytes
        }
        let percent = fraction.map { String(format: " %3d%%", Int($0 * 100)) } ?? ""
        var eta = ""
        if let length = file.length, file.rate > 0, length > file.done {
            eta = "  ETA " + ByteCount.formatSeconds(Double(length - file.done) / file.rate)
        }
        let rate = "  " + ByteCount.format(Int64(file.rate)) + "/s"
        let connections = "  x\(file.connections)"
        for details in [bytes + eta + rate + connections, eta + rate + connections, eta + rate, rate] {
            if let line = line(name: file.name, fraction: fraction, percent: percent, details: details, width: width) {
                return line
            }
        }
        return String((String(file.name.prefix(12)) + percent + rate).prefix(width))
    }

    private static func line(name: String, fraction: Double?, percent: String, details: String, width: Int) -> String? {
        for barWidth in [20, 10] {
            let bar = fraction.map { fraction in
                guard barWidth > 0 else { return "" }
                let filled = Int(fraction * Double(barWidth))
                return " [" + String(repeating: "#", count: filled) + String(repeating: "-", count: barWidth - filled) + "]"
            } ?? ""
            let room = width - bar.count - percent.count - details.count
            if room >= 12 {
                // Cut in the middle, as `ls` does: the end tells episodes apart.
                let shown = TextTable.cutInTheMiddle(name, width: room)
                return shown.padding(toLength: room, withPad: " ", startingAt: 0) + bar + percent + details
            }
        }
        return nil
    }
}
