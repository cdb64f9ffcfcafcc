import Foundation
import Testing
@testable import MediaCacheKit

@Suite("EntryPathPolicy")
struct EntryPathPolicyTests {
    static let key = CacheKey(identity: "https://a.example/x.mp4")

    @Test(arguments: [
        ("manifest.json", EntryPathPolicy.Name.manifest),
        ("objects/\(key.hex).mp4", .object(key: key, extension: "mp4")),
        ("objects/\(key.hex)", .object(key: key, extension: nil)),
        ("/etc/passwd", .rejected(.absolutePath)),
        ("/objects/\(key.hex).mp4", .rejected(.absolutePath)),
        ("../escape", .rejected(.parentComponent)),
        ("objects/../../escape", .rejected(.parentComponent)),
        ("objects/..", .rejected(.parentComponent)),
        ("./manifest.json", .rejected(.unexpectedName)),
        ("objects//\(key.hex).mp4", .rejected(.unexpectedName)),
        ("objects/\(key.hex.uppercased()).mp4", .rejected(.unexpectedName)),
        ("objects/\(key.hex).MP4", .rejected(.unexpectedName)),
        ("objects/\(key.hex).mp4.sh", .rejected(.unexpectedName)),
        ("objects/\(key.hex).toolongext", .rejected(.unexpectedName)),
        ("objects/ab/\(key.hex).mp4", .rejected(.unexpectedName)),
        ("objects\\..\\escape", .rejected(.unexpectedName)),
        ("objects/\(key.hex).mp4 ", .rejected(.unexpectedName)),
        ("manifest.json/", .rejected(.unexpectedName)),
        ("", .rejected(.unexpectedName)),
    ])
    func classifiesNames(path: String, expected: EntryPathPolicy.Name) {
        #expect(EntryPathPolicy.classify(Array(path.utf8)) == expected, "\(path)")
    }

    @Test func nonASCIIAndControlBytesAreRefused() {
        #expect(EntryPathPolicy.classify(Array("objects/é".utf8)) == .rejected(.unexpectedName))
        #expect(EntryPathPolicy.classify([0x6D, 0x0A, 0x1B]) == .rejected(.unexpectedName))
        #expect(EntryPathPolicy.classify([0xFF, 0xFE]) == .rejected(.unexpectedName))
    }

    @Test func exportNamesComeFromTheKeyAndASafeExtension() {
        let key = Self.key
        #expect(EntryPathPolicy.objectPath(key: key, extension: "mp4") == "objects/\(key.hex).mp4")
        #expect(EntryPathPolicy.objectPath(key: key, extension: "vidéo") == "objects/\(key.hex)")
        #expect(EntryPathPolicy.objectPath(key: key, extension: "../x") == "objects/\(key.hex)")
        #expect(EntryPathPolicy.objectPath(key: key, extension: nil) == "objects/\(key.hex)")
    }
}

@Suite("BundleManifest")
struct BundleManifestTests {
    static func entry(_ identity: String, url: String? = nil, size: Int64 = 10) -> BundleManifest.Entry {
        let key = CacheKey(identity: identity)
        return BundleManifest.Entry(
            key: key.hex, path: "objects/\(key.hex).mp4", url: url ?? identity, mirrors: ["https://m.example/x.mp4"],
            cacheKey: identity, name: "clip.mp4", size: size, sha256: String(repeating: "a", count: 64),
            contentType: "video/mp4", faststart: .relocated,
            validators: .init(etag: "\"v1\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT"),
            added: Date(timeIntervalSince1970: 1_700_000_000), urlsRedacted: false)
    }

    static func manifest(_ entries: [BundleManifest.Entry]) -> BundleManifest {
        BundleManifest(created: Date(timeIntervalSince1970: 1_700_000_100), generator: "mediacache test", entries: entries)
    }

