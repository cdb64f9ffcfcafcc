import Foundation

/// A real S3-compatible store for the tier tests: `weed server` (SeaweedFS) with master,
/// volume, filer and S3 gateway on 127.0.0.1, every port chosen free and given
/// explicitly, data in a temporary directory.
///
/// One server is shared by the whole test process (`SeaweedFS.shared()`: starting one
/// takes seconds); tests keep apart by using a bucket each. `stop()` ends it by pid
/// (SIGTERM, up to 10 s, then SIGKILL), at the latest when the test process exits. If
/// that process dies without exiting (a crash, SIGKILL), a watcher started beside weed
/// sees the pipe from this process close and ends weed the same way.
final class SeaweedFS: @unchecked Sendable {
    let endpoint: String
    let accessKey = "mediacache-tests"
    /// Random per server, so a test can check that no output ever contains it.
    let secretKey = "seaweed-" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    let region = "us-east-1"
    /// `weed`'s own output, for diagnosing a failed start.
    let logPath: String

    private let directory: String
    /// weed's gRPC Unix sockets, which it always puts in /tmp.
    private let sockets: [String]
    /// `weed` itself, once the shell that starts it has exec'd.
    private let process = Process()
    private let watcherInput = Pipe()
    private let stopping = NSLock()
    private var isStopped = false

    /// Where Scripts/install-deps puts `weed`; MEDIACACHE_WEED overrides it.
    static var binary: String {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["MEDIACACHE_WEED"], !path.isEmpty { return path }
        let cache = environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? (NSHomeDirectory() + "/.cache")
        return cache + "/mediacache-test-tools/seaweedfs/bin/weed"
    }

    private static let sharedServer: Result<SeaweedFS, any Error> = Result {
        // A start can fail on its own (once CI saw the volume server's gRPC service die
        // at start and the gateway never answer), and every tier test of the process
        // would fail with it: a failed start is tried again, on new ports.
        var attempt = 0
        while true {
            attempt += 1
            do {
                let server = try SeaweedFS()
                // Stopped when the test process exits, so `swift test` leaves no weed behind.
                atexit { try? SeaweedFS.sharedServer.get().stop() }
                return server
            } catch is StartFailed where attempt < 3 {
                continue
            }
        }
    }

    /// The server every tier test uses, started on first use.
    static func shared() throws -> SeaweedFS { try sharedServer.get() }

    init() throws {
        let binary = Self.binary
        guard FileManager.default.isExecutableFile(atPath: binary) else { throw Missing(path: binary) }
        directory = NSTemporaryDirectory() + "mediacache-seaweedfs-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory + "/data", withIntermediateDirectories: true)
        logPath = directory + "/weed.log"

        let identities = """
            {"identities": [{"name": "tests", "credentials": [{"accessKey": "\(accessKey)", "secretKey": "\(secretKey)"}],
              "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}
            """
        try Data(identities.utf8).write(to: URL(fileURLWithPath: directory + "/identities.json"))

        let ports = LoopbackPorts.free(8)
        endpoint = "http://127.0.0.1:\(ports[0])"
        sockets = [("s3", ports[1]), ("master", ports[3]), ("volume", ports[5]), ("filer", ports[7])].map {
            "/tmp/seaweedfs-\($0.0)-grpc-\($0.1).sock"
        }
        let arguments = [
            "server", "-dir=\(directory)/data", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
            "-s3", "-s3.port=\(ports[0])", "-s3.port.grpc=\(ports[1])", "-s3.config=\(directory)/identities.json",
            "-master.port=\(ports[2])", "-master.port.grpc=\(ports[3])",
            "-volume.port=\(ports[4])", "-volume.port.grpc=\(ports[5])",
            "-filer.port=\(ports[6])", "-filer.port.grpc=\(ports[7])",
            // Unix sockets beside the data, not in the shared /tmp.
            "-filer.localSocket=\(directory)/filer.sock", "-s3.localSocket=\(directory)/s3.sock",
            // Off: the Iceberg and Lance catalogues (their own default ports) and telemetry
            // (tests reach nothing beyond 127.0.0.1).
            "-s3.port.iceberg=0", "-s3.port.lance=0", "-master.telemetry=false",
            // Each bucket is a collection that grows volumes of its own (7 at its first
            // write): small volumes, and room for many (they take no space until written).
            // No grace period for the volume server on shutdown.
            "-master.volumeSizeLimitMB=64", "-volume.max=2000", "-volume.preStopSeconds=0",
        ]
        // The shell leaves a watcher behind and becomes weed (exec), so weed is this
        // process's child. The watcher reads this process's pipe: a line means `stop()`
        // is ending weed; end of file means this process is gone, so it ends weed itself.
        let script = """
            exec 3<&0
            (
              if read -r line <&3; then exit 0; fi
              kill -TERM $$ 2>/dev/null
              i=0
              while kill -0 $$ 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
              kill -KILL $$ 2>/dev/null
              rm -rf "$WEED_DIR" $WEED_SOCKETS
            ) &
            exec "$0" "$@" </dev/null 3<&- >"$WEED_LOG" 2>&1
            """
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script, binary] + arguments
        process.environment = [
            "WEED_LOG": logPath, "WEED_DIR": directory, "WEED_SOCKETS": sockets.joined(separator: " "),
            "PATH": "/usr/bin:/bin",
        ]
        process.standardInput = watcherInput
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()

