/// Why a file failed, with a stable code for scripts.
public struct JobFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case httpStatus = "http-status"
        case notMedia = "not-media"
        case checksumMismatch = "checksum-mismatch"
        case retriesExhausted = "retries-exhausted"
        case originUnstable = "origin-unstable"
        case badResponse = "bad-response"
        case redirect
        /// A URL that cannot be fetched (libcurl refused to make the request).
        case badURL = "bad-url"
        /// The server's TLS certificate was not trusted (`--insecure` skips the check).
        case tls
        case io
        /// The tier could not give the file, and nothing else may (`pull`, `--tier-required`).
        case tier
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    /// A failure that asking again will not change (the origin said the file is not
    /// there, not media, or the URL cannot be fetched): nothing of the download is kept
    /// for `resume` unless bytes of it are.
    public var isDefinite: Bool {
        switch code {
        case .httpStatus, .notMedia, .badURL, .redirect: true
        default: false
        }
    }
}
