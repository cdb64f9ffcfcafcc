import Foundation
import Testing
@testable import MediaCacheKit

/// How a title travels through the tier: one pack (`title.json`, then every member in
/// its order), a record of format 2 that says where `title.json` ends, and a layout
/// that keeps packs apart from files' objects.
@Suite("TitlePack")
struct TitlePackTests {
    let url = "https://a.example/show/master.m3u8"

    @Test func aPackIsTitleJSONThenEveryMemberInItsOrder() throws {
        let cache = try BundleTestCache("mediacache-pack")
        let title = try TitleFixture.write(url: url, in: cache.directory, index: cache.index)
        let intact = try #require(try TitleOnDisk.intactManifest(of: title.object, in: cache.directory))
        let path = cache.root + "/pack"
        try TitlePack.write(intact, folder: title.directoryPath, to: path)
        let expected = title.manifestBytes + title.manifest.members.flatMap { title.members[$0.path]! }
        #expect(FileManager.default.contents(atPath: path).map(Array.init) == expected)
        #expect(Int64(expected.count) == title.object.size)
    }

    @Test func aMemberChangedSinceItsCommitIsNeverPacked() throws {
        let cache = try BundleTestCache("mediacache-pack")
        let title = try TitleFixture.write(url: url, in: cache.directory, index: cache.index)
        let intact = try #require(try TitleOnDisk.intactManifest(of: title.object, in: cache.directory))
        FileManager.default.createFile(atPath: title.directoryPath + "/variant-0/s1.ts", contents: Data(repeating: 7, count: 1_000))
        let error = try #require(throws: TierError.self) {
            try TitlePack.write(intact, folder: title.directoryPath, to: cache.root + "/pack")
        }
        #expect("\(error)".contains("variant-0/s1.ts no longer matches title.json"))
    }

    @Test func aTitleRecordSaysWhereTitleJSONEndsAndNamesItsPack() throws {
        let cache = try BundleTestCache("mediacache-pack")
        let title = try TitleFixture.write(url: url, in: cache.directory, index: cache.index)
        let record = TierRecord(of: title.object, titleManifestSize: Int64(title.manifestBytes.count))
        #expect(record.format == 2 && record.isTitle)
        #expect(try TierRecord.decode(record.encoded()) == record)
        #expect(TierRecord(of: title.object).format == 1)
        let layout = TierLayout(location: try TierLocation(parsing: "s3://bucket/fleet"))
        #expect(layout.objectKey(for: record) == "fleet/titles/" + title.object.sha256)

        var claimsTooMuch = record
        claimsTooMuch.titleManifestSize = record.size + 1
        #expect(throws: TierRecordError.self) { try TierRecord.decode(claimsTooMuch.encoded()) }
    }
}
