import Foundation
import Testing
@testable import MediaCacheKit

extension EndToEnd {
    /// The fleet tier's foundation against SeaweedFS, a real S3-compatible store on
    /// 127.0.0.1: the S3 client and its errors, signed ranged GETs through the transfer
    /// machinery, the bucket layout and resumable uploads.
    @Suite struct Tier {
        // MARK: S3 client

        @Test func objectsRoundTripAndListingsFollowContinuations() throws {
            let store = try SeaweedFS.shared()
            // A prefix with bytes SigV4 must see percent-encoded exactly as the store does.
            let client = try store.client(bucket: try store.makeBucket(), prefix: "fleet one/a+b")
            try client.checkBucket()

            let small = TestBytes.make(1000, seed: 1)
            try client.putObject("fleet one/a+b/small", bytes: small, contentType: "video/mp4")
            #expect(try client.getObject("fleet one/a+b/small", maxBytes: 1 << 20) == small)
            let info = try #require(try client.headObject("fleet one/a+b/small"))
            #expect(info.size == 1000)
            #expect(info.contentType == "video/mp4")

            // From the middle of a file, streamed.
            let scratch = Scratch()
            let big = TestBytes.make(3 << 20, seed: 2)
            let file = scratch.writeBytes("big", big)
            try client.putObject("fleet one/a+b/middle", file: file, range: ByteRange(1000, 2_000_000))
            #expect(try client.getObject("fleet one/a+b/middle", maxBytes: 4 << 20) == Array(big[1000..<2_000_000]))

            #expect(try client.headObject("fleet one/a+b/absent") == nil)
            #expect(try client.getObject("fleet one/a+b/absent", maxBytes: 100) == nil)

            for index in 0..<5 { try client.putObject("fleet one/a+b/list/\(index)", bytes: [UInt8(index)]) }
            let listed = try client.listObjects(prefix: "fleet one/a+b/list/", pageSize: 2)
            #expect(listed.map(\.key) == (0..<5).map { "fleet one/a+b/list/\($0)" })
            #expect(listed.allSatisfy { $0.size == 1 })
        }

        @Test func aSignedRangedGetThroughTheTransferLoopGetsThoseBytes() throws {
            let store = try SeaweedFS.shared()
            let client = try store.client(bucket: try store.makeBucket(), prefix: "tier")
            let bytes = TestBytes.make(1 << 20, seed: 3)
            try client.putObject("tier/objects/one", bytes: bytes)

            var request = HTTPRequest(
                url: client.url(forKey: "tier/objects/one"), headers: ["Range: bytes=1000-300999"], stallTimeout: 10)
            request.s3Signing = client.bodylessSigning
            let signed = try LoopFetch.run(request)
            #expect(signed.status == 206)
            #expect(signed.body == Array(bytes[1000...300_999]))

            // The same request unsigned is refused: the signature is what let it in.
            request.s3Signing = nil
            #expect(try LoopFetch.run(request).status == 403)
        }

        @Test func aWrongSecretNamesTheVariablesAndNeverShowsTheSecret() throws {
            let store = try SeaweedFS.shared()
            let bucket = try store.makeBucket()
            let wrongSecret = "not-" + store.secretKey
            let client = try store.client(bucket: bucket, prefix: "p", secret: wrongSecret)
            let error = try #require(throws: TierError.self) { try client.checkBucket() }
            guard case .credentialsRejected(_, let code, _) = error else {
                Issue.record("expected a credentials error, got \(error)")
                return
            }
            #expect(code == "SignatureDoesNotMatch")
            #expect(error.description.contains("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"))
            #expect(error.description.contains(store.endpoint))
            #expect(!error.description.contains(wrongSecret))
            #expect(!error.description.contains(store.secretKey))

            let unknownKey = try store.client(bucket: bucket, prefix: "p", accessKey: "nobody")
            let keyError = try #require(throws: TierError.self) { try unknownKey.putObject("p/x", bytes: [1]) }
            guard case .credentialsRejected(_, "InvalidAccessKeyId", _) = keyError else {
                Issue.record("expected InvalidAccessKeyId, got \(keyError)")
                return
            }
        }

        @Test func aMissingBucketIsNamedWithTheEndpoint() throws {
            let store = try SeaweedFS.shared()
            let client = try store.client(bucket: "no-such-bucket-here", prefix: "p")
            let error = try #require(throws: TierError.self) { try client.checkBucket() }
            #expect(error == .noSuchBucket(bucket: "no-such-bucket-here", endpoint: store.endpoint))
            #expect(error.description.contains("no-such-bucket-here"))
            #expect(error.description.contains(store.endpoint))
        }

        @Test func anUnreachableEndpointIsNamed() throws {
            let port = SeaweedFS.freePorts(1)[0]
            var configuration = try S3Configuration(
                location: TierLocation(parsing: "s3://bucket/p"), endpoint: "http://127.0.0.1:\(port)",
                region: "us-east-1", credentials: S3Credentials(accessKeyID: "k", secretAccessKey: "s"))
            configuration.attempts = 2
            let error = try #require(throws: TierError.self) { try S3Client(configuration: configuration).checkBucket() }
            guard case .unreachable(let endpoint, _) = error else {
                Issue.record("expected unreachable, got \(error)")
                return
            }
            #expect(endpoint == "http://127.0.0.1:\(port)")
            #expect(error.description.contains("http://127.0.0.1:\(port)"))
        }
    }
}

extension SeaweedFS {
    /// A client for `s3://bucket/prefix` on this server, with its credentials unless
    /// others are given.
    func client(bucket: String, prefix: String, accessKey: String? = nil, secret: String? = nil) throws -> S3Client {
        let environment = [
            "AWS_ACCESS_KEY_ID": accessKey ?? self.accessKey, "AWS_SECRET_ACCESS_KEY": secret ?? secretKey,
            "AWS_REGION": region,
        ]
        let location = try TierLocation(parsing: "s3://\(bucket)/\(prefix)")
        var configuration = try S3Configuration.fromEnvironment(
            location: location, endpoint: endpoint, environment: environment)
        configuration.timeout = 10
        return S3Client(configuration: configuration)
    }
}

/// One request through the download machinery's own path: an `HTTPTransfer` on a
/// `TransferLoop` running on its thread, the response collected.
final class LoopFetch: HTTPTransferDelegate, @unchecked Sendable {
    private(set) var status = 0
    private(set) var body: [UInt8] = []
    private(set) var error: TransferError?
    private let done = DispatchSemaphore(value: 0)

    struct Failed: Error, CustomStringConvertible {
        let description: String
    }

    static func run(_ request: HTTPRequest) throws -> LoopFetch {
        let fetch = LoopFetch()
        let loop = TransferLoop(maxConnectionsPerHost: 4, maxConnections: 4)
        let thread = Thread { loop.run() }
        thread.start()
        loop.post {
            loop.start(HTTPTransfer(request: request, userAgent: "tests", delegate: fetch))
        }
        guard fetch.done.wait(timeout: .now() + 30) == .success else { throw Failed(description: "no answer in 30 s") }
        loop.post { loop.stop() }
        if let error = fetch.error { throw Failed(description: error.message) }
        return fetch
    }

    func transfer(_ transfer: HTTPTransfer, didReceive head: HTTPResponseHead) -> Bool {
        status = head.status
        return true
    }

    func transfer(_ transfer: HTTPTransfer, didReceive chunk: BodyChunk) -> Int {
        body += chunk.array
        return chunk.count
    }

    func transfer(_ transfer: HTTPTransfer, didCompleteWith error: TransferError?) {
        self.error = error
        done.signal()
    }
}
