import Foundation

/// The S3 operations the tier needs, against any S3-compatible store, path-style and
/// signed with SigV4 by libcurl. Every call blocks the calling thread (any thread; calls
/// may run in parallel) and either returns what the store said or throws a `TierError`
/// a user can act on. Failures that may pass (5xx, SlowDown, no connection) are tried
/// again, `configuration.attempts` times in all.
public final class S3Client: Sendable {
    public let configuration: S3Configuration
    private let userAgent: String

    /// Listings and other XML answers are a page (≤ 1000 entries) long.
    private static let maxAnswerBytes = 16 << 20

    public init(configuration: S3Configuration, userAgent: String = "mediacache/\(MediaCacheVersion.string)") {
        self.configuration = configuration
        self.userAgent = userAgent
    }

    public var location: TierLocation { configuration.location }
    private var bucket: String { configuration.location.bucket }
    private var endpoint: String { configuration.endpoint }

    // MARK: Requests other code sends

    /// The URL of `key`, in the form the signature covers.
    public func url(forKey key: String) -> String {
        S3RequestURL.make(endpoint: endpoint, bucket: bucket, key: key)
    }

    /// How to sign a GET or HEAD (no body): set it as `HTTPRequest.s3Signing` of a
    /// request for `url(forKey:)`, and the download machinery's ranged GETs reach the
    /// store like any origin's. Its headers (Range, If-Range) are signed with it.
    public var bodylessSigning: S3Signing {
        S3Signing(region: configuration.region, credentials: configuration.credentials)
    }

    // MARK: Bucket and objects

    /// Checks that the bucket exists and takes these credentials, by listing at most one
    /// key under the prefix. A HEAD of the bucket would do, but its error answers have
    /// no body: a wrong secret and a missing bucket would look alike.
    public func checkBucket() throws(TierError) {
        _ = try send(
            "check bucket", method: .get, key: nil,
            query: [("list-type", "2"), ("max-keys", "1"), ("prefix", tierPrefix)])
    }

    /// Stores `bytes` as `key`; returns the new object's ETag.
    @discardableResult
    public func putObject(_ key: String, bytes: [UInt8], contentType: String? = nil) throws(TierError) -> String {
        let response = try send(
            "put", method: .put, key: key, headers: contentTypeHeader(contentType), body: .bytes(bytes),
            payloadHash: Digest.sha256Hex(bytes))
        return response.head.value("etag") ?? ""
    }

    /// Stores `range` of the file at `path` as `key`, streamed from the file (never
    /// loaded whole); returns the new object's ETag.
    @discardableResult
    public func putObject(_ key: String, file path: String, range: ByteRange, contentType: String? = nil)
        throws(TierError) -> String
    {
        let hash = try Self.sha256(of: path, range: range)
        let response = try send(
            "put", method: .put, key: key, headers: contentTypeHeader(contentType),
            body: .file(path: path, range: range), payloadHash: hash)
        return response.head.value("etag") ?? ""
    }

    /// The whole object `key` in memory (`maxBytes` at most), or nil when there is none.
    public func getObject(_ key: String, maxBytes: Int) throws(TierError) -> [UInt8]? {
        let response = try send("get", method: .get, key: key, accepting: [404], maxBodyBytes: maxBytes)
        return response.head.status == 404 ? nil : response.body
    }

    /// Exactly `range` of the object `key`, or nil when there is none.
    public func getObject(_ key: String, range: ByteRange) throws(TierError) -> [UInt8]? {
        let response = try send(
            "get", method: .get, key: key, headers: ["Range: " + range.httpRangeValue], accepting: [404],
            maxBodyBytes: Int(range.count))
        return try body(of: response, asking: range, of: key)
    }

    /// `getObject(_:range:)` on the transfer loop, as one of the downloads' transfers
    /// (call on its thread): held to `rateLimits` with them, placed among its host's
    /// transfers by `priority`, and ended with `.cancelled` at its next bytes once
    /// `isCancelled`. `completion` runs on the loop thread, after the same retries of
    /// transient failures.
    func getObject(
        _ key: String, range: ByteRange, on loop: TransferLoop, rateLimits: RateLimits?, priority: Int,
        isCancelled: @escaping @Sendable () -> Bool, attempt: Int = 1,
        completion: @escaping (Result<[UInt8]?, TierError>) -> Void
    ) {
        let request = request(method: .get, key: key, headers: ["Range: " + range.httpRangeValue])
        HTTPExchange.start(
            request, userAgent: userAgent, maxBodyBytes: Int(range.count), on: loop, rateLimits: rateLimits,
            priority: priority, isCancelled: isCancelled
        ) { [self] outcome in
            guard !isCancelled() else { return completion(.failure(.cancelled)) }
            do throws(TierError) {
                let response = try interpret(outcome, operation: "get", key: key, accepting: [404])
                completion(.success(try body(of: response, asking: range, of: key)))
            } catch {
                guard error.isTransient, attempt < configuration.attempts else { return completion(.failure(error)) }
                loop.after(Self.retryDelay(after: attempt)) { [self] in
                    getObject(
                        key, range: range, on: loop, rateLimits: rateLimits, priority: priority,
                        isCancelled: isCancelled, attempt: attempt + 1, completion: completion)
                }
            }
        }
    }

