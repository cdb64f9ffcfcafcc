import Foundation
import Testing
@testable import MediaCacheKit

private func makeObject(
    identity: String, url: String, mirrors: [String] = [], size: Int64 = 1000,
    added: TimeInterval = 1_700_000_000
) -> CachedObject {
    let key = CacheKey(identity: identity)
    return CachedObject(
        key: key, cacheKey: identity, path: "objects/\(key.hex.prefix(2))/\(key.hex).mp4", size: size,
        sha256: String(repeating: "ab", count: 32), faststart: .original, url: url, mirrors: mirrors,
        name: "clip.mp4", contentType: "video/mp4", validators: ("\"v1\"", "Wed, 21 Oct 2015 07:28:00 GMT"),
        addedAt: Date(timeIntervalSince1970: added), lastUsedAt: Date(timeIntervalSince1970: added))
}

/// The aliases the committer records: every URL and the identity.
private func aliases(of object: CachedObject) -> [String] {
    [object.url] + object.mirrors + [object.cacheKey]
}

@Suite("CacheIndex")
struct CacheIndexTests {
    @Test func insertedObjectIsFoundByKey() throws {
        let cache = try TemporaryCache("mediacache-index")
        defer { cache.remove() }
        let index = try CacheIndex(directory: cache.directory)
        let object = makeObject(identity: "https://a.example/x.mp4", url: "https://a.example/x.mp4")
        try index.insert(object, aliases: aliases(of: object))
        #expect(try index.object(key: CacheKey(identity: "https://a.example/x.mp4")) == object)
        #expect(try index.object(key: CacheKey(identity: "https://a.example/other.mp4")) == nil)
    }

    /// A page of the objects used last, and the totals, without reading every row.
    @Test func recentlyUsedObjectsAndTotals() throws {
        let cache = try TemporaryCache("mediacache-index")
        defer { cache.remove() }
        let index = try CacheIndex(directory: cache.directory)
        #expect(try index.totals() == (0, 0))
        let objects = (0..<4).map { number in
            makeObject(identity: "https://a.example/\(number).mp4", url: "https://a.example/\(number).mp4", size: Int64(100 + number))
        }
        for object in objects { try index.insert(object, aliases: aliases(of: object)) }
        try index.touch(key: CacheKey(identity: "https://a.example/2.mp4"), at: Date(timeIntervalSince1970: 1_800_000_000))
        try index.touch(key: CacheKey(identity: "https://a.example/0.mp4"), at: Date(timeIntervalSince1970: 1_800_000_100))
        #expect(try index.recentlyUsed(limit: 2).map(\.url) == ["https://a.example/0.mp4", "https://a.example/2.mp4"])
        #expect(try index.recentlyUsed(limit: 10).count == 4)
        #expect(try index.totals() == (4, 406))
    }

    @Test func lookupByFirstURLMirrorAndCacheKey() throws {
        let cache = try TemporaryCache("mediacache-index")
        defer { cache.remove() }
        let index = try CacheIndex(directory: cache.directory)
        let object = makeObject(
            identity: "video-42", url: "https://a.example/x.mp4?token=1",
            mirrors: ["https://mirror1.example/x.mp4", "https://mirror2.example/x.mp4"])
        try index.insert(object, aliases: aliases(of: object))
        #expect(try index.lookup("https://a.example/x.mp4?token=1") == object)
        #expect(try index.lookup("https://mirror1.example/x.mp4") == object)
        #expect(try index.lookup("https://mirror2.example/x.mp4") == object)
        #expect(try index.lookup("video-42") == object)
        #expect(try index.lookup("https://a.example/x.mp4?token=2") == nil)
    }

    @Test func lookupByIdentityWorksWithoutAliases() throws {
        let cache = try TemporaryCache("mediacache-index")
        defer { cache.remove() }
        let index = try CacheIndex(directory: cache.directory)
        let object = makeObject(identity: "https://a.example/x.mp4", url: "https://a.example/x.mp4")
        try index.insert(object, aliases: [])
        #expect(try index.lookup("https://a.example/x.mp4") == object)
    }

    @Test func insertReplacesTheOlderRowAndItsAliases() throws {
        let cache = try TemporaryCache("mediacache-index")
        defer { cache.remove() }
        let index = try CacheIndex(directory: cache.directory)
        let old = makeObject(identity: "video-42", url: "https://a.example/old.mp4", mirrors: ["https://m.example/old.mp4"], size: 10)
        try index.insert(old, aliases: aliases(of: old))
        let new = makeObject(identity: "video-42", url: "https://a.example/new.mp4", size: 20, added: 1_700_000_500)
        try index.insert(new, aliases: aliases(of: new))

        #expect(try index.object(key: CacheKey(identity: "video-42")) == new)
        #expect(try index.all() == [new])
        #expect(try index.lookup("https://a.example/new.mp4") == new)
        #expect(try index.lookup("https://a.example/old.mp4") == nil)
        #expect(try index.lookup("https://m.example/old.mp4") == nil)
    }

    @Test func removeDeletesTheObjectAndItsAliases() throws {
        let cache = try TemporaryCache("mediacache-index")
        defer { cache.remove() }
        let index = try CacheIndex(directory: cache.directory)
        let keep = makeObject(identity: "keep", url: "https://a.example/keep.mp4")
        let gone = makeObject(identity: "gone", url: "https://a.example/gone.mp4", mirrors: ["https://m.example/gone.mp4"])
        try index.insert(keep, aliases: aliases(of: keep))
        try index.insert(gone, aliases: aliases(of: gone))

        try index.remove(key: CacheKey(identity: "gone"))
        #expect(try index.object(key: CacheKey(identity: "gone")) == nil)
        #expect(try index.lookup("https://a.example/gone.mp4") == nil)
        #expect(try index.lookup("https://m.example/gone.mp4") == nil)
        #expect(try index.lookup("https://a.example/keep.mp4") == keep)
        #expect(try index.all() == [keep])
    }

