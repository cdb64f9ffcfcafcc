/// What libcurl needs to sign a request for an S3-compatible store with AWS Signature
/// Version 4 (`CURLOPT_AWS_SIGV4`). `CurlEasy` turns it into options and headers.
public struct S3Signing: Sendable, Equatable {
    /// The region the signature is scoped to (`AWS_REGION`; stores other than AWS
    /// mostly accept any, commonly `us-east-1`).
    public var region: String
    public var credentials: S3Credentials
    /// The `x-amz-content-sha256` value: the body's SHA-256 in lowercase hex. libcurl
    /// 7.88 does not compute it for uploads, and the store checks the body against it.
    public var payloadHash: String

    /// SHA-256 of no bytes: the payload hash of GET, HEAD and DELETE.
    public static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    public init(region: String, credentials: S3Credentials, payloadHash: String = S3Signing.emptyPayloadHash) {
        self.region = region
        self.credentials = credentials
        self.payloadHash = payloadHash
    }
}

/// An access key and its secret (and a session token for temporary credentials).
/// Printing one never shows the secret or the token.
public struct S3Credentials: Sendable, Equatable, CustomStringConvertible {
    public var accessKeyID: String
    public var secretAccessKey: String
    public var sessionToken: String?

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    public var description: String { "access key \(accessKeyID) (secret not shown)" }
}
