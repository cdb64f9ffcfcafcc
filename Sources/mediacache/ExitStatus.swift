import ArgumentParser

/// The documented exit codes.
enum ExitStatus {
    /// Some entries failed (each named with its reason), or the list had bad lines.
    static let someFailed = ExitCode(1)
    /// Usage or input error (unreadable list, bad option).
    static let usage = ExitCode(2)
    /// The cache itself could not be used (I/O, index).
    static let cacheError = ExitCode(3)
    /// Stopped by SIGINT (Ctrl-C) or SIGTERM; progress was saved.
    static let interruptedByINT = ExitCode(130)
    static let interruptedByTERM = ExitCode(143)
}