    @Test func removeOfUnknownKeyIsHarmless() throws {
        let cache = try TemporaryCache("mediacache-index")
        defer { cache.remove() }
        let index = try CacheIndex(directory: cache.directory)
        try index.remove(key: CacheKey(identity: "never-inserted"))
        #expect(try index.all() == [])
    }

    @Test func touchUpdatesLastUsedAtOnly() throws {
        let cache = try TemporaryCache("mediacache-index")
        defer { cache.remove() }
        let index = try CacheIndex(directory: cache.directory)
        let object = makeObject(identity: "k", url: "https://a.example/x.mp4")
        try index.insert(object, aliases: aliases(of: object))
        let later = Date(timeIntervalSince1970: 1_800_000_000)
        try index.touch(key: CacheKey(identity: "k"), at: later)

        var expected = object
        expected.lastUsedAt = later
        #expect(try index.object(key: CacheKey(identity: "k")) == expected)
    }

    @Test func allIsOrderedByAddedAt() throws {
        let cache = try TemporaryCache("mediacache-index")
        defer { cache.remove() }
        let index = try CacheIndex(directory: cache.directory)
        let second = makeObject(identity: "b", url: "https://a.example/b.mp4", added: 1_700_000_200)
        let first = makeObject(identity: "a", url: "https://a.example/a.mp4", added: 1_700_000_100)
        try index.insert(second, aliases: aliases(of: second))
        try index.insert(first, aliases: aliases(of: first))
        #expect(try index.all().map(\.cacheKey) == ["a", "b"])
    }

    @Test func secondInstanceOnTheSameDirectorySharesRows() throws {
        let cache = try TemporaryCache("mediacache-index")
        defer { cache.remove() }
        let one = try CacheIndex(directory: cache.directory)
        let two = try CacheIndex(directory: cache.directory)
        let a = makeObject(identity: "a", url: "https://a.example/a.mp4")
        try one.insert(a, aliases: aliases(of: a))
        #expect(try two.lookup("https://a.example/a.mp4") == a)

        let b = makeObject(identity: "b", url: "https://a.example/b.mp4", added: 1_700_000_001)
        try two.insert(b, aliases: aliases(of: b))
        #expect(try one.object(key: CacheKey(identity: "b")) == b)

        try two.remove(key: CacheKey(identity: "a"))
        #expect(try one.lookup("https://a.example/a.mp4") == nil)
    }

    @Test func reopenedIndexKeepsRows() throws {
        let cache = try TemporaryCache("mediacache-index")
        defer { cache.remove() }
        let object = makeObject(identity: "a", url: "https://a.example/a.mp4")
        do {
            let index = try CacheIndex(directory: cache.directory)
            try index.insert(object, aliases: aliases(of: object))
        }
        let reopened = try CacheIndex(directory: cache.directory)
        #expect(try reopened.all() == [object])
    }

    @Test func indexInMissingDirectoryIsAnIndexError() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = CacheDirectory(root: temporary.path + "/does/not/exist")
        #expect {
            _ = try CacheIndex(directory: directory)
        } throws: { error in
            guard case CacheError.index(let path, _) = error else { return false }
            return path == directory.indexPath
        }
    }
}

@Suite("CacheDirectory and CacheKey")
struct CacheDirectoryTests {
    @Test func keyIsSHA256OfTheIdentity() {
        #expect(CacheKey(identity: "abc").hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func keyFromHexAcceptsOnlyLowercase64HexDigits() {
        let hex = String(repeating: "0123456789abcdef", count: 4)
        #expect(CacheKey(hex: hex)?.hex == hex)
        #expect(CacheKey(hex: hex.uppercased()) == nil)
        #expect(CacheKey(hex: String(hex.dropLast())) == nil)
        #expect(CacheKey(hex: String(hex.dropLast()) + "g") == nil)
        #expect(CacheKey(hex: "../" + String(hex.dropFirst(3))) == nil)
    }

    @Test func layoutPaths() {
        let dir = CacheDirectory(root: "/var/cache/mc/")
        let key = CacheKey(identity: "abc")
        #expect(dir.root == "/var/cache/mc")
        #expect(dir.indexPath == "/var/cache/mc/index.sqlite")
        #expect(dir.dataPath(key: key) == "/var/cache/mc/partial/\(key.hex)/data")
        #expect(dir.statePath(key: key) == "/var/cache/mc/partial/\(key.hex)/state")
        #expect(dir.relativeObjectPath(key: key, extension: "mp4") == "objects/ba/\(key.hex).mp4")
        #expect(dir.relativeObjectPath(key: key, extension: nil) == "objects/ba/\(key.hex)")
        #expect(dir.absolute("objects/ba/x") == "/var/cache/mc/objects/ba/x")
    }

    @Test func prepareCreatesPrivateDirectories() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let dir = CacheDirectory(root: temporary.path + "/a/b/cache")
        try dir.prepare()
        for path in [dir.root, dir.objectsDirectory, dir.partialDirectory, dir.locksDirectory] {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            let permissions = try #require(attributes[.posixPermissions] as? NSNumber)
            #expect(permissions.intValue & 0o777 == 0o700, "\(path)")
        }
        try dir.prepare()  // idempotent
    }
}