    static func json(_ manifest: BundleManifest) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(BundleManifestCodec.encode(manifest))) as? [String: Any])
    }

    static func bytes(_ object: [String: Any]) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: object))
    }

    @Test func roundTripKeepsEveryField() throws {
        let manifest = Self.manifest([Self.entry("https://a.example/x.mp4"), Self.entry("catalog/b", url: "https://b.example/b.mp4")])
        let decoded = try BundleManifestCodec.decode(BundleManifestCodec.encode(manifest), bundle: "b.mcbundle")
        #expect(decoded == manifest)
    }

    @Test func jsonNamesTheDocumentedFields() throws {
        let object = try Self.json(Self.manifest([Self.entry("https://a.example/x.mp4")]))
        #expect(object["format"] as? String == "mediacache-bundle")
        #expect(object["version"] as? Int == 1)
        let entry = try #require((object["entries"] as? [[String: Any]])?.first)
        for field in ["key", "path", "url", "mirrors", "cache_key", "size", "sha256", "content_type", "faststart", "validators", "added"] {
            #expect(entry[field] != nil, "\(field)")
        }
        #expect(entry["added"] as? String == "2023-11-14T22:13:20Z")
    }

    @Test func newerVersionIsRefusedByName() throws {
        var object = try Self.json(Self.manifest([]))
        object["version"] = 7
        #expect(throws: BundleError.unsupportedVersion(bundle: "b", version: 7)) {
            try BundleManifestCodec.decode(try Self.bytes(object), bundle: "b")
        }
    }

    @Test func notJSONOrAnotherFormatIsMalformed() throws {
        #expect(throws: BundleError.malformedManifest(bundle: "b", reason: "not a mediacache bundle manifest")) {
            try BundleManifestCodec.decode(Array("{\"entries\": [".utf8), bundle: "b")
        }
        var object = try Self.json(Self.manifest([]))
        object["format"] = "something-else"
        #expect(throws: BundleError.malformedManifest(bundle: "b", reason: "not a mediacache bundle manifest")) {
            try BundleManifestCodec.decode(try Self.bytes(object), bundle: "b")
        }
    }

    @Test func missingFieldIsNamed() throws {
        var object = try Self.json(Self.manifest([Self.entry("https://a.example/x.mp4")]))
        var entries = try #require(object["entries"] as? [[String: Any]])
        entries[0]["sha256"] = nil
        object["entries"] = entries
        do {
            _ = try BundleManifestCodec.decode(try Self.bytes(object), bundle: "b")
            Issue.record("decoded a manifest without sha256")
        } catch {
            #expect("\(error)".contains("entries[0].sha256 is missing"), "\(error)")
        }
    }

    /// Each claim the importer relies on is checked before anything is read.
    @Test(arguments: [
        ("key", "not the SHA-256 of its cache key"),
        ("duplicate", "listed twice"),
        ("path", "is not objects/<key>.<ext>"),
        ("size", "negative size"),
        ("sha256", "sha256 is not 64 lowercase hex digits"),
    ])
    func inconsistentEntriesMakeTheManifestMalformed(field: String, reason: String) throws {
        var entries = [Self.entry("https://a.example/x.mp4")]
        switch field {
        case "key":
            // Claims to be another URL's object: it would answer for that URL.
            entries[0].key = CacheKey(identity: "https://victim.example/y.mp4").hex
            entries[0].path = "objects/\(entries[0].key).mp4"
        case "duplicate": entries.append(entries[0])
        case "path": entries[0].path = "objects/\(CacheKey(identity: "other").hex).mp4"
        case "size": entries[0].size = -1
        default: entries[0].sha256 = "XYZ"
        }
        let problem = try #require(BundleManifestCodec.problem(in: Self.manifest(entries)))
        #expect(problem.contains(reason), "\(problem)")
        #expect(throws: BundleError.self) {
            try BundleManifestCodec.decode(BundleManifestCodec.encode(Self.manifest(entries)), bundle: "b")
        }
    }

    @Test func redactedEntriesAnswerOnlyToTheirCacheKey() {
        var entry = Self.entry("catalog/b", url: "https://b.example/b.mp4")
        #expect(entry.aliases == ["https://b.example/b.mp4", "https://m.example/x.mp4", "catalog/b"])
        entry.urlsRedacted = true
        #expect(entry.aliases == ["catalog/b"])
    }
}

@Suite("TokenRedaction")
struct TokenRedactionTests {
    @Test func urlIdentityIsKeptVerbatim() {
        let url = "https://a.example/x.mp4?token=abc"
        let shared = TokenRedaction.shareable(url: url, mirrors: [], cacheKey: url, keepQuery: false)
        #expect(shared == .init(url: url, mirrors: [], redacted: false))
    }

    @Test func cacheKeyedURLsLoseQueryFragmentAndUserInfo() {
        let shared = TokenRedaction.shareable(
            url: "https://user:pw@cdn.example/v.mp4?Signature=s3cr3t&Expires=1#t=5",
            mirrors: ["https://m.example/v.mp4?token=abc"], cacheKey: "catalog/v", keepQuery: false)
        #expect(shared == .init(url: "https://cdn.example/v.mp4", mirrors: ["https://m.example/v.mp4"], redacted: true))
    }

    @Test func keepQueryKeepsEverything() {
        let shared = TokenRedaction.shareable(
            url: "https://cdn.example/v.mp4?id=1", mirrors: [], cacheKey: "catalog/v", keepQuery: true)
        #expect(shared == .init(url: "https://cdn.example/v.mp4?id=1", mirrors: [], redacted: false))
    }

    @Test(arguments: [
        ("https://h/a.mp4", "https://h/a.mp4"),
        ("https://u@h:8443/a@b.mp4?x", "https://h:8443/a@b.mp4"),
        ("not a url?x", "not a url"),
    ])
    func stripped(input: String, expected: String) {
        #expect(TokenRedaction.stripped(input) == expected)
    }
}

@Suite("ExportSelection dates")
struct ExportDateTests {
    @Test func dateWithZoneIsExact() throws {
        let date = try #require(ExportSelection.parseDate("2026-03-01T14:30:00Z"))
        #expect(date == Date(timeIntervalSince1970: 1_772_375_400))
        #expect(ExportSelection.parseDate("2026-03-01T16:30:00+02:00") == date)
    }

    @Test func dateAloneIsLocalMidnight() throws {
        let date = try #require(ExportSelection.parseDate("2026-03-01"))
        let parts = Calendar.current.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        #expect(parts == DateComponents(year: 2026, month: 3, day: 1, hour: 0, minute: 0))
        #expect(ExportSelection.parseDate("2026-03-01T09:15") != nil)
    }

    @Test(arguments: ["", "yesterday", "2026-13-01", "2026-02-30", "01/03/2026", "2026-03-01T25:00"])
    func nonsenseIsRefused(text: String) {
        #expect(ExportSelection.parseDate(text) == nil, "\(text)")
    }
}
