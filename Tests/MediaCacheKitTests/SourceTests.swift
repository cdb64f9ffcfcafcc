import Foundation
import Testing

@testable import MediaCacheKit

@Suite("Sources: where a download's bytes come from")
struct SourceTests {
    static let entry: ListEntry = {
        var entry = ListEntry(
            urls: ["http://127.0.0.1:8080/a.mp4", "http://127.0.0.2:8081/mirror/a.mp4"], headers: ["X-Entry: 1"])
        entry.referer = "*"
        entry.userAgent = "entry-agent/1"
        return entry
    }()

    static let origin = OriginSource(entry: entry, commandHeaders: ["Authorization: Bearer t"])

    /// A Range or If- header of the user's (saved by a version that took them) never
    /// reaches a request: each request's own range decides its answer.
    @Test func theUsersRangeAndConditionalHeadersAreNeverSent() {
        var entry = Self.entry
        entry.headers += ["range: bytes=0-10", "If-None-Match: \"x\"", "X-Kept: 1"]
        let source = OriginSource(entry: entry, commandHeaders: ["If-Range: \"y\"", "Authorization: Bearer t"])
        let request = source.request(
            url: "http://127.0.0.1:8080/a.mp4?x=1", urlOrigin: "http://127.0.0.1:8080", rangeHeaders: ["Range: bytes=0-9"],
            options: PrefetchOptions())
        #expect(request.headers == ["Authorization: Bearer t", "X-Entry: 1", "X-Kept: 1", "Range: bytes=0-9"])
    }

    @Test func originHeadersGoOnlyToTheHostOfTheURLInUse() {
        let options = PrefetchOptions()
        let own = Self.origin.request(
            url: "http://127.0.0.1:8080/a.mp4?x=1", urlOrigin: "http://127.0.0.1:8080", rangeHeaders: ["Range: bytes=0-9"],
            options: options)
        #expect(own.headers == ["Authorization: Bearer t", "X-Entry: 1", "Range: bytes=0-9"])
        #expect(own.client.referer == "http://127.0.0.1:8080/a.mp4")
        #expect(own.s3Signing == nil)
        let redirected = Self.origin.request(
            url: "http://127.0.0.9:80/a.mp4", urlOrigin: "http://127.0.0.9:80", rangeHeaders: ["Range: bytes=0-9"],
            options: options)
        #expect(redirected.headers == ["Range: bytes=0-9"])
        let unparsed = Self.origin.request(url: "nonsense", urlOrigin: nil, rangeHeaders: [], options: options)
        #expect(unparsed.headers.isEmpty)
        #expect(Self.origin.userAgent(options: options) == "entry-agent/1")
    }

    @Test func aMirrorTakesOverKeepingHeldBytesAndItsHostGetsTheHeaders() throws {
        guard case .next(let next, let keepsHeldBytes, let notice) = Self.origin.fallback(after: .failed("HTTP 503")) else {
            Issue.record("the second URL should take over")
            return
        }
        #expect(keepsHeldBytes)
        #expect(notice == "HTTP 503; trying mirror http://127.0.0.2:8081/mirror/a.mp4")
        #expect(next.probeURL == "http://127.0.0.2:8081/mirror/a.mp4")
        #expect(next.kind == .origin)
        let request = next.request(
            url: next.probeURL, urlOrigin: "http://127.0.0.2:8081", rangeHeaders: [], options: PrefetchOptions())
        #expect(request.headers == ["Authorization: Bearer t", "X-Entry: 1"])
        #expect(request.client.referer == "http://127.0.0.2:8081/mirror/a.mp4")
        // The last mirror has nothing after it; bytes that are not the file go nowhere.
        guard case .exhausted = next.fallback(after: .failed("HTTP 404")) else {
            Issue.record("nothing should follow the last mirror")
            return
        }
        guard case .exhausted = Self.origin.fallback(after: .badBytes("checksum mismatch")) else {
            Issue.record("a mirror must not resume bytes that failed their check")
            return
        }
    }

    @Test func anOriginAnswerNamesTheFileAndMayBeAnErrorPage() {
        let head = HTTPResponseHead(status: 200, headers: [(name: "content-type", value: "video/mp4")])
        let facts = Self.origin.describe(answerFrom: "http://127.0.0.1:8080/real.mp4", head: head)
        #expect(facts == AnswerFacts(finalURL: "http://127.0.0.1:8080/real.mp4", contentType: "video/mp4"))
        #expect(Self.origin.fragmentURL(answeredAt: facts.finalURL) == "http://127.0.0.1:8080/real.mp4")
        #expect(Self.origin.mayServeErrorPages && Self.origin.mayStreamWhole && Self.origin.waitsOutSilence)
        #expect(Self.origin.refusesRedirect(from: "a", to: "http://127.0.0.9/b") == nil)
        #expect(Self.origin.lengthProblem(nil) == nil)
    }

