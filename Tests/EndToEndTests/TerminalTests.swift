import Foundation
import Testing
import TestOrigin

extension EndToEnd {
    /// The live progress board, driven through a real terminal (tmux, 60 columns). Runs
    /// take --no-config: tmux's shell does not get MediaCacheProcess's environment.
    @Suite struct Terminal {
        let origin: TestOrigin
        let harness = Harness()

        init() throws { origin = try TestOrigin() }

        func serveSlowFiles() -> String {
            var faults = Faults()
            faults.bytesPerSecond = 700_000
            var urls: [String] = []
            for index in 0..<3 {
                let path = "/a-rather-long-file-name-for-a-narrow-terminal-\(index).mp4"
                origin.serve(path, Resource(TestBytes.make(1_500_000, seed: UInt64(index)), faults: faults))
                urls.append(origin.url(path))
            }
            return harness.scratch.write("list.txt", urls.joined(separator: "\n"))
        }

        @Test func progressIsDrawnInPlaceAndLeavesACleanScreen() throws {
            let list = serveSlowFiles()
            let session = try TmuxSession(
                command: "\(MediaCacheProcess.binary) prefetch \(list) --cache-dir \(harness.scratch.cache) -x 2 --min-fragment 256K --no-config")
            defer { session.kill() }
            let during = Harness.waitUntil(timeout: 10) { session.screen().contains("total: ") }
            let screen = session.screen()
            print("screen during the run:\n\(screen)")
            #expect(during, "no progress board appeared")
            #expect(screen.contains("[#") || screen.contains("[-"))
            #expect(screen.split(separator: "\n").allSatisfy { $0.count <= 60 }, "lines fit a 60-column terminal")
            #expect(Harness.waitUntil(timeout: 30) { session.screen().contains("EXIT=0") })
            let final = session.screen()
            #expect(final.contains("3 done, 0 failed"))
            #expect(!final.contains("total: ") && !final.contains("[#"), "the board is gone:\n\(final)")
            #expect(!session.screen(escapes: true).contains("\u{1B}"), "no colour or stray control codes")
        }

        @Test func ctrlCClearsTheBoard() throws {
            let list = serveSlowFiles()
            let session = try TmuxSession(
                command: "\(MediaCacheProcess.binary) prefetch \(list) --cache-dir \(harness.scratch.cache) -x 2 --min-fragment 256K --no-config")
            defer { session.kill() }
            #expect(Harness.waitUntil(timeout: 10) { session.screen().contains("total: ") })
            session.sendKeys("C-c")
            #expect(Harness.waitUntil(timeout: 10) { session.screen().contains("EXIT=130") })
            let final = session.screen()
            #expect(final.contains("progress is saved"))
            #expect(!final.contains("total: ") && !final.contains("[#"), "the board is gone:\n\(final)")
        }
    }
}

struct TmuxFailed: Error {}

/// A detached tmux session running one command, for reading its screen.
struct TmuxSession {
    let name = "mediacache-\(UUID().uuidString.prefix(8))"

    init(command: String, columns: Int = 60, rows: Int = 24) throws {
        try Self.tmux([
            "new-session", "-d", "-s", name, "-x", "\(columns)", "-y", "\(rows)",
            // The shell ignores Ctrl-C so it can print the command's exit status.
            "sh -c 'trap \"\" INT; \(command); echo EXIT=$?; sleep 60'",
        ])
    }

    func screen(escapes: Bool = false) -> String {
        (try? Self.tmux(["capture-pane", "-p", "-t", name] + (escapes ? ["-e"] : []))) ?? ""
    }

    func sendKeys(_ keys: String) { _ = try? Self.tmux(["send-keys", "-t", name, keys]) }

    func kill() { _ = try? Self.tmux(["kill-session", "-t", name]) }

    /// Runs a tmux client through system(3), output to a file. Foundation's Process
    /// can miss the exit of a client that forks the tmux server and then wait forever.
    @discardableResult
    static func tmux(_ arguments: [String]) throws -> String {
        let output = NSTemporaryDirectory() + "tmux-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let quoted = (["/usr/bin/tmux"] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let status = system(quoted.joined(separator: " ") + " >\(output) 2>/dev/null </dev/null")
        guard status != -1 else { throw TmuxFailed() }
        return (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    }
}
