import Foundation
import TestOrigin

/// Shortcuts the end-to-end tests share: run a prefetch into a scratch cache and look
/// objects up the way a user would (`mediacache path`).
struct Harness {
    let scratch = Scratch()

    func prefetch(list: String, _ extra: [String] = [], timeout: Double = 60) throws -> RunResult {
        let file = scratch.write("list.txt", list)
        return try MediaCacheProcess.run(["prefetch", file, "--cache-dir", scratch.cache] + extra, timeout: timeout)
    }

    func startPrefetch(list: String, _ extra: [String] = []) throws -> MediaCacheProcess.Running {
        let file = scratch.write("list.txt", list)
        return try MediaCacheProcess.start(["prefetch", file, "--cache-dir", scratch.cache] + extra)
    }

    func run(_ arguments: [String], timeout: Double = 60) throws -> RunResult {
        try MediaCacheProcess.run(arguments + ["--cache-dir", scratch.cache], timeout: timeout)
    }

    /// The cached bytes for `url` via `mediacache path`, or nil when it is not cached.
    func cachedBytes(_ url: String) throws -> [UInt8]? {
        let result = try run(["path", url])
        guard result.status == 0 else { return nil }
        return TestBytes.read(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Body bytes the origin sent for `path` in all requests so far.
    static func bytesServed(_ origin: TestOrigin, _ path: String) -> Int {
        origin.requests(for: path).reduce(0) { $0 + $1.bodyBytesSent }
    }

    /// Polls `condition` every 20 ms for at most `timeout` seconds.
    @discardableResult
    static func waitUntil(timeout: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            usleep(20_000)
        }
        return condition()
    }

    /// Bytes recorded as done in the saved job state (what a crash would keep).
    func savedBytes() throws -> Int64 {
        try statusItems(state: "partial").compactMap { ($0["bytes_done"] as? NSNumber)?.int64Value }.reduce(0, +)
    }

    /// The URLs `resume` would take up again: partial downloads and entries not started.
    func resumableURLs() throws -> [String] {
        try (statusItems(state: "partial") + statusItems(state: "queued")).compactMap { $0["url"] as? String }
    }

    /// `status --json` lines of one state (`partial`, `queued`, `failed`).
    func statusItems(state: String) throws -> [[String: Any]] {
        let result = try run(["status", "--json"])
        return result.stdout.split(separator: "\n").compactMap { line in
            guard let data = line.data(using: .utf8),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                object["state"] as? String == state
            else { return nil }
            return object
        }
    }
}
