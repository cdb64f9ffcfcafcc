import Foundation

/// Where text goes: messages to stderr, data (paths, JSON) to stdout, each write
/// unbuffered so lines appear at once even when stdout is a pipe.
enum Terminal {
    enum Stream {
        case out, err
        var descriptor: Int32 { self == .out ? STDOUT_FILENO : STDERR_FILENO }
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var overlay: ProgressBoard?

    static func out(_ line: String) { write(line + "\n", to: .out) }

    /// A message on stderr; above the progress board when one is shown.
    static func err(_ line: String) {
        if let board = lock.withLock({ overlay }) {
            board.printAbove(line)
        } else {
            write(line + "\n", to: .err)
        }
    }

    static func setOverlay(_ board: ProgressBoard?) { lock.withLock { overlay = board } }

    /// Control sequences and text for the board itself, on stderr.
    static func writeRaw(_ text: String) { write(text, to: .err) }

    /// The terminal's width (stderr), else $COLUMNS, else 80.
    static var columns: Int {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 { return Int(size.ws_col) }
        return Int(ProcessInfo.processInfo.environment["COLUMNS"] ?? "") ?? 80
    }

    static func write(_ text: String, to stream: Stream) {
        lock.withLock {
            var bytes = Array(text.utf8)[...]
            while !bytes.isEmpty {
                let written = bytes.withUnsafeBytes { Glibc.write(stream.descriptor, $0.baseAddress, $0.count) }
                if written < 0 && errno == EINTR { continue }
                if written <= 0 { return }
                bytes = bytes.dropFirst(written)
            }
        }
    }

    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }
}
