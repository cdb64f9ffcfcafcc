import Foundation
import Synchronization

/// The certificate authorities a TLS server's certificate is checked against: the
/// system's (libcurl's default bundle), or those a user names for a private CA, as curl
/// takes them: `--ca-certificate FILE` (aria2's name; curl's `--cacert`), else the
/// environment's `CURL_CA_BUNDLE`, `SSL_CERT_FILE` or `SSL_CERT_DIR`. Every request of
/// the process uses them, the tier's included.
public enum CertificateAuthorities {
    struct Choice: Equatable {
        var file: String?
        var directory: String?
    }

    private static let named = Mutex<String?>(nil)

    /// The bundle the command line names, for every request from now on.
    public static func use(file: String) { named.withLock { $0 = file } }

    static var current: Choice {
        if let file = named.withLock({ $0 }) { return Choice(file: file, directory: nil) }
        return fromEnvironment
    }

    /// Read once: the environment does not change under a run.
    private static let fromEnvironment: Choice = {
        let environment = ProcessInfo.processInfo.environment
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        return Choice(file: value("CURL_CA_BUNDLE") ?? value("SSL_CERT_FILE"), directory: value("SSL_CERT_DIR"))
    }()
}
