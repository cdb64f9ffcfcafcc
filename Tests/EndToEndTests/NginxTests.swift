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
    }
}

/// A throwaway nginx on a free loopback port, serving `root` over HTTP, or over HTTPS
/// with a self-signed certificate made for the occasion (`tls: true`).
final class NginxServer {
    let port: Int
    let accessLog: String
    let scheme: String
    private let prefix: String
    private let process = Process()

    init(root: String, scratch: String, tls: Bool = false) throws {
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
                access_log \(accessLog);
                client_body_temp_path \(prefix)/tmp;
                proxy_temp_path \(prefix)/tmp;
                fastcgi_temp_path \(prefix)/tmp;
                uwsgi_temp_path \(prefix)/tmp;
                scgi_temp_path \(prefix)/tmp;
                sendfile on;
                server {
                    \(listen)
                    root \(root);
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
