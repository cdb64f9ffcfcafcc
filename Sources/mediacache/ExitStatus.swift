import ArgumentParser

/// The documented exit codes.
enum ExitStatus {
    /// Some entries failed (each named with its reason), or the list had bad lines.
    static let someFailed = ExitCode(1)
    /// Usage or input error (unreadable list, bad option, no HOME for the default cache).
    static let usage = ExitCode(2)
    /// The cache itself could not be used (I/O, index), or too few file descriptors.
    static let cacheError = ExitCode(3)
    /// Stopped by a signal (or by the reader of stdout going away); progress was saved.
    /// 128 + the signal, as a shell reports a process the signal killed: 129 SIGHUP,
    /// 130 SIGINT (Ctrl-C), 141 SIGPIPE (stdout closed), 143 SIGTERM.
    static func interrupted(by signal: Int32) -> ExitCode { ExitCode(128 + signal) }
}
