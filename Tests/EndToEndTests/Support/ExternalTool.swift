import Foundation

/// Runs an installed program the tests use as a real client (ffmpeg, ffprobe, Chromium)
/// to its end, collecting what it prints.
enum ExternalTool {
    struct Missing: Error, CustomStringConvertible {
        let path: String
        var description: String { "\(path) is not installed; .ci/run installs it (Scripts/install-deps)" }
    }

    static func run(_ path: String, _ arguments: [String]) throws -> RunResult {
        guard FileManager.default.isExecutableFile(atPath: path) else { throw Missing(path: path) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let started = Date()
        try process.run()
        // Read both at once: a chatty stderr must not block the program's stdout.
        let errors = MediaCacheProcess.Collector()
        errors.drain(err.fileHandleForReading)
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return RunResult(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: errors.finish(), seconds: Date().timeIntervalSince(started))
    }

    /// `run`, but a program still running after `timeout` seconds is killed and reported
    /// with status -1 (ffmpeg's dash demuxer, for one, can loop forever on a file it
    /// misreads).
    static func run(_ path: String, _ arguments: [String], timeout: Double) throws -> RunResult {
        guard FileManager.default.isExecutableFile(atPath: path) else { throw Missing(path: path) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        return MediaCacheProcess.Running(process: process, out: out, err: err).wait(timeout: timeout)
    }
}
