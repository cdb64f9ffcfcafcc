import Foundation
import MediaCacheKit
import Testing
import TestOrigin

/// A genuine bundle made the way a user makes one (prefetch from an origin, `export`),
/// plus a fresh, empty cache to import into, and the checks every hostile-bundle test
/// makes afterwards.
struct BundleFixture {
    let origin: TestOrigin
    /// The cache the bundle was exported from.
    let source = Harness()
    /// The cache the tests import into.
    let target = Harness()
    let files: [(url: String, bytes: [UInt8])]
    let bundle: String

    init(sizes: [Int] = [120_000, 80_000, 200_000], seed: UInt64 = 40) throws {
        origin = try TestOrigin()
        var files: [(url: String, bytes: [UInt8])] = []
        for (index, size) in sizes.enumerated() {
            let bytes = TestBytes.make(size, seed: seed + UInt64(index))
            origin.serve("/clip\(index).mp4", Resource(bytes, contentType: "video/mp4"))
            files.append((origin.url("/clip\(index).mp4"), bytes))
        }
        self.files = files
        let fetched = try source.prefetch(list: files.map(\.url).joined(separator: "\n"), ["--no-faststart"])
        try #require(fetched.status == 0, "\(fetched.stderr)")
        bundle = source.scratch.path + "/genuine.mcbundle"
        let exported = try source.run(["export", bundle])
        try #require(exported.status == 0, "\(exported.stderr)")
    }

    /// `objects/<key>.mp4`: the name an object has inside the bundle.
    func entryName(_ index: Int) -> String {
        "objects/\(CacheKey(identity: files[index].url).hex).mp4"
    }

    /// Which of `files` a bundle entry holds.
    func fileIndex(ofEntry name: String) -> Int? {
        files.indices.first { entryName($0) == name }
    }

    /// The genuine bundle's members, in order (manifest first).
    func members() throws -> [TarMember] {
        try TarArchive.members(of: Zstd.decompress(Array(try Data(contentsOf: URL(fileURLWithPath: bundle)))))
    }

    /// Seals `members` into a zstd-compressed bundle in the target's scratch folder.
    func write(_ members: [TarMember], name: String = "hostile.mcbundle", endMarker: Bool = true) throws -> String {
        target.scratch.writeBytes(name, try Zstd.compress(TarArchive.build(members, endMarker: endMarker)))
    }

    func importBundle(_ path: String, _ extra: [String] = []) throws -> RunResult {
        try target.run(["import", path] + extra)
    }

    /// After a rejected import: the cache is consistent (`verify` passes, no temporary
    /// file left, every object file is listed), the rejected objects are not answered by
    /// `path`, the others are byte-exact, and nothing appeared outside the cache.
    func expectCacheHolds(
        only accepted: Set<Int>, outsideBefore: Set<String>, escapes: [String] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        for (index, file) in files.enumerated() {
            let bytes = try target.cachedBytes(file.url)
            if accepted.contains(index) {
                let exact = bytes == file.bytes
                #expect(exact, "object \(index) should be imported byte-exact", sourceLocation: sourceLocation)
            } else {
                let absent = bytes == nil
                #expect(absent, "object \(index) must not be cached", sourceLocation: sourceLocation)
            }
        }
        let verify = try target.run(["verify"])
        #expect(verify.status == 0, "\(verify.stderr)", sourceLocation: sourceLocation)
        #expect(verify.stdout.hasPrefix("\(accepted.count) object"), "\(verify.stdout)", sourceLocation: sourceLocation)
        #expect(target.scratch.objectFiles.count == accepted.count, "\(target.scratch.objectFiles)", sourceLocation: sourceLocation)
        let partial = (try? FileManager.default.contentsOfDirectory(atPath: target.scratch.cache + "/partial")) ?? []
        #expect(partial.isEmpty, "left in partial/: \(partial)", sourceLocation: sourceLocation)
        #expect(target.scratch.filesOutsideCache == outsideBefore, "nothing appears outside the cache", sourceLocation: sourceLocation)
        for path in escapes {
            #expect(!FileManager.default.fileExists(atPath: path), "\(path) must not exist", sourceLocation: sourceLocation)
        }
    }

    /// Where an archive name would land if something extracted it relative to the
    /// working directory, the cache, or its objects folder.
    func escapeCandidates(for name: String) -> [String] {
        if name.hasPrefix("/") { return [name] }
        return [FileManager.default.currentDirectoryPath, target.scratch.cache, target.scratch.cache + "/objects",
            target.scratch.cache + "/partial"].map { ($0 + "/" + name as NSString).standardizingPath }
    }
}

extension Scratch {
    /// Every path under the scratch folder except those inside the cache.
    var filesOutsideCache: Set<String> {
        let walker = FileManager.default.enumerator(atPath: path)
        let all = walker?.compactMap { $0 as? String } ?? []
        return Set(all.filter { $0 != "cache" && !$0.hasPrefix("cache/") })
    }
}
