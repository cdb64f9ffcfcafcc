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
            // Not "no such record": the bucket itself is missing.
            #expect(throws: error) { try client.getObject("p/keys/x.json", maxBytes: 1000) }
        }

        @Test func anUnreachableEndpointIsNamed() throws {
            let port = LoopbackPorts.free(1)[0]
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

        // MARK: Layout and uploads

        @Test func aSmallObjectIsPublishedWithOnePutThenItsRecord() throws {
            let store = try SeaweedFS.shared()
            let client = try store.client(bucket: try store.makeBucket(), prefix: "fleet")
            let scratch = Scratch()
            let bytes = TestBytes.make(300_000, seed: 4)
            let file = scratch.writeBytes("object", bytes)
            let key = CacheKey(identity: "https://cdn.example/small.mp4")
            let record = TierRecord(
                key: key, sha256: Digest.sha256Hex(bytes), size: Int64(bytes.count), contentType: "video/mp4",
                faststart: .original, etag: "\"v1\"", lastModified: nil, url: "https://cdn.example/small.mp4?token=t0k3n")
            let tier = TierStore(client: client, cacheRoot: scratch.cache)
            #expect(try tier.record(for: key) == nil)

            try tier.publish(objectAt: file, record: record)
            #expect(try tier.record(for: key) == record)
            #expect(try tier.record(for: key)?.url == "https://cdn.example/small.mp4")
            #expect(try client.getObject("fleet/objects/" + record.sha256, maxBytes: 1 << 20) == bytes)
            #expect(try tier.recordedKeys() == [key])
            #expect(try tier.records().map(\.key) == [key])
            #expect(try client.listMultipartUploads(prefix: "fleet/").isEmpty)

            // Another key with the same bytes: only its record is written, the object
            // (its Last-Modified to the second) stays as it was.
            let objectKey = "fleet/objects/" + record.sha256
            let stored = try #require(try client.headObject(objectKey))
            usleep(1_100_000)
            var mirror = record
            mirror.key = CacheKey(identity: "https://mirror.example/small.mp4").hex
            try tier.publish(objectAt: file, record: mirror)
            #expect(try client.headObject(objectKey)?.lastModified == stored.lastModified)
            #expect(Set(try tier.recordedKeys()) == [key, CacheKey(identity: "https://mirror.example/small.mp4")])
        }

        @Test func aLargeObjectGoesUpInParallelParts() throws {
            let scene = try UploadScene(size: 21 << 20 + 12345, seed: 5)
            let parts = PartCounter()
            try scene.uploader(Self.smallParts, partUploaded: { _ in parts.add() }).upload(scene)

            #expect(parts.count == 5, "21 MiB and a bit in 5 MiB parts")
            let stored = try #require(try scene.client.getObject(scene.key, maxBytes: 32 << 20))
            #expect(Digest.sha256Hex(stored) == scene.hash)
            #expect(try scene.client.listMultipartUploads(prefix: "fleet/").isEmpty)
            #expect(FileSystem.contentsOfDirectory(scene.states).filter { $0.hasSuffix(".json") }.isEmpty)
        }

        @Test func anInterruptedMultipartUploadIsResumedByTheNextUploader() throws {
            let scene = try UploadScene(size: 30 << 20, seed: 6)
            let client = scene.client

            // The first run stops after two of six parts, as a killed one would.
            try scene.interruptedUpload(Self.smallParts, afterParts: 2)
            let pending = try client.listMultipartUploads(prefix: "fleet/")
            #expect(pending.count == 1)
            let saved = try String(contentsOfFile: scene.states + "/\(scene.hash).json", encoding: .utf8)
            #expect(saved.contains(pending[0].uploadID))
            #expect(!saved.contains(scene.store.secretKey))
            let held = try #require(try client.listParts(scene.key, uploadID: pending[0].uploadID))
            #expect(held.count >= 2)
            #expect(try client.headObject(scene.key) == nil, "no object before the upload completes")

            // A new uploader resumes that upload: only the missing parts go up again.
            let sent = PartCounter()
            try scene.uploader(Self.smallParts, partUploaded: { _ in sent.add() }).upload(scene)
            #expect(sent.count == 6 - held.count)
            let stored = try #require(try client.getObject(scene.key, maxBytes: 32 << 20))
            #expect(Digest.sha256Hex(stored) == scene.hash)
            #expect(try client.listMultipartUploads(prefix: "fleet/").isEmpty)
            #expect(!FileSystem.exists(scene.states + "/\(scene.hash).json"))
        }

        @Test func aSavedUploadThatCannotBeResumedIsAbortedNotLeftBehind() throws {
            let scene = try UploadScene(size: 12 << 20, seed: 9)
            let (client, key, hash) = (scene.client, scene.key, scene.hash)
            try scene.interruptedUpload(Self.onePartAtATime, afterParts: 1)
            let first = try #require(try client.listMultipartUploads(prefix: "fleet/").first)

            // Parts of another size cannot continue those: that upload is aborted.
            var larger = Self.smallParts
            larger.partSize = 6 << 20
            try scene.uploader(larger).upload(scene)
            #expect(try client.listParts(key, uploadID: first.uploadID) == nil)
            #expect(try client.listMultipartUploads(prefix: "fleet/").isEmpty)
            #expect(Digest.sha256Hex(try #require(try client.getObject(key, maxBytes: 16 << 20))) == hash)
        }

        @Test func onlyUnknownUploadsOlderThanADayAreAborted() throws {
            let scene = try UploadScene(size: 11 << 20, seed: 7)
            let (client, hash, states) = (scene.client, scene.hash, scene.states)
            try scene.interruptedUpload(Self.onePartAtATime, afterParts: 1)
            // Another machine's, or one whose cache is gone: no state here names it.
            let stray = try client.createMultipartUpload("fleet/objects/stray")

            let janitor = scene.uploader(Self.smallParts)
            #expect(try janitor.abortAbandonedUploads(under: "fleet/").isEmpty, "both began just now")
            let aborted = try janitor.abortAbandonedUploads(under: "fleet/", now: Date().addingTimeInterval(2 * 86400))
            #expect(aborted.map(\.uploadID) == [stray])
            let left = try client.listMultipartUploads(prefix: "fleet/")
            #expect(left.map(\.key) == ["fleet/objects/" + hash], "the upload this cache can resume stays")

            try janitor.abortSavedUpload(sha256: hash)
            #expect(try client.listMultipartUploads(prefix: "fleet/").isEmpty)
            #expect(!FileSystem.exists(states + "/\(hash).json"))
        }

        @Test func publishingWithAWrongSecretFailsClearlyAndKeepsTheSecretOutOfTheCache() throws {
            let store = try SeaweedFS.shared()
            let wrongSecret = "wrong-" + store.secretKey
            let client = try store.client(bucket: try store.makeBucket(), prefix: "fleet", secret: wrongSecret)
            let scratch = Scratch()
            let bytes = TestBytes.make(7 << 20, seed: 8)
            let file = scratch.writeBytes("object", bytes)
            let record = TierRecord(
                key: CacheKey(identity: "u"), sha256: Digest.sha256Hex(bytes), size: Int64(bytes.count), contentType: nil,
                faststart: .notMP4, etag: nil, lastModified: nil, url: "https://cdn.example/u")
            let tier = TierStore(client: client, cacheRoot: scratch.cache, uploadSettings: Self.smallParts)
            let error = try #require(throws: TierError.self) { try tier.publish(objectAt: file, record: record) }
            guard case .credentialsRejected = error else {
                Issue.record("expected a credentials error, got \(error)")
                return
            }
            #expect(error.description.contains("AWS_SECRET_ACCESS_KEY"))
            #expect(!error.description.contains(wrongSecret))
            for name in FileManager.default.enumerator(atPath: scratch.cache)?.compactMap({ $0 as? String }) ?? [] {
                let contents = FileManager.default.contents(atPath: scratch.cache + "/" + name) ?? Data()
                #expect(contents.range(of: Data(wrongSecret.utf8)) == nil, "\(name)")
            }
        }

        /// Stopped after its first part, this leaves the others unsent.
        static var onePartAtATime: TierUploader.Settings {
            var settings = smallParts
            settings.parallelParts = 1
            return settings
        }

        /// Multipart from 6 MiB, in 5 MiB parts (the smallest S3 allows), three at a time.
        static var smallParts: TierUploader.Settings {
            var settings = TierUploader.Settings()
            settings.multipartThreshold = 6 << 20
            settings.partSize = 5 << 20
            settings.parallelParts = 3
            return settings
        }
    }
}

