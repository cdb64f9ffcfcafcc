/// Why the S3 tier could not be used, in words a user can act on. No case carries a
/// secret: messages name the variables to check, never their values.
public enum TierError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The tier location is not `s3://BUCKET/PREFIX`.
    case invalidLocation(String, reason: String)
    /// Neither `--s3-endpoint` nor `AWS_ENDPOINT_URL` names the store.
    case missingEndpoint
    case invalidEndpoint(String, reason: String)
    /// These credential variables are unset or empty.
    case missingCredentials(variables: [String])
    /// The store refused the request's credentials or their rights: InvalidAccessKeyId,
    /// SignatureDoesNotMatch, AccessDenied, ExpiredToken, InvalidToken.
    case credentialsRejected(endpoint: String, code: String, message: String)
    case noSuchBucket(bucket: String, endpoint: String)
    /// No answer: connection refused, name not resolved, timed out.
    case unreachable(endpoint: String, reason: String)
    /// Any other error answer: `operation` on `target` (`s3://bucket/key`).
    case requestFailed(operation: String, target: String, status: Int, code: String?, message: String?)
    /// An answer that does not say what S3 says it should.
    case invalidResponse(operation: String, target: String, reason: String)
    /// A local file could not be read or written (an object to upload, an upload's state).
    case localFile(String)
    /// Stopped on request before it finished; what is saved lets a later run resume.
    case cancelled

    public var description: String {
        switch self {
        case .invalidLocation(let text, let reason):
            return "tier location '\(text)': \(reason) (expected s3://BUCKET/PREFIX)"
        case .missingEndpoint:
            return "the tier needs the URL of its S3 endpoint: give --s3-endpoint URL or set AWS_ENDPOINT_URL"
        case .invalidEndpoint(let text, let reason):
            return "S3 endpoint '\(text)': \(reason)"
        case .missingCredentials(let variables):
            let list = variables.joined(separator: " and ")
            return "the tier needs credentials: set \(list) (\(variables.count == 1 ? "it is" : "they are") unset or empty)"
        case .credentialsRejected(let endpoint, let code, let message):
            let check =
                ["ExpiredToken", "InvalidToken", "TokenRefreshRequired"].contains(code)
                ? "AWS_SESSION_TOKEN (temporary credentials expire), AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"
                : "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"
            let rights = code == "AccessDenied" ? ", and that this key may read and write the tier's bucket" : ""
            return "\(endpoint) refused the credentials (\(code): \(message)): check \(check)\(rights)"
        case .noSuchBucket(let bucket, let endpoint):
            return "bucket '\(bucket)' does not exist at \(endpoint): create it, or name another one in the tier location"
        case .unreachable(let endpoint, let reason):
            return "cannot reach the S3 endpoint \(endpoint): \(reason)"
        case .requestFailed(let operation, let target, let status, let code, let message):
            let detail = [code, message].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ": ")
            return "\(operation) \(target): HTTP \(status)\(detail.isEmpty ? "" : " " + detail)"
        case .invalidResponse(let operation, let target, let reason):
            return "\(operation) \(target): the store's answer is not what S3 sends (\(reason))"
        case .localFile(let message):
            return message
        case .cancelled:
            return "stopped before it finished"
        }
    }

    /// Another attempt may succeed: the store or the way to it had a moment's trouble.
    var isTransient: Bool {
        switch self {
        case .unreachable: true
        case .requestFailed(_, _, let status, let code, _): status >= 500 || status == 429 || code == "SlowDown"
        default: false
        }
    }
}
