import Foundation
import Testing

extension EndToEnd {
    /// Against a real server: nginx (installed by .ci/run) serving files from disk.
    @Suite struct Nginx {
        @Test func prefetchFromNginxIsByteExact() throws {
            let harness = Harness()
            let root = harness.scratch.path + "/www"
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            let big = TestBytes.make(24 << 20, seed: 31)
            let small = TestBytes.make(700_000, seed: 32)
            FileManager.default.createFile(atPath: root + "/big.mp4", contents: Data(big))
            FileManager.default.createFile(atPath: root + "/small.m4a", contents: Data(small))
            let server = try NginxServer(root: root, scratch: harness.scratch.path)
            defer { server.stop() }
            let list = "\(server.url("/big.mp4"))\n\(server.url("/small.m4a"))\n"
            let result = try harness.prefetch(list: list, ["-x", "4"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try harness.cachedBytes(server.url("/big.mp4")) == big)
            #expect(try harness.cachedBytes(server.url("/small.m4a")) == small)
            let log = (try? String(contentsOfFile: server.accessLog, encoding: .utf8)) ?? ""
            #expect(log.split(separator: "\n").filter { $0.contains("/big.mp4") && $0.contains(" 206 ") }.count >= 4)
        }

        /// nginx's `limit_rate` sends each connection a second's worth at a time, all of a
        /// file's connections on the same beat. A range cut inside a burst, or asked for
        /// again just before the next one, has bytes the origin sent already fetched
        /// twice; with the defaults, at most 1 % of the file is.
        @Test func aThrottledNginxSendsAlmostEveryByteOnce() throws {
            let harness = Harness()
            let root = harness.scratch.path + "/www"
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            let bytes = TestBytes.make(64 << 20, seed: 33)
            FileManager.default.createFile(atPath: root + "/throttled.bin", contents: Data(bytes))
            let server = try NginxServer(root: root, scratch: harness.scratch.path, limitRate: "2m")
            defer { server.stop() }
            let url = server.url("/throttled.bin")
            let result = try harness.prefetch(list: url, [], timeout: 60)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try harness.cachedBytes(url) == bytes)
            // nginx logs a cut request once it notices the closed connection.
            Thread.sleep(forTimeInterval: 1.5)
            let served = server.bodyBytesSent(for: "/throttled.bin")
            #expect(served >= bytes.count)
            #expect(Double(served) <= 1.01 * Double(bytes.count), "served \(served) bytes for \(bytes.count)")
        }

        /// The same for a title's one file in byte ranges (single-file HLS), which comes in
        /// pieces: the back of a piece is shared between two of its bursts, past what its
        /// socket holds, and the piece stops at the cut at once rather than when the next
        /// burst arrives to be thrown away (before: about 9 % of a 53 MiB file twice).
        @Test func aThrottledNginxSendsAlmostEveryByteOfATitlesFileOnce() throws {
            let harness = Harness()
            let root = harness.scratch.path + "/www"
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            // MPEG-TS packets (a sync byte every 188) of random bytes, in 100 ranges.
            var bytes = TestBytes.make(40 << 20, seed: 34)
            for offset in stride(from: 0, to: bytes.count, by: 188) { bytes[offset] = 0x47 }
            FileManager.default.createFile(atPath: root + "/media.ts", contents: Data(bytes))
            let ranges = (0..<100).map { bytes.count * $0 / 100..<bytes.count * ($0 + 1) / 100 }
            let playlist = ["#EXTM3U", "#EXT-X-VERSION:4", "#EXT-X-TARGETDURATION:2", "#EXT-X-PLAYLIST-TYPE:VOD"]
                + ranges.flatMap { ["#EXTINF:2.0,", "#EXT-X-BYTERANGE:\($0.count)@\($0.lowerBound)", "media.ts"] }
                + ["#EXT-X-ENDLIST", ""]
            FileManager.default.createFile(atPath: root + "/index.m3u8", contents: Data(playlist.joined(separator: "\n").utf8))
            let server = try NginxServer(root: root, scratch: harness.scratch.path, limitRate: "2m")
            defer { server.stop() }
            let url = server.url("/index.m3u8")
            let result = try harness.prefetch(list: url, [], timeout: 60)
            #expect(result.status == 0, "\(result.stderr)")
            let playlistPath = try harness.run(["path", url]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let directory = (playlistPath as NSString).deletingLastPathComponent
            let media = try TitleFixtures.files(in: directory).filter { $0.hasSuffix(".ts") }
            #expect(media.count == 1 && TestBytes.read(directory + "/" + media[0]) == bytes, "\(media)")
            Thread.sleep(forTimeInterval: 1.5)
            let log = (try? String(contentsOfFile: server.accessLog, encoding: .utf8)) ?? ""
            #expect(log.split(separator: "\n").filter { $0.hasPrefix("/media.ts 206 ") }.count > 8, "\(log)")
            let served = server.bodyBytesSent(for: "/media.ts")
            #expect(served >= bytes.count)
            #expect(Double(served) <= 1.01 * Double(bytes.count), "served \(served) bytes for \(bytes.count)")
        }
    }
}

/// A throwaway nginx on a free loopback port, serving `root` over HTTP, or over HTTPS
/// with a self-signed certificate made for the occasion (`tls: true`).
final class NginxServer {
    let port: Int
    let accessLog: String
    let scheme: String
    /// The certificate it serves (`tls: true`), which is its own CA.
    var certificate: String { prefix + "/cert.pem" }
    private let prefix: String
    private let process = Process()

