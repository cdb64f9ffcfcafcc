import Foundation
import Synchronization

/// Where text goes: messages to stderr, data (paths, JSON) to stdout, each write
/// unbuffered so lines appear at once even when stdout is a pipe.
enum Terminal {
    enum Stream {
        case out, err
        var descriptor: Int32 { self == .out ? STDOUT_FILENO : STDERR_FILENO }
    }

    /// Held while writing, so lines from several threads never interleave.
    private static let state = Mutex(State())

    private struct State {
        var overlay: ProgressBoard?
        /// Set once a write to stdout failed with EPIPE: the reader went away, later
        /// output to stdout is dropped.
        var stdoutClosed = false
        var stdoutCloseHandler: (@Sendable () -> Void)?
    }

    static func out(_ line: String) { write(line + "\n", to: .out) }

    /// A message on stderr; above the progress board when one is shown.
    static func err(_ line: String) {
        if let board = state.withLock({ $0.overlay }) {
            board.printAbove(line)
        } else {
            write(line + "\n", to: .err)
        }
    }

    static func setOverlay(_ board: ProgressBoard?) { state.withLock { $0.overlay = board } }

    /// `handler` runs once, on the thread whose write found stdout closed (EPIPE; the
    /// process ignores SIGPIPE so that it can save its work instead of dying). Without a
    /// handler, that write exits 141.
    static func whenStdoutCloses(_ handler: (@Sendable () -> Void)?) {
        let closedAlready = state.withLock { state in
            state.stdoutCloseHandler = handler
            return state.stdoutClosed
        }
        if closedAlready { handler?() }
    }

    /// Control sequences and text for the board itself, on stderr.
    static func writeRaw(_ text: String) { write(text, to: .err) }

    /// The terminal's width (stderr), else $COLUMNS, else 80.
    static var columns: Int {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 { return Int(size.ws_col) }
        return Int(ProcessInfo.processInfo.environment["COLUMNS"] ?? "") ?? 80
    }

    /// The longest line that is redrawn in place: one column short of the width, since
    /// some terminals wrap a line that fills the last column (and the cursor-up count
    /// would then be wrong), and never below 20.
    static var lineWidth: Int { max(20, columns - 1) }

    static func write(_ text: String, to stream: Stream) {
        let (readerLeft, handler) = state.withLock { state -> (Bool, (@Sendable () -> Void)?) in
            if stream == .out && state.stdoutClosed { return (false, nil) }
            var bytes = Array(text.utf8)[...]
            while !bytes.isEmpty {
                let written = bytes.withUnsafeBytes { Glibc.write(stream.descriptor, $0.baseAddress, $0.count) }
                if written < 0 && errno == EINTR { continue }
                if written < 0 && errno == EPIPE && stream == .out {
                    state.stdoutClosed = true
                    return (true, state.stdoutCloseHandler)
                }
                if written <= 0 { return (false, nil) }
                bytes = bytes.dropFirst(written)
            }
            return (false, nil)
        }
        guard readerLeft else { return }
        // Outside the lock: the handler prints to stderr. A command with nothing to save
        // (no handler) ends as SIGPIPE would have ended it, but with a status, not a signal.
        if let handler { handler() } else { exit(ExitStatus.interrupted(by: SIGPIPE).rawValue) }
    }

    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }
}