    /// The bytes of a ranged GET's `response`: exactly `range`, or nil when there is no object.
    private func body(of response: HTTPExchange.Response, asking range: ByteRange, of key: String) throws(TierError)
        -> [UInt8]?
    {
        guard response.head.status != 404 else { return nil }
        guard response.head.status == 206 || range.start == 0, response.body.count == Int(range.count) else {
            throw .invalidResponse(
                operation: "get", target: target(key),
                reason: "asked for bytes \(range), got HTTP \(response.head.status) with \(response.body.count) bytes")
        }
        return response.body
    }

    /// `getObject` on the transfer loop, beside the downloads (call on its thread):
    /// `completion` runs there, after the same retries of transient failures.
    func getObject(
        _ key: String, maxBytes: Int, on loop: TransferLoop, attempt: Int = 1,
        completion: @escaping (Result<[UInt8]?, TierError>) -> Void
    ) {
        let request = request(method: .get, key: key)
        HTTPExchange.start(request, userAgent: userAgent, maxBodyBytes: maxBytes, on: loop) { [self] outcome in
            do throws(TierError) {
                let response = try interpret(outcome, operation: "get", key: key, accepting: [404])
                completion(.success(response.head.status == 404 ? nil : response.body))
            } catch {
                guard error.isTransient, attempt < configuration.attempts else { return completion(.failure(error)) }
                loop.after(Self.retryDelay(after: attempt)) { [self] in
                    getObject(key, maxBytes: maxBytes, on: loop, attempt: attempt + 1, completion: completion)
                }
            }
        }
    }

    /// What the store says of `key`, or nil when there is no such object.
    public func headObject(_ key: String) throws(TierError) -> S3ObjectInfo? {
        let response = try send("head", method: .head, key: key, accepting: [404])
        guard response.head.status != 404 else { return nil }
        guard let size = response.head.contentLength else {
            throw .invalidResponse(operation: "head", target: target(key), reason: "no Content-Length")
        }
        return S3ObjectInfo(
            size: size, etag: response.head.value("etag"), lastModified: response.head.value("last-modified"),
            contentType: response.head.value("content-type"))
    }

    /// Every object whose key starts with `prefix` (ListObjectsV2, page after page of at
    /// most `pageSize`).
    public func listObjects(prefix: String, pageSize: Int = 1000) throws(TierError) -> [S3ObjectSummary] {
        var objects: [S3ObjectSummary] = []
        var token: String?
        repeat {
            var query = [("list-type", "2"), ("prefix", prefix), ("max-keys", String(pageSize))]
            if let token { query.append(("continuation-token", token)) }
            let root = try xml(try send("list", method: .get, key: nil, query: query), "list", target(prefix))
            guard let page = S3Answers.objectsPage(root) else {
                throw .invalidResponse(operation: "list", target: target(prefix), reason: "not a ListBucketResult")
            }
            objects += page.objects
            token = page.continuationToken
        } while token != nil
        return objects
    }

    // MARK: Multipart uploads

    /// Begins a multipart upload of `key`; returns its upload id.
    public func createMultipartUpload(_ key: String, contentType: String? = nil) throws(TierError) -> String {
        let response = try send(
            "begin upload", method: .post, key: key, query: [("uploads", "")], headers: contentTypeHeader(contentType))
        guard let id = S3Answers.uploadID(try xml(response, "begin upload", target(key))) else {
            throw .invalidResponse(operation: "begin upload", target: target(key), reason: "no UploadId")
        }
        return id
    }

    /// Uploads `range` of the file at `path` as part `number` (1-based); returns the
    /// part's ETag.
    public func uploadPart(_ key: String, uploadID: String, number: Int, file path: String, range: ByteRange)
        throws(TierError) -> S3UploadedPart
    {
        let hash = try Self.sha256(of: path, range: range)
        let response = try send(
            "upload part \(number)", method: .put, key: key,
            query: [("partNumber", String(number)), ("uploadId", uploadID)],
            body: .file(path: path, range: range), payloadHash: hash)
        guard let etag = response.head.value("etag") else {
            throw .invalidResponse(operation: "upload part \(number)", target: target(key), reason: "no ETag")
        }
        return S3UploadedPart(number: number, etag: etag)
    }

