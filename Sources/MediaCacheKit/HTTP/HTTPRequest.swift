/// One request the engine asks libcurl to make: a GET for downloads; other methods and
/// a body for the S3 tier.
public struct HTTPRequest: Sendable, Equatable {
    public var url: String
    /// `scheme://host:port` of `url` when whoever made the request parsed it already:
    /// the host gate counts connections by it, and parsing a URL costs more than the rest
    /// of a small file's request.
    public var origin: String?
    /// `Name: value` lines, including Range and If-Range.
    public var headers: [String]
    /// Connect timeout and low-speed window (no byte for this long fails the transfer).
    public var stallTimeout: Int
    /// Bytes per second a transfer must exceed over `stallTimeout`; 0: any byte will do.
    public var lowSpeedLimit: Int
    /// Check the server's TLS certificate and host name (`--insecure` turns this off).
    public var verifyTLS: Bool
    /// Proxy, cookies, netrc and Referer.
    public var client = ClientSettings()
    public var method = HTTPMethod.get
    /// What a PUT or POST sends; nil: no body.
    public var body: HTTPRequestBody?
    /// Sign the request for an S3-compatible store (SigV4); nil: unsigned.
    public var s3Signing: S3Signing?

    public init(url: String, headers: [String], stallTimeout: Int, lowSpeedLimit: Int = 0, verifyTLS: Bool = true) {
        self.url = url
        self.headers = headers
        self.stallTimeout = stallTimeout
        self.lowSpeedLimit = lowSpeedLimit
        self.verifyTLS = verifyTLS
    }
}

public enum HTTPMethod: String, Sendable, Equatable {
    case get = "GET"
    case head = "HEAD"
    case put = "PUT"
    case post = "POST"
    case delete = "DELETE"
}

/// The bytes a request sends, streamed to libcurl as it asks for them.
public enum HTTPRequestBody: Sendable, Equatable {
    case bytes([UInt8])
    /// `range` of the file at `path`, read block by block (never loaded whole).
    case file(path: String, range: ByteRange)

    public var count: Int64 {
        switch self {
        case .bytes(let bytes): Int64(bytes.count)
        case .file(_, let range): range.count
        }
    }
}

/// Why a transfer ended without a complete response.
public struct TransferError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Connection refused, reset, cut short, DNS, TLS: worth retrying.
        case network
        /// Nothing (or too little) arrived within the stall timeout.
        case timedOut
        /// The server's TLS certificate is not trusted: retrying cannot help.
        case untrustedCertificate
        /// The engine stopped the transfer on purpose.
        case aborted
        /// libcurl would not make the request (a URL it cannot parse or a scheme it
        /// lacks): the same request fails the same way every time.
        case refused
        /// libcurl could not read the origin's answer (a head line past its 100 KiB
        /// limit): the same answer fails the same way every time.
        case unreadableAnswer
        /// The proxy refused: a login it wants or refused (407, a SOCKS rejection), or
        /// its policy (a CONNECT answered 403): asking again gets the same answer.
        case proxyRefused
    }

    public var kind: Kind
    public var message: String

    public var description: String { message }
}
