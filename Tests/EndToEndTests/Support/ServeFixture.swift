import Foundation

/// A `mediacache serve` started on a free port of 127.0.0.1 for one test, and a real
/// HTTP client (the curl tool) to ask it things.
final class ServeFixture {
    let process: MediaCacheProcess.Running
    let baseURL: String
    let cache: String

    init(
        cache: String, _ extra: [String] = [], environment: [String: String] = [:], listen: String = "127.0.0.1:0",
        fileLimit: MediaCacheProcess.FileLimit? = nil
    ) throws {
        self.cache = cache
        let process = try MediaCacheProcess.start(
            ["serve", "--listen", listen, "--cache-dir", cache] + extra, environment: environment, fileLimit: fileLimit)
        self.process = process
        var base: String?
        Harness.waitUntil(timeout: 15) {
            let first = process.stdoutSoFar.split(separator: "\n").first.map(String.init) ?? ""
            guard first.hasPrefix("listening on ") else { return !process.process.isRunning }
            base = String(first.dropFirst("listening on ".count))
            return true
        }
        guard let base else {
            let result = process.wait(timeout: 1)
            throw ServeFailed(message: "serve did not start: \(result.stderr)")
        }
        baseURL = base
    }

    deinit { stop() }

    @discardableResult
    func stop(_ signal: Int32 = SIGTERM) -> RunResult {
        if process.process.isRunning { process.signal(signal) }
        return process.wait(timeout: 10)
    }

    /// `mediacache url` for `url` against this server.
    func localURL(_ url: String, _ extra: [String] = []) throws -> String {
        let result = try MediaCacheProcess.run(["url", url, "--cache-dir", cache] + extra)
        guard result.status == 0 else { throw ServeFailed(message: "url failed: \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

struct ServeFailed: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// One response as curl received it.
struct CurlResponse {
    var status: Int
    /// Header names lowercased; the last value of each.
    var headers: [String: String]
    var body: [UInt8]
    var exitCode: Int32

    /// `curl` with `arguments` (headers as `-H`, `-I` for HEAD, ...) for `url`.
    static func fetch(_ url: String, _ arguments: [String] = [], timeout: Double = 30) throws -> CurlResponse {
        let scratch = Scratch()
        let headerFile = scratch.path + "/headers"
        let bodyFile = scratch.path + "/body"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments =
            ["-s", "--noproxy", "*", "--max-time", "\(Int(timeout))", "-D", headerFile, "-o", bodyFile] + arguments + [url]
        try process.run()
        process.waitUntilExit()
        let headerText = (try? String(contentsOfFile: headerFile, encoding: .utf8)) ?? ""
        var status = 0
        var headers: [String: String] = [:]
        for line in headerText.split(separator: "\r\n") {
            if line.hasPrefix("HTTP/") {
                status = Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
                headers = [:]
            } else if let colon = line.firstIndex(of: ":") {
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return CurlResponse(
            status: status, headers: headers, body: TestBytes.read(bodyFile) ?? [], exitCode: process.terminationStatus)
    }
}
