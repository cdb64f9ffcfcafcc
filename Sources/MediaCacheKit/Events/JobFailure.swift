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
        /// The proxy refused (a login, or its policy): every request through it would.
        case proxy
    }

    /// What went wrong, for callers that act on a failure rather than print it (`serve`
    /// answers a timeout with 504, everything else from upstream with 502).
    public enum Cause: Sendable, Equatable {
        /// Requests ended without a complete answer: a network error, a stall, an
        /// untrusted certificate, a URL libcurl refused.
        case transfer(TransferError.Kind)
        /// The origin answered with this HTTP status.
        case status(Int)
        /// The origin answered, but not with the file: an error page, an answer that
        /// contradicts itself or keeps changing, a redirect that cannot be followed.
        case answer
        /// The bytes arrived but did not become the cached object.
        case commit(CommitError.Kind)
        /// The disk or the cache's own files failed.
        case storage
        /// The tier could not give the file, and nothing else may.
        case tier
    }

    public var code: Code
    public var message: String
    public var cause: Cause
    /// Set when the job ends: its state is kept under `partial/`, so `resume` tries again.
    public var keptForResume = false
    /// A streaming title's counts when it failed, with what it still lacks.
    public var title: TitleCounts?

    /// `cause` may be left out where the code says it all (answers, storage, the tier).
    public init(_ code: Code, _ message: String, cause: Cause? = nil) {
        self.code = code
        self.message = message
        self.cause = cause ?? Self.cause(implied: code)
    }

    private static func cause(implied code: Code) -> Cause {
        switch code {
        case .badURL: .transfer(.refused)
        case .tls: .transfer(.untrustedCertificate)
        case .proxy: .transfer(.proxyRefused)
        case .io: .storage
        case .tier: .tier
        case .checksumMismatch: .commit(.checksumMismatch)
        // A status or a run of failures always says which, where it is made.
        case .httpStatus, .retriesExhausted, .notMedia, .originUnstable, .badResponse, .redirect: .answer
        }
    }

    public var description: String { message }

    /// A failure that asking again will not change (the origin said the file is not
    /// there, not media, or the URL cannot be fetched): nothing of the download is kept
    /// for `resume` unless bytes of it are.
    public var isDefinite: Bool {
        switch code {
        case .httpStatus, .notMedia, .badURL, .redirect, .proxy: true
        default: false
        }
    }
}

extension JobFailure.Code {
    /// The code of a transfer error that trying again cannot mend; nil for the others.
    init?(definite kind: TransferError.Kind) {
        switch kind {
        case .refused: self = .badURL
        case .untrustedCertificate: self = .tls
        case .unreadableAnswer: self = .badResponse
        case .proxyRefused: self = .proxy
        case .network, .timedOut, .aborted: return nil
        }
    }
}
