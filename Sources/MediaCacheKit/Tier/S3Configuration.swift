import Foundation

/// How to reach one tier: the store's endpoint, the bucket and prefix, the region and
/// credentials to sign with. Nothing assumes AWS: the endpoint is always given.
public struct S3Configuration: Sendable {
    public let location: TierLocation
    /// `scheme://host[:port][/path]`, without a trailing slash. Requests are path-style:
    /// `ENDPOINT/BUCKET/KEY`.
    public let endpoint: String
    public let region: String
    public let credentials: S3Credentials
    /// Seconds to connect, and the longest a request may go without a byte moving.
    public var timeout = 15
    /// Attempts for a request the store or the network failed for a moment.
    public var attempts = 3
    public var verifyTLS = true

    public static let defaultRegion = "us-east-1"

    public init(location: TierLocation, endpoint: String, region: String, credentials: S3Credentials) throws(TierError) {
        self.location = location
        self.endpoint = try Self.checkedEndpoint(endpoint)
        self.region = region
        self.credentials = credentials
    }

    /// `endpoint` (from `--s3-endpoint`) or `AWS_ENDPOINT_URL`; `AWS_ACCESS_KEY_ID`,
    /// `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`; `AWS_REGION`, else us-east-1. Empty
    /// variables count as unset.
    public static func fromEnvironment(
        location: TierLocation, endpoint: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(TierError) -> S3Configuration {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        guard let endpoint = endpoint.flatMap({ $0.isEmpty ? nil : $0 }) ?? value("AWS_ENDPOINT_URL") else {
            throw .missingEndpoint
        }
        let missing = ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"].filter { value($0) == nil }
        guard missing.isEmpty, let key = value("AWS_ACCESS_KEY_ID"), let secret = value("AWS_SECRET_ACCESS_KEY") else {
            throw .missingCredentials(variables: missing)
        }
        let credentials = S3Credentials(
            accessKeyID: key, secretAccessKey: secret, sessionToken: value("AWS_SESSION_TOKEN"))
        return try S3Configuration(
            location: location, endpoint: endpoint, region: value("AWS_REGION") ?? defaultRegion,
            credentials: credentials)
    }

    private static func checkedEndpoint(_ text: String) throws(TierError) -> String {
        func invalid(_ reason: String) -> TierError { .invalidEndpoint(text, reason: reason) }
        let lower = text.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
            throw invalid("it must start with http:// or https://")
        }
        guard let parts = URLComponents(string: text), let host = parts.host, !host.isEmpty else {
            throw invalid("not a URL with a host")
        }
        // A login in the URL would be printed wherever the endpoint is.
        if parts.user != nil || parts.password != nil {
            throw invalid("credentials belong in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, not in the URL")
        }
        if parts.query != nil || parts.fragment != nil { throw invalid("it may not have a query or fragment") }
        var trimmed = text
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        return trimmed
    }
}
