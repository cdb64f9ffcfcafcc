import CCurl

extension CurlEasy {
    /// Has libcurl sign the request with AWS Signature Version 4 for service `s3`, and
    /// returns the headers the signature needs that libcurl 7.88 does not add itself.
    /// The headers sent are signed as they are: a URL's query must already be in
    /// canonical form (names sorted, values percent-encoded), which `S3Client` builds.
    func apply(_ signing: S3Signing) -> [String] {
        setString(CURLOPT_AWS_SIGV4, "aws:amz:\(signing.region):s3")
        // Separate options rather than CURLOPT_USERPWD's "key:secret", which would
        // split a key at a colon.
        setString(CURLOPT_USERNAME, signing.credentials.accessKeyID)
        setString(CURLOPT_PASSWORD, signing.credentials.secretAccessKey)
        var headers = ["x-amz-content-sha256: \(signing.payloadHash)"]
        if let token = signing.credentials.sessionToken { headers.append("x-amz-security-token: \(token)") }
        return headers
    }
}
