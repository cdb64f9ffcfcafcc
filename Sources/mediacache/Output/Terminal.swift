import Foundation

/// Where text goes: messages to stderr, data (paths, JSON) to stdout, each write
/// unbuffered so lines appear at once even when stdout is a pipe.
enum Terminal {
    enum Stream {
        case out, err
        var descriptor: Int32 { self == .out ? STDOUT_FILENO : STDERR_FILENO }
    }

    private static let lock = NSLock()

    static func out(_ line: String) { write(line + "\n", to: .out) }

    static func err(_ line: String) { write(line + "\n", to: .err) }

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