    /// Joins `parts` (in number order) into the object `key`; returns its ETag.
    @discardableResult
    public func completeMultipartUpload(_ key: String, uploadID: String, parts: [S3UploadedPart]) throws(TierError)
        -> String
    {
        let body = Self.completionDocument(parts.sorted { $0.number < $1.number })
        let response = try send(
            "complete upload", method: .post, key: key, query: [("uploadId", uploadID)],
            headers: ["Content-Type: application/xml"], body: .bytes(body), payloadHash: Digest.sha256Hex(body))
        // S3 may answer 200 and still fail: the error is then the body.
        let root = try xml(response, "complete upload", target(key))
        if let error = S3Answers.error(root) {
            throw failure("complete upload", key: key, status: 200, code: error.code, message: error.message)
        }
        guard let etag = S3Answers.completedETag(root) else {
            throw .invalidResponse(
                operation: "complete upload", target: target(key), reason: "not a CompleteMultipartUploadResult")
        }
        return etag
    }

    /// Ends a multipart upload and frees its parts. One that is gone already is fine.
    public func abortMultipartUpload(_ key: String, uploadID: String) throws(TierError) {
        _ = try send(
            "abort upload", method: .delete, key: key, query: [("uploadId", uploadID)], accepting: [404])
    }

    /// Multipart uploads begun under `prefix` and not yet completed or aborted.
    public func listMultipartUploads(prefix: String) throws(TierError) -> [S3MultipartUpload] {
        var uploads: [S3MultipartUpload] = []
        var markers: (keyMarker: String, uploadIDMarker: String)?
        repeat {
            var query = [("uploads", ""), ("prefix", prefix)]
            if let markers { query += [("key-marker", markers.keyMarker), ("upload-id-marker", markers.uploadIDMarker)] }
            let root = try xml(try send("list uploads", method: .get, key: nil, query: query), "list uploads", target(prefix))
            guard let page = S3Answers.uploadsPage(root) else {
                throw .invalidResponse(
                    operation: "list uploads", target: target(prefix), reason: "not a ListMultipartUploadsResult")
            }
            uploads += page.uploads
            markers = page.next
        } while markers != nil
        return uploads
    }

    /// The parts the store holds of an upload, or nil when the upload is gone
    /// (completed, aborted or expired).
    public func listParts(_ key: String, uploadID: String) throws(TierError) -> [S3UploadedPart]? {
        var parts: [S3UploadedPart] = []
        var marker: Int?
        repeat {
            var query = [("uploadId", uploadID)]
            if let marker { query.append(("part-number-marker", String(marker))) }
            let response = try send("list parts", method: .get, key: key, query: query, accepting: [404])
            if response.head.status == 404 { return nil }
            guard let page = S3Answers.partsPage(try xml(response, "list parts", target(key))) else {
                throw .invalidResponse(operation: "list parts", target: target(key), reason: "not a ListPartsResult")
            }
            parts += page.parts
            marker = page.nextMarker
        } while marker != nil
        return parts
    }

    // MARK: Sending

    /// Makes one request, trying transient failures again. Answers with a status in
    /// `accepting` are returned like 2xx ones (a 404 that means "none"); every other
    /// error answer is thrown as what it means.
    private func send(
        _ operation: String, method: HTTPMethod, key: String?, query: [(String, String)] = [], headers: [String] = [],
        body: HTTPRequestBody? = nil, payloadHash: String = S3Signing.emptyPayloadHash, accepting: Set<Int> = [],
        maxBodyBytes: Int = S3Client.maxAnswerBytes
    ) throws(TierError) -> HTTPExchange.Response {
        LoopThreads.preconditionOff("a blocking S3 request")
        let request = request(
            method: method, key: key, query: query, headers: headers, body: body, payloadHash: payloadHash)
        var attempt = 1
        while true {
            do {
                let outcome = HTTPExchange.perform(request, userAgent: userAgent, maxBodyBytes: maxBodyBytes)
                return try interpret(outcome, operation: operation, key: key, accepting: accepting)
            } catch {
                guard error.isTransient, attempt < configuration.attempts else { throw error }
                usleep(useconds_t(Self.retryDelay(after: attempt) * 1_000_000))
                attempt += 1
            }
        }
    }