    @Test func aTierCopyIsSignedForTheEndpointOnlyAndSendsNoUserHeaders() throws {
        let scene = try TierScene(fallback: .origin(required: false))
        defer { scene.remove() }
        let copy = scene.copy
        #expect(copy.kind == .tier)
        #expect(copy.probeURL.hasPrefix("http://127.0.0.1:9/bucket/"))
        #expect(copy.fragmentURL(answeredAt: "http://127.0.0.1:8080/elsewhere") == copy.probeURL)
        let options = PrefetchOptions()
        let signed = copy.request(
            url: copy.probeURL, urlOrigin: "http://127.0.0.1:9", rangeHeaders: ["Range: bytes=0-9"], options: options)
        #expect(signed.headers == ["Range: bytes=0-9"])
        #expect(signed.s3Signing?.credentials.accessKeyID == "AKID")
        #expect(signed.client == ClientSettings())
        #expect(copy.userAgent(options: options) == options.userAgent)
        let foreign = copy.request(
            url: "http://127.0.0.5:9/x", urlOrigin: "http://127.0.0.5:9", rangeHeaders: [], options: options)
        #expect(foreign.s3Signing == nil)
        #expect(copy.refusesRedirect(from: "s3 url", to: "http://127.0.0.5/x")?.contains("never follow") == true)
        #expect(!copy.mayServeErrorPages && !copy.mayStreamWhole && !copy.waitsOutSilence)
        #expect(copy.retries(options: options) == 1)
    }

    @Test func aTierCopyIsKnownByItsRecordNotByTheStoresAnswer() throws {
        let scene = try TierScene(fallback: .origin(required: false))
        defer { scene.remove() }
        let copy = scene.copy
        #expect(copy.lengthProblem(4096) == nil)
        #expect(copy.lengthProblem(4095) == "the store has 4095 bytes, its record says 4096")
        #expect(copy.lengthProblem(nil) == "the store has an unknown number of bytes, its record says 4096")
        let head = HTTPResponseHead(status: 206, headers: [(name: "content-type", value: "binary/octet-stream")])
        #expect(copy.describe(answerFrom: copy.probeURL, head: head) == AnswerFacts(finalURL: nil, contentType: "video/mp4"))
        var state = JobState(entry: Self.entry, commandHeaders: [])
        state.validators.length = 4096
        let data = copy.readersData(state: state)
        #expect(data.storedSHA256 == scene.record.sha256)
        #expect(data.originVersion == "\"v1\"")
        #expect(data.length == 4096)
    }

    @Test func aFailedTierCopyHandsTheFileToTheOriginFromItsFirstByte() throws {
        let scene = try TierScene(fallback: .origin(required: false))
        defer { scene.remove() }
        guard case .next(let next, let keepsHeldBytes, let notice) = scene.copy.fallback(after: .badBytes("sha mismatch"))
        else {
            Issue.record("the origin should take over")
            return
        }
        #expect(!keepsHeldBytes)
        #expect(next.kind == .origin && next.probeURL == Self.entry.urls[0])
        #expect(notice.hasPrefix("the tier's copy s3://bucket/"))
        #expect(notice.hasSuffix(": sha mismatch; fetching it from the origin"))
        #expect(scene.tier.unusableBecause == nil)
    }

    @Test func pullHasNothingToFallBackTo() throws {
        let scene = try TierScene(fallback: .none)
        defer { scene.remove() }
        guard case .fail(let failure, let keepPartial) = scene.copy.fallback(after: .failed("HTTP 403 Forbidden")) else {
            Issue.record("pull must not go to the origin")
            return
        }
        #expect(failure.code == .tier)
        #expect(failure.message.hasSuffix(": HTTP 403 Forbidden"))
        #expect(!keepPartial)
    }

    @Test func aSilentStoreIsNotAskedAgainAndIsSaidOnce() throws {
        let scene = try TierScene(fallback: .origin(required: false))
        defer { scene.remove() }
        guard case .next(_, false, let notice) = scene.copy.fallback(after: .unanswered("connection refused")) else {
            Issue.record("the origin should take over")
            return
        }
        #expect(notice.contains("the store stopped answering; fetching it from the origin"))
        #expect(scene.tier.unusableBecause != nil)
        _ = scene.copy.fallback(after: .unanswered("connection refused"))
        #expect(scene.troubles.withLock { $0 } == 1)

        let required = try TierScene(fallback: .origin(required: true))
        defer { required.remove() }
        guard case .fail(let failure, let keepPartial) = required.copy.fallback(after: .unanswered("timed out")) else {
            Issue.record("--tier-required must fail the file")
            return
        }
        #expect(failure.code == .tier && failure.message.hasPrefix("the tier cannot be used: "))
        #expect(keepPartial)
    }
}

/// A tier on an endpoint nobody listens on (sources only build requests), and a copy of
/// a 4096-byte file in it.
private struct TierScene {
    let directory: TemporaryDirectory
    let tier: TierSource
    let record: TierRecord
    let copy: TierCopySource
    let troubles = LockedValue(0)

    init(fallback: TierSource.Fallback) throws {
        directory = try TemporaryDirectory("source-tests")
        let configuration = try S3Configuration(
            location: TierLocation(parsing: "s3://bucket/fleet"), endpoint: "http://127.0.0.1:9", region: "us-east-1",
            credentials: S3Credentials(accessKeyID: "AKID", secretAccessKey: "secret"))
        let troubles = troubles
        tier = TierSource(
            store: TierStore(client: S3Client(configuration: configuration), cacheRoot: directory.path), fallback: fallback,
            trouble: { _ in troubles.withLock { $0 += 1 } })
        record = TierRecord(
            key: CacheKey(identity: SourceTests.entry.urls[0]), sha256: String(repeating: "ab", count: 32), size: 4096,
            contentType: "video/mp4", faststart: .original, etag: "\"v1\"", lastModified: nil, url: SourceTests.entry.urls[0])
        copy = TierCopySource(record: record, tier: tier, origin: SourceTests.origin)
    }

    func remove() { directory.remove() }
}