        do {
            try waitUntilReady(timeout: 30)
        } catch {
            stop()
            throw error
        }
    }

    deinit { stop() }

    /// Waits until the S3 gateway answers a signed request with its verdict, not with
    /// an error of a service still starting.
    private func waitUntilReady(timeout: Double) throws {
        let deadline = Date().addingTimeInterval(timeout)
        var last = ""
        while Date() < deadline {
            guard process.isRunning else { throw StartFailed(reason: "weed exited", log: logTail()) }
            if let status = try? curl(["-o", "/dev/null", "-w", "%{http_code}", endpoint + "/"]) {
                last = status
                if status == "200" { return }
            }
            usleep(200_000)
        }
        throw StartFailed(
            reason: "the S3 gateway did not answer within \(Int(timeout)) s (last status \(last))", log: logTail())
    }

    /// The variables a user sets for this store (`secret` replaces the real one).
    func environment(secret: String? = nil) -> [String: String] {
        [
            "AWS_ACCESS_KEY_ID": accessKey, "AWS_SECRET_ACCESS_KEY": secret ?? secretKey,
            "AWS_ENDPOINT_URL": endpoint, "AWS_REGION": region,
        ]
    }

    /// Creates a bucket with a fresh name and returns the name.
    func makeBucket() throws -> String {
        let name = "t-" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(20)
        // A new bucket can meet a filer that is still settling: a few tries.
        var status = ""
        for _ in 0..<20 {
            status = try curl(["-o", "/dev/null", "-w", "%{http_code}", "-X", "PUT", endpoint + "/" + name])
            if status == "200" { return name }
            usleep(250_000)
        }
        throw StartFailed(reason: "creating bucket \(name) answered \(status)", log: logTail())
    }

    /// Runs the curl command-line tool, signed as this server's user (a request without
    /// a body), and returns what it printed.
    func curl(_ arguments: [String]) throws -> String {
        let emptyPayload = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        let result = try ExternalTool.run(
            "/usr/bin/curl",
            [
                "-s", "--max-time", "10", "--aws-sigv4", "aws:amz:\(region):s3", "--user", "\(accessKey):\(secretKey)",
                "-H", "x-amz-content-sha256: \(emptyPayload)",
            ] + arguments)
        return result.stdout
    }

    /// Ends weed (SIGTERM, up to `grace` seconds, then SIGKILL; 0: an outage, at once)
    /// and removes its data and sockets.
    func stop(grace: Double = 10) {
        let first = stopping.withLock {
            defer { isStopped = true }
            return !isStopped
        }
        guard first else { return }
        // The watcher leaves weed to this process from here on.
        try? watcherInput.fileHandleForWriting.write(contentsOf: Data("stopped\n".utf8))
        try? watcherInput.fileHandleForWriting.close()
        if process.isRunning {
            kill(process.processIdentifier, grace > 0 ? SIGTERM : SIGKILL)
            // weed's filer waits 15 s for its subscriptions to end: this gives up sooner.
            let deadline = Date().addingTimeInterval(grace)
            while process.isRunning && Date() < deadline { usleep(50_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
        for socket in sockets { unlink(socket) }
    }

    private func logTail() -> String {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(20).joined(separator: "\n")
    }

    /// `count` distinct free loopback ports: all held open at once while choosing, so
    /// none is handed out twice.
    struct Missing: Error, CustomStringConvertible {
        let path: String
        var description: String {
            "SeaweedFS's weed is not installed at \(path); Scripts/install-deps installs it (or set MEDIACACHE_WEED)"
        }
    }

    struct StartFailed: Error, CustomStringConvertible {
        let reason: String
        let log: String
        var description: String { "SeaweedFS did not start: \(reason)\n\(log)" }
    }
}
