import Foundation

/// What one run of the built `mediacache` binary printed and returned.
struct RunResult {
    var status: Int32
    var stdout: String
    var stderr: String
    var seconds: Double
}

/// Runs the built binary (found next to the test bundle) with a bounded time.
enum MediaCacheProcess {
    static var binary: String { builtProduct("mediacache") }

    /// A product of this package built next to the test bundle.
    static func builtProduct(_ name: String) -> String {
        let bundleDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [bundleDirectory, bundleDirectory.deletingLastPathComponent()] {
            let path = candidate.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        let fallback = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/" + name).path
        return fallback
    }

    /// An XDG_CONFIG_HOME that never exists (Debian's /nonexistent home).
    static let noConfigHome = "/nonexistent/mediacache-tests-config"

    /// RLIMIT_NOFILE for the child, set with setrlimit(2) by the `WithFileLimit` wrapper
    /// (which also closes every inherited descriptor above stderr), or with `prlimit(1)`
    /// when `keepsDescriptors`: Foundation watches a long-running child through a
    /// descriptor the child inherits, and a child that closed it is never reaped, which
    /// hangs every later `Process` of the test.
    struct FileLimit {
        var soft: Int
        var hard: Int
        var keepsDescriptors = false
    }

    /// The user permission tests run the binary as: `nobody`, through setpriv(1), when
    /// the tests run as root (who reads any file whatever its mode); nil otherwise, as
    /// the user running the tests already meets file modes.
    static var unprivilegedUser: (uid: uid_t, gid: gid_t)? { getuid() == 0 ? (65534, 65534) : nil }

    /// Starts the binary without waiting; the caller waits or signals it. `unprivileged`:
    /// as `unprivilegedUser`, when there is one.
    /// `keepsInputOpen`: standard input stays open after `stdin` for `Running.write`.
    static func start(
        _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:], fileLimit: FileLimit? = nil,
        unprivileged: Bool = false, keepsInputOpen: Bool = false
    ) throws -> Running {
        let process = Process()
        if unprivileged, let user = unprivilegedUser {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=\(user.uid)", "--regid=\(user.gid)", "--clear-groups", "--", binary] + arguments
        } else if let fileLimit, fileLimit.keepsDescriptors {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
            process.arguments = ["--nofile=\(fileLimit.soft):\(fileLimit.hard)", "--", binary] + arguments
        } else if let fileLimit {
            process.executableURL = URL(fileURLWithPath: builtProduct("WithFileLimit"))
            process.arguments = ["\(fileLimit.soft)", "\(fileLimit.hard)", binary] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = arguments
        }
        var env = ProcessInfo.processInfo.environment
        env["MEDIACACHE_DIR"] = nil
        // A developer's own config file never reaches a test: the default one lives
        // where nothing can (tests that read one pass their own XDG_CONFIG_HOME or HOME).
        env["XDG_CONFIG_HOME"] = noConfigHome
        env["NO_COLOR"] = "1"
        // A proxy of the machine running the tests must not carry the test traffic.
        for name in ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"] {
            env[name] = nil
        }
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = input
        let running = Running(process: process, out: out, err: err, input: keepsInputOpen ? input.fileHandleForWriting : nil)
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        if !keepsInputOpen { try? input.fileHandleForWriting.close() }
        return running
    }

    static func run(
        _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:], fileLimit: FileLimit? = nil,
        unprivileged: Bool = false, timeout: Double = 60
    ) throws -> RunResult {
        try start(arguments, stdin: stdin, environment: environment, fileLimit: fileLimit, unprivileged: unprivileged)
            .wait(timeout: timeout)
    }

    final class Running: @unchecked Sendable {
        let process: Process
        private let outData = Collector()
        private let errData = Collector()
        private let started = Date()
        private let input: FileHandle?

        init(process: Process, out: Pipe, err: Pipe, input: FileHandle? = nil) {
            self.process = process
            self.input = input
            // Read continuously so a chatty child never blocks on a full pipe.
            outData.drain(out.fileHandleForReading)
            errData.drain(err.fileHandleForReading)
        }

        var pid: Int32 { process.processIdentifier }

        /// What the child wrote to stdout so far, while it runs.
        var stdoutSoFar: String { outData.snapshot }

        func signal(_ number: Int32) { kill(process.processIdentifier, number) }

        /// Writes to its standard input (started with `keepsInputOpen`).
        func write(_ text: String) { input?.write(Data(text.utf8)) }

        /// Ends its standard input.
        func closeInput() { try? input?.close() }

        /// Waits for exit; a run over `timeout` is killed and reported with status -1.
        func wait(timeout: Double = 60) -> RunResult {
            let deadline = Date().addingTimeInterval(timeout)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            var status: Int32 = -1
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            } else {
                process.waitUntilExit()
                status = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
            }
            let seconds = Date().timeIntervalSince(started)
            return RunResult(status: status, stdout: outData.finish(), stderr: errData.finish(), seconds: seconds)
        }
    }

    final class Collector: @unchecked Sendable {
        private var data = Data()
        private let lock = NSLock()
        private let done = DispatchSemaphore(value: 0)

        var snapshot: String { lock.withLock { String(decoding: data, as: UTF8.self) } }

        func drain(_ handle: FileHandle) {
            Thread.detachNewThread { [self] in
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    lock.withLock { data.append(chunk) }
                }
                done.signal()
            }
        }

        func finish() -> String {
            _ = done.wait(timeout: .now() + 5)
            return lock.withLock { String(decoding: data, as: UTF8.self) }
        }
    }
}