/// Counts calls from the uploader's part threads.
private final class PartCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var calls = 0
    var count: Int { lock.withLock { calls } }
    func add() { lock.withLock { calls += 1 } }
}

/// Lets an uploader's own progress callback reach the uploader (to cancel it).
private final class UploaderBox: @unchecked Sendable {
    var uploader: TierUploader?
}

/// One multipart upload's setting: a fresh bucket on the shared SeaweedFS, a file of
/// random bytes to upload under `fleet/objects/<sha256>`, and a cache's state directory.
private struct UploadScene {
    let store: SeaweedFS
    let client: S3Client
    /// Holds the file and states (removed with it).
    let scratch = Scratch()
    let bytes: [UInt8]
    let file: String
    let hash: String
    let key: String
    let states: String

    init(size: Int, seed: UInt64) throws {
        store = try SeaweedFS.shared()
        client = try store.client(bucket: try store.makeBucket(), prefix: "fleet")
        bytes = TestBytes.make(size, seed: seed)
        file = scratch.writeBytes("object", bytes)
        hash = Digest.sha256Hex(bytes)
        key = "fleet/objects/" + hash
        states = scratch.cache + "/tier/uploads"
    }

    func uploader(_ settings: TierUploader.Settings, partUploaded: (@Sendable (Int) -> Void)? = nil) -> TierUploader {
        TierUploader(client: client, stateDirectory: states, settings: settings, partUploaded: partUploaded)
    }

    /// An upload stopped once `afterParts` parts are confirmed, as a killed run leaves it.
    func interruptedUpload(_ settings: TierUploader.Settings, afterParts: Int) throws {
        let box = UploaderBox()
        box.uploader = uploader(settings, partUploaded: { done in if done >= afterParts { box.uploader?.cancel() } })
        #expect(throws: TierError.cancelled) { try box.uploader!.upload(self) }
    }
}

extension TierUploader {
    /// Uploads the scene's file to its key.
    fileprivate func upload(_ scene: UploadScene) throws {
        try upload(file: scene.file, size: Int64(scene.bytes.count), sha256: scene.hash, to: scene.key)
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