    /// 0.5 s, 1 s, 2 s, …: long enough for a store that is restarting.
    private static func retryDelay(after attempt: Int) -> Double { 0.5 * Double(1 << (attempt - 1)) }

    private func request(
        method: HTTPMethod, key: String?, query: [(String, String)] = [], headers: [String] = [],
        body: HTTPRequestBody? = nil, payloadHash: String = S3Signing.emptyPayloadHash
    ) -> HTTPRequest {
        var request = HTTPRequest(
            url: S3RequestURL.make(endpoint: endpoint, bucket: bucket, key: key, query: query), headers: headers,
            stallTimeout: configuration.timeout, verifyTLS: configuration.verifyTLS)
        request.method = method
        request.body = body
        request.s3Signing = S3Signing(
            region: configuration.region, credentials: configuration.credentials, payloadHash: payloadHash)
        return request
    }

    /// What one exchange's outcome means: the response, or the failure it is.
    private func interpret(
        _ outcome: Result<HTTPExchange.Response, TransferError>, operation: String, key: String?, accepting: Set<Int>
    ) throws(TierError) -> HTTPExchange.Response {
        let response: HTTPExchange.Response
        switch outcome {
        case .success(let answer): response = answer
        case .failure(let error) where error.kind == .aborted:
            throw .invalidResponse(operation: operation, target: target(key ?? ""), reason: error.message)
        case .failure(let error): throw .unreachable(endpoint: endpoint, reason: error.message)
        }
        let status = response.head.status
        if (200..<300).contains(status) { return response }
        let answer = S3XMLElement.parse(response.body).flatMap(S3Answers.error)
        // A 404 that means "no such object" is an answer; one for the bucket is not.
        if accepting.contains(status) && answer?.code != "NoSuchBucket" { return response }
        throw failure(operation, key: key, status: status, code: answer?.code, message: answer?.message)
    }

    /// What an error answer means for the user. HEAD answers carry no body: their
    /// status alone tells.
    private func failure(_ operation: String, key: String?, status: Int, code: String?, message: String?) -> TierError {
        switch code ?? (status == 403 ? "AccessDenied" : nil) {
        case "InvalidAccessKeyId", "SignatureDoesNotMatch", "AccessDenied", "ExpiredToken", "InvalidToken",
            "TokenRefreshRequired":
            return .credentialsRejected(
                endpoint: endpoint, code: code ?? "HTTP \(status)", message: message ?? "the store refused the request")
        case "NoSuchBucket":
            return .noSuchBucket(bucket: bucket, endpoint: endpoint)
        default:
            return .requestFailed(
                operation: operation, target: target(key ?? ""), status: status, code: code, message: message)
        }
    }

    private func xml(_ response: HTTPExchange.Response, _ operation: String, _ target: String) throws(TierError)
        -> S3XMLElement
    {
        guard let root = S3XMLElement.parse(response.body) else {
            throw .invalidResponse(operation: operation, target: target, reason: "the body is not XML")
        }
        return root
    }

    private func target(_ key: String) -> String { "s3://\(bucket)/\(key)" }

    /// What every key of the tier starts with: the prefix and a slash, or nothing when
    /// the tier is the whole bucket.
    private var tierPrefix: String { location.key("") }

    private func contentTypeHeader(_ type: String?) -> [String] {
        guard let type, HeaderValueCheck.problem(type, name: "Content-Type") == nil else { return [] }
        return ["Content-Type: \(type)"]
    }

    /// The payload hash SigV4 signs, for a body streamed from a file: the store checks
    /// the bytes it receives against it, so a part cannot arrive damaged.
    private static func sha256(of path: String, range: ByteRange) throws(TierError) -> String {
        do {
            let file = try DataFile(path: path, mode: .readOnly)
            let size = try file.size()
            guard size >= range.end else {
                throw TierError.localFile("\(path) has \(size) bytes, fewer than the \(range.end) to upload")
            }
            let digest = Digest(.sha256)
            try file.forEachBlock(from: range.start, length: range.count) { digest.update($0) }
            return digest.finalizeHex()
        } catch let error as TierError {
            throw error
        } catch {
            throw .localFile("reading \(path) to upload it: \(error)")
        }
    }

    private static func completionDocument(_ parts: [S3UploadedPart]) -> [UInt8] {
        func escaped(_ text: String) -> String {
            text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;")
        }
        let items = parts.map { "<Part><PartNumber>\($0.number)</PartNumber><ETag>\(escaped($0.etag))</ETag></Part>" }
        let xml =
            "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
            + items.joined() + "</CompleteMultipartUpload>"
        return Array(xml.utf8)
    }
}
