import Foundation
import MediaCacheKit

/// One line at the bottom of a terminal with the active files' progress, redrawn in
/// place at most 5 times a second; other lines print above it.
final class StatusLine: @unchecked Sendable {
    private let lock = NSLock()
    private var files: [String: (name: String, done: Int64, length: Int64?, rate: Double)] = [:]
    private var lastDraw = 0.0
    private var shown = false

    func update(url: String, name: String, done: Int64, length: Int64?, rate: Double) {
        lock.withLock {
            files[url] = (name, done, length, rate)
            let now = Date().timeIntervalSince1970
            guard now - lastDraw >= 0.2 else { return }
            lastDraw = now
            draw()
        }
    }

    func remove(url: String) {
        lock.withLock { _ = files.removeValue(forKey: url) }
    }

    func printAbove(_ line: String) {
        lock.withLock {
            Terminal.write("\r\u{1B}[K" + line + "\n", to: .err)
            if shown { draw() }
        }
    }

    func clear() {
        lock.withLock {
            if shown { Terminal.write("\r\u{1B}[K", to: .err) }
            shown = false
        }
    }

    private func draw() {
        guard !files.isEmpty else { return }
        let done = files.values.reduce(0) { $0 + $1.done }
        let rate = files.values.reduce(0) { $0 + $1.rate }
        let names = files.values.map { file in
            file.length.map { "\(file.name) \(Int(Double(file.done) * 100 / Double(max($0, 1))))%" } ?? file.name
        }.sorted().joined(separator: ", ")
        var text = "\(files.count) active, \(ByteCount.format(done)), \(ByteCount.format(Int64(rate)))/s: \(names)"
        let width = Int(ProcessInfo.processInfo.environment["COLUMNS"] ?? "") ?? 100
        if text.count > width - 1 { text = String(text.prefix(max(10, width - 2))) + "…" }
        Terminal.write("\r\u{1B}[K" + text, to: .err)
        shown = true
    }
}