    /// `limitRate`: nginx's `limit_rate` per connection (`2m`), if any.
    init(root: String, scratch: String, tls: Bool = false, limitRate: String? = nil) throws {
        guard let binary = ["/usr/sbin/nginx", "/usr/bin/nginx"].first(where: FileManager.default.isExecutableFile)
        else { throw NginxMissing() }
        prefix = scratch + "/nginx"
        try FileManager.default.createDirectory(atPath: prefix + "/logs", withIntermediateDirectories: true)
        port = LoopbackPorts.free(1)[0]
        accessLog = prefix + "/logs/access.log"
        scheme = tls ? "https" : "http"
        var listen = "listen 127.0.0.1:\(port);"
        if tls {
            try SelfSignedCertificate.make(certificate: prefix + "/cert.pem", key: prefix + "/key.pem")
            listen = """
                listen 127.0.0.1:\(port) ssl;
                            ssl_certificate \(prefix)/cert.pem;
                            ssl_certificate_key \(prefix)/key.pem;
                """
        }
        let config = """
            daemon off;
            worker_processes 1;
            pid \(prefix)/nginx.pid;
            error_log \(prefix)/logs/error.log;
            events { worker_connections 256; }
            http {
                include /etc/nginx/mime.types;
                log_format sent '$request_uri $status $body_bytes_sent';
                access_log \(accessLog) sent;
                client_body_temp_path \(prefix)/tmp;
                proxy_temp_path \(prefix)/tmp;
                fastcgi_temp_path \(prefix)/tmp;
                uwsgi_temp_path \(prefix)/tmp;
                scgi_temp_path \(prefix)/tmp;
                sendfile on;
                server {
                    \(listen)
                    root \(root);
                    \(limitRate.map { "limit_rate \($0);" } ?? "")
                }
            }
            """
        let configPath = prefix + "/nginx.conf"
        FileManager.default.createFile(atPath: configPath, contents: Data(config.utf8))
        // In the foreground, so the test owns the process and always reaps it.
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["-p", prefix, "-c", configPath]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let port = self.port
        let ready = Harness.waitUntil(timeout: 5) { NginxServer.accepts(port: port) }
        guard ready, process.isRunning else {
            stop()
            throw NginxMissing()
        }
    }

    func url(_ path: String) -> String { "\(scheme)://127.0.0.1:\(port)\(path)" }

    /// Body bytes nginx logged as sent for `path`, over every request.
    func bodyBytesSent(for path: String) -> Int {
        let log = (try? String(contentsOfFile: accessLog, encoding: .utf8)) ?? ""
        return log.split(separator: "\n").reduce(0) { total, line in
            let fields = line.split(separator: " ")
            guard fields.count == 3, fields[0] == path else { return total }
            return total + (Int(fields[2]) ?? 0)
        }
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        _ = Harness.waitUntil(timeout: 5) { !self.process.isRunning }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = LoopbackPorts.address(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}

struct NginxMissing: Error, CustomStringConvertible {
    var description: String { "nginx is not installed or failed to start; .ci/run installs it (apt-get install nginx-light)" }
}


/// `openssl req -x509`: a one-day self-signed certificate for 127.0.0.1.
enum SelfSignedCertificate {
    static func make(certificate: String, key: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", key, "-out", certificate, "-days", "1", "-subj", "/CN=127.0.0.1",
            "-addext", "subjectAltName=IP:127.0.0.1",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw OpenSSLFailed() }
    }

    struct OpenSSLFailed: Error, CustomStringConvertible {
        var description: String { "openssl req -x509 failed; Scripts/install-deps installs openssl" }
    }
}
