/// One GET the engine asks libcurl to make.
public struct HTTPRequest: Sendable, Equatable {
    public var url: String
    /// `Name: value` lines, including Range and If-Range.
    public var headers: [String]
    /// Connect timeout and low-speed window (no byte for this long fails the transfer).
    public var stallTimeout: Int

    public init(url: String, headers: [String], stallTimeout: Int) {
        self.url = url
        self.headers = headers
        self.stallTimeout = stallTimeout
    }
}

/// Why a transfer ended without a complete response.
public struct TransferError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Connection refused, reset, cut short, DNS, TLS: worth retrying.
        case network
        /// Nothing arrived within the stall timeout.
        case timedOut
        /// The engine stopped the transfer on purpose.
        case aborted
    }

    public var kind: Kind
    public var message: String

    public var description: String { message }
}
