import Foundation
import Testing

@testable import mediacache

extension EndToEnd {
    /// man/mediacache.1 and completions/ are generated from the command definitions and
    /// committed. These tests fail when a committed file is stale. To re-record:
    ///   swift build --product generate-manual && MEDIACACHE_RECORD=1 swift test --filter GeneratedFiles
    @Suite struct GeneratedFiles {
        static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().path
        static let recording = ProcessInfo.processInfo.environment["MEDIACACHE_RECORD"] == "1"

        @Test(arguments: [("bash", "mediacache.bash"), ("zsh", "_mediacache"), ("fish", "mediacache.fish")])
        func completionScriptIsUpToDate(shell: String, file: String) throws {
            let result = try MediaCacheProcess.run(["--generate-completion-script", shell])
            #expect(result.status == 0)
            try Self.compare(generated: result.stdout, committed: "completions/" + file)
        }

        /// `mediacache completions SHELL` prints the committed script.
        @Test func theCompletionsCommandPrintsTheScript() throws {
            let result = try MediaCacheProcess.run(["completions", "fish"])
            #expect(result.status == 0)
            #expect(result.stdout == (try String(contentsOfFile: Self.root + "/completions/mediacache.fish", encoding: .utf8)))
            let unknown = try MediaCacheProcess.run(["completions", "tcsh"])
            #expect(unknown.status == 2)
            #expect(unknown.stderr.contains("no completion script for 'tcsh': choose bash, zsh or fish"))
        }

        /// `--help` fits one screen; its text is a reviewed snapshot.
        @Test func theShortHelpIsUpToDateAndFitsOneScreen() throws {
            let result = try MediaCacheProcess.run(["--help"])
            #expect(result.status == 0)
            let lines = result.stdout.filter { $0 == "\n" }.count
            #expect(lines <= 50, "--help is \(lines) lines")
            #expect(try MediaCacheProcess.run([]).stdout == result.stdout)
            try Self.compare(generated: result.stdout, committed: "Tests/Snapshots/help.txt")
        }

        @Test func bashCompletionLoadsInBash() throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["-c", "source '\(Self.root)/completions/mediacache.bash' && complete -p mediacache"]
            let out = Pipe()
            process.standardOutput = out
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            let registered = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(registered.contains("mediacache"))
        }

        @Test func manPageIsUpToDate() throws {
            let binary = URL(fileURLWithPath: MediaCacheProcess.binary).deletingLastPathComponent()
                .appendingPathComponent("generate-manual").path
            guard FileManager.default.isExecutableFile(atPath: binary) else {
                Issue.record("\(binary) is missing: run `swift build --product generate-manual` (Scripts/test does)")
                return
            }
            let output = NSTemporaryDirectory() + "man-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: output) }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            // A fixed date keeps the page reproducible.
            process.arguments = [MediaCacheProcess.binary, "--date", "2026-11-21", "--output-directory", output]
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            // The plugin writes the long help as one text block; ManPage makes sections of it.
            let generated = try String(contentsOfFile: output + "/mediacache.1", encoding: .utf8)
            let page = try ManPage.finish(generated)
            #expect(page.contains(".Sh \"EXIT STATUS\"") && page.contains(".It Ev \"MEDIACACHE_DIR\""))
            try Self.compare(generated: page, committed: "man/mediacache.1")
        }

        /// The committed page is clean for mandoc: no style, warning or error messages.
        @Test func manPageIsLintClean() throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/mandoc")
            process.arguments = ["-T", "lint", Self.root + "/man/mediacache.1"]
            let out = Pipe()
            process.standardOutput = out
            process.standardError = out
            // No mandoc is a failure, not a skip: Scripts/install-deps installs it.
            try process.run()
            let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            // Whether aria2c(1), curl(1) and mpv(1) (SEE ALSO) are installed depends on the
            // machine, not on the page: only those messages are left out.
            let messages = output.split(separator: "\n").filter {
                !$0.contains("referenced manual not found") && !$0.contains("mandoc.db")
            }
            #expect(messages.isEmpty, "mandoc -T lint man/mediacache.1:\n\(messages.joined(separator: "\n"))")
        }

        static func compare(generated: String, committed relative: String) throws {
            let path = root + "/" + relative
            if recording {
                try generated.write(toFile: path, atomically: true, encoding: .utf8)
                return
            }
            let current = try? String(contentsOfFile: path, encoding: .utf8)
            #expect(
                current == generated,
                "\(relative) is out of date; re-record with MEDIACACHE_RECORD=1 swift test --filter GeneratedFiles")
        }
    }
}
