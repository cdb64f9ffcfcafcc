import Foundation
import Testing
@testable import MediaCacheKit

/// The tier's records and where things go in its bucket: what a record keeps, what it
/// never keeps, and which records from the bucket are refused.
@Suite("TierRecord")
struct TierRecordTests {
    private let key = CacheKey(identity: "https://cdn.example/a.mp4")
    private let sha = String(repeating: "ab", count: 32)

    private func record(url: String = "https://cdn.example/a.mp4") -> TierRecord {
        TierRecord(
            key: key, sha256: sha, size: 1234, contentType: "video/mp4", faststart: .relocated, etag: "\"e1\"",
            lastModified: "Mon, 23 Nov 2026 14:39:00 GMT", url: url)
    }

    @Test func aRecordRoundTripsThroughItsJSON() throws {
        let original = record()
        let decoded = try TierRecord.decode(original.encoded())
        #expect(decoded == original)
        let json = String(decoding: original.encoded(), as: UTF8.self)
        #expect(json.contains("\"faststart\":\"relocated\""))
        #expect(json.contains("\"content_type\":\"video/mp4\""))
        #expect(json.contains("\"format\":1"))
    }

    @Test(arguments: [
        ("https://cdn.example/a.mp4?token=s3cr3t", "https://cdn.example/a.mp4"),
        ("https://cdn.example/a.mp4#t=10", "https://cdn.example/a.mp4"),
        ("https://user:s3cr3t@cdn.example/a.mp4", "https://cdn.example/a.mp4"),
        ("https://user:s3cr3t@cdn.example/a@b.mp4?x=1", "https://cdn.example/a@b.mp4"),
        ("https://cdn.example/dir/", "https://cdn.example/dir/"),
    ])
    func theURLKeepsNoQueryFragmentOrLogin(url: String, kept: String) throws {
        let stored = record(url: url)
        #expect(stored.url == kept)
        #expect(!String(decoding: stored.encoded(), as: UTF8.self).contains("s3cr3t"))
    }

    /// `pull` without names fetches each record under its own key: the URL when that was
    /// the key, the `cache-key=` when there was one; a key that was a URL with a query
    /// (which the record does not keep) cannot be named.
    @Test func aRecordNamesItsKeyWhenItCan() throws {
        #expect(record().listEntry().map { CacheKey(identity: $0.identity) } == key)

        let tokenKey = CacheKey(identity: "movie-42")
        let keyed = TierRecord(
            key: tokenKey, sha256: sha, size: 1, contentType: nil, faststart: .notMP4, etag: nil, lastModified: nil,
            url: "https://cdn.example/m.mp4?sig=s3cr3t", cacheKey: "movie-42")
        let entry = try #require(keyed.listEntry())
        #expect(entry.url == "https://cdn.example/m.mp4" && entry.cacheKey == "movie-42")
        #expect(try TierRecord.decode(keyed.encoded()).cacheKey == "movie-42")

        let queried = TierRecord(
            key: CacheKey(identity: "https://cdn.example/a.mp4?v=2"), sha256: sha, size: 1, contentType: nil,
            faststart: .notMP4, etag: nil, lastModified: nil, url: "https://cdn.example/a.mp4?v=2")
        #expect(queried.listEntry() == nil)
    }

    @Test func aNewerFormatIsRefusedWithAnUpgradeHint() {
        var newer = record()
        newer.format = TierRecord.currentFormat + 1
        #expect(throws: TierRecordError.newerFormat(TierRecord.currentFormat + 1)) { try TierRecord.decode(newer.encoded()) }
    }

    @Test func recordsThatCouldNameAnotherObjectAreRefused() {
        var badHash = record()
        badHash.sha256 = "../../keys/x"
        #expect(throws: TierRecordError.self) { try TierRecord.decode(badHash.encoded()) }
        var negative = record()
        negative.size = -1
        #expect(throws: TierRecordError.self) { try TierRecord.decode(negative.encoded()) }
        #expect(throws: TierRecordError.self) { try TierRecord.decode(Array("<html>".utf8)) }
        #expect(throws: TierRecordError.self) { try TierRecord.decode(Array("{\"format\":1}".utf8)) }
    }

    @Test func theLayoutPutsObjectsByContentAndRecordsByKey() throws {
        let layout = TierLayout(location: try TierLocation(parsing: "s3://bucket/fleet/v1"))
        #expect(layout.objectKey(sha256: sha) == "fleet/v1/objects/" + sha)
        #expect(layout.recordKey(for: key) == "fleet/v1/keys/\(key.hex).json")
        #expect(layout.cacheKey(fromRecordKey: layout.recordKey(for: key)) == key)
        #expect(layout.cacheKey(fromRecordKey: "fleet/v1/keys/notakey.json") == nil)
        #expect(layout.cacheKey(fromRecordKey: "fleet/v1/objects/" + sha) == nil)

        let whole = TierLayout(location: try TierLocation(parsing: "s3://bucket"))
        #expect(whole.objectKey(sha256: sha) == "objects/" + sha)
        #expect(whole.recordsPrefix == "keys/")
    }
}
