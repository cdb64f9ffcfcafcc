import Foundation
import MediaCacheKit

/// One progress line on a terminal for a long byte-stream job (export, import, verify):
/// percent, bytes, rate, ETA, redrawn in place on stderr at most 5 times a second.
/// Draws nothing when stderr is not a terminal.
final class ByteProgressLine {
    private let label: String
    private let enabled: Bool
    private let started = Date()
    private var lastDraw = 0.0
    private var shown = false

    init(label: String, enabled: Bool = Terminal.stderrIsTerminal) {
        self.label = label
        self.enabled = enabled
    }

    func update(done: Int64, total: Int64, detail: String = "") {
        guard enabled else { return }
        let now = Date().timeIntervalSince1970
        guard now - lastDraw >= 0.2 else { return }
        lastDraw = now
        let elapsed = Date().timeIntervalSince(started)
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        let percent = total > 0 ? Int(Double(done) * 100 / Double(total)) : 100
        var text = "\(label) \(percent)%  \(ByteCount.format(done)) / \(ByteCount.format(total))  \(ByteCount.format(Int64(rate)))/s"
        if rate > 0 && total > done { text += "  ETA \(ByteCount.formatSeconds(Double(total - done) / rate))" }
        if !detail.isEmpty { text += "  " + detail }
        let width = Terminal.lineWidth
        if text.count > width { text = String(text.prefix(width - 1)) + "…" }
        Terminal.write("\r\u{1B}[K" + text, to: .err)
        shown = true
    }

    /// Prints `line` on stderr above the progress line.
    func printAbove(_ line: String) {
        clear()
        Terminal.err(line)
    }

    func clear() {
        if shown { Terminal.write("\r\u{1B}[K", to: .err) }
        shown = false
        lastDraw = 0
    }
}
