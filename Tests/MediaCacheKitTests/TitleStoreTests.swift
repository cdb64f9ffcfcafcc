import Foundation
import Testing
@testable import MediaCacheKit

/// The store's side of streaming titles: a title is one row and one directory, and
/// `path`, `rm`, `gc`, `verify`, the index rebuild and bundles treat it as one unit.
@Suite("TitleStore")
struct TitleStoreTests {
    let url = "https://a.example/show/master.m3u8"

    @Test func openIntactAcceptsATitleAndRefusesATamperedManifest() throws {
        let cache = try BundleTestCache("mediacache-title")
        let title = try TitleFixture.write(url: url, in: cache.directory, index: cache.index)
        let store = try ObjectStore(directory: cache.directory)

        let intact = try #require(store.openIntact(key: title.key))
        #expect(intact.titleManifest == title.manifest)
        #expect(intact.file.path == cache.directory.absolute(title.object.path))
        #expect(try store.verifiedPath(for: url) == cache.directory.absolute(title.object.path))

        // One byte of title.json changed: not the manifest the row names.
        var bytes = title.manifestBytes
        bytes[bytes.count - 2] ^= 0x01
        FileManager.default.createFile(atPath: title.directoryPath + "/title.json", contents: Data(bytes))
        #expect(store.openIntact(key: title.key) == nil)
        #expect(try store.verifiedPath(for: url) == nil)
    }

    @Test func aTitleDirectoryThatIsALinkIsNotIntact() throws {
        let cache = try BundleTestCache("mediacache-title")
        let title = try TitleFixture.write(url: url, in: cache.directory, index: cache.index)
        let elsewhere = cache.root + "/elsewhere.title"
        try FileSystem.rename(title.directoryPath, to: elsewhere)
        try FileManager.default.createSymbolicLink(atPath: title.directoryPath, withDestinationPath: elsewhere)
        #expect(try ObjectStore(directory: cache.directory).openIntact(key: title.key) == nil)
        // Removing it takes the link away, never what it points to.
        try CacheMaintenance(directory: cache.directory).remove(url)
        #expect(FileSystem.entryType(title.directoryPath) == nil)
        #expect(FileManager.default.fileExists(atPath: elsewhere + "/title.json"))
    }

    @Test func rmRemovesTheDirectoryTheRowAndTheStagedTitle() throws {
        let cache = try BundleTestCache("mediacache-title")
        let title = try TitleFixture.write(url: url, in: cache.directory, index: cache.index)
        let staging = TitleLayout.staging(key: title.key, in: cache.directory)
        try FileSystem.makeDirectory(staging + "/files/variant-1")
        FileManager.default.createFile(atPath: staging + "/files/variant-1/s0.ts", contents: Data(count: 500))

        let removal = try CacheMaintenance(directory: cache.directory).remove(url)
        #expect(removal.objectBytes == title.object.size)
        #expect(removal.partialBytes == 500)
        #expect(FileSystem.entryType(title.directoryPath) == nil)
        #expect(FileSystem.entryType(staging) == nil)
        #expect(try cache.index.object(key: title.key) == nil)
    }

    @Test func rmOfAnOnlyStagedTitleRemovesIt() throws {
        let cache = try BundleTestCache("mediacache-title")
        let staging = TitleLayout.staging(key: CacheKey(identity: url), in: cache.directory)
        try FileSystem.makeDirectory(staging + "/files")
        let removal = try CacheMaintenance(directory: cache.directory).remove(url)
        #expect(removal.objectBytes == nil && removal.partialBytes == 0)
        #expect(FileSystem.entryType(staging) == nil)
    }

    @Test func gcKeepsAKnownTitleAndRemovesAnUnknownOne() throws {
        let cache = try BundleTestCache("mediacache-title")
        let known = try TitleFixture.write(url: url, in: cache.directory, index: cache.index)
        let orphan = try TitleFixture.write(url: "https://a.example/gone.m3u8", in: cache.directory, index: cache.index, row: false)
        try cache.add(identity: "https://a.example/clip.mp4", bytes: Array(repeating: 7, count: 1000))

        #expect(try ObjectVerifier(directory: cache.directory).orphans() == [TitleLayout.directory(key: orphan.key)])
        let report = try CacheMaintenance(directory: cache.directory).collectGarbage(maxSize: nil)
        #expect(report.orphanFiles == 1)
        #expect(report.rowsWithoutFile == 0)
        #expect(report.bytesFreed == orphan.object.size)
        #expect(report.remainingBytes == known.object.size + 1000)
        #expect(FileSystem.entryType(orphan.directoryPath) == nil)
        #expect(try ObjectStore(directory: cache.directory).openIntact(key: known.key) != nil)
    }

    @Test func gcEvictsATitleWhole() throws {
        let cache = try BundleTestCache("mediacache-title")
        let title = try TitleFixture.write(url: url, in: cache.directory, index: cache.index, added: Date(timeIntervalSinceNow: -60))
        try cache.add(identity: "https://a.example/clip.mp4", bytes: Array(repeating: 7, count: 1000))
        let report = try CacheMaintenance(directory: cache.directory).collectGarbage(maxSize: 1000)
        #expect(report.evicted == [url])
        #expect(report.bytesFreed == title.object.size)
        #expect(FileSystem.entryType(title.directoryPath) == nil)
    }

    @Test func gcRemovesAStagedTitleOnlyUnderThePartialAgeRule() throws {
        let cache = try BundleTestCache("mediacache-title")
        let staging = TitleLayout.staging(key: CacheKey(identity: url), in: cache.directory)
        try FileSystem.makeDirectory(staging + "/files/variant-0")
        FileManager.default.createFile(atPath: staging + "/files/variant-0/s0.ts", contents: Data(count: 300))
        // Its saved state is what a later run goes on from (without one, gc takes it at once).
        let state = try JobStateCodec.encode(JobState(entry: ListEntry(urls: [url]), commandHeaders: []))
        FileManager.default.createFile(atPath: staging + "/" + TitleLayout.stateFile, contents: Data(state))
        let maintenance = try CacheMaintenance(directory: cache.directory)

        #expect(try maintenance.collectGarbage(maxSize: nil).oldPartialJobs == 0)
        #expect(try maintenance.collectGarbage(maxSize: nil, partialOlderThan: 3600).oldPartialJobs == 0)
        #expect(FileSystem.entryType(staging) == S_IFDIR)

        let old = Date(timeIntervalSinceNow: -7200)
        for path in [
            staging, staging + "/files", staging + "/files/variant-0", staging + "/files/variant-0/s0.ts",
            staging + "/" + TitleLayout.stateFile,
        ] {
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: path)
        }
        let report = try maintenance.collectGarbage(maxSize: nil, partialOlderThan: 3600)
        #expect(report.oldPartialJobs == 1)
        #expect(report.bytesFreed == 300 + Int64(state.count))
        #expect(FileSystem.entryType(staging) == nil)
    }

    @Test func verifyRehashesEveryMemberAndNamesTheChangedOne() throws {
        let cache = try BundleTestCache("mediacache-title")
        let title = try TitleFixture.write(url: url, in: cache.directory, index: cache.index)
        let verifier = try ObjectVerifier(directory: cache.directory)
        let good = try verifier.verify()
        #expect(good.verified == 1 && good.bad.isEmpty)
        #expect(good.bytes == title.object.size)

        let member = "variant-0/s1.ts"
        let file = try DataFile(path: title.directoryPath + "/" + member, mode: .readWrite)
        try file.write([~(try file.read(count: 1, at: 500)[0])], at: 500)
        let report = try verifier.verify()
        let finding = try #require(report.bad.first)
        guard case .member(let path, .wrongHash) = finding.problem else {
            Issue.record("changed byte not found: \(report.bad)")
            return
        }
        #expect(path == title.relativePath(of: member))
        #expect(finding.problem.isDamage)
        #expect(finding.description.contains("\(title.relativePath(of: member)): wrong hash"))
        #expect(finding.description.contains("title.json says"))

        FileSystem.remove(title.directoryPath + "/keys/k0.key")
        file.truncateQuietly(to: 900)
        let missing = try verifier.verify(names: [url])
        #expect(missing.bad.first?.problem == .member(title.relativePath(of: member), .wrongSize(actual: 900, expected: 1000)))
    }

    @Test func verifyRepairStyleRemovalTakesTheWholeTitle() throws {
        let cache = try BundleTestCache("mediacache-title")
        let title = try TitleFixture.write(url: url, in: cache.directory, index: cache.index)
        FileSystem.remove(title.directoryPath + "/variant-0/s0.ts")
        let finding = try #require(try ObjectVerifier(directory: cache.directory).verify().bad.first)
        #expect(finding.problem == .member(title.relativePath(of: "variant-0/s0.ts"), .missing))
        #expect(finding.problem.isDamage)
        try CacheMaintenance(directory: cache.directory).remove(finding.name)
        #expect(FileSystem.entryType(title.directoryPath) == nil)
    }

    @Test func indexRebuildRestoresATitlesRowAndLeavesADamagedOneOut() throws {
        let cache = try TemporaryCache("mediacache-title")
        defer { cache.remove() }
        let title: TitleFixture
        let damaged: TitleFixture
        do {
            let index = try CacheIndex(directory: cache.directory)
            title = try TitleFixture.write(url: url, in: cache.directory, index: index)
            damaged = try TitleFixture.write(url: "https://a.example/bad.m3u8", in: cache.directory, index: index)
        }
        FileManager.default.createFile(atPath: damaged.directoryPath + "/title.json", contents: Data("{not json".utf8))
        for suffix in ["-wal", "-shm"] { FileSystem.remove(cache.directory.indexPath + suffix) }
        FileManager.default.createFile(atPath: cache.directory.indexPath, contents: Data(repeating: 0x55, count: 8192))

        let index = try CacheIndex(directory: cache.directory)
        let row = try #require(try index.object(key: title.key))
        #expect(row.path == title.object.path)
        #expect(row.size == title.object.size)
        #expect(row.sha256 == title.object.sha256)
        #expect(row.url == url && row.cacheKey == url)
        #expect(row.contentType == "application/vnd.apple.mpegurl")
        #expect(row.faststart == .skipped("streaming title"))
        #expect(try index.lookup(url)?.key == title.key.hex)
        #expect(try index.object(key: damaged.key) == nil)
        #expect(try ObjectStore(directory: cache.directory).openIntact(key: title.key) != nil)
    }

    @Test func aTitleTravelsWholeThroughABundle() throws {
        let cache = try BundleTestCache("mediacache-title")
        let title = try TitleFixture.write(url: url, in: cache.directory, index: cache.index)
        let bundle = try cache.export()
        let manifest = try BundleManifest.read(bundleAt: bundle)
        let entry = try #require(manifest.entries.first)
        #expect(manifest.entries.count == 1)
        #expect(entry.path == "objects/\(title.key.hex).title")
        #expect(entry.title == .init(format: .hls, files: title.manifest.members.count, segments: 3))
        #expect(entry.sha256 == title.object.sha256 && entry.size == title.object.size)

        let target = try BundleTestCache("mediacache-title-target")
        let (summary, _) = try target.importBundle(bundle)
        #expect(summary.imported == 1 && summary.isComplete)
        let intact = try #require(ObjectStore(directory: target.directory).openIntact(key: title.key))
        #expect(intact.object.sha256 == title.object.sha256 && intact.object.size == title.object.size)
        #expect(intact.titleManifest == title.manifest)
        for (member, bytes) in title.members {
            let copy = FileManager.default.contents(atPath: target.directory.absolute(title.relativePath(of: member)))
            #expect(copy.map(Array.init) == bytes, "\(member)")
        }
        #expect(target.partialFiles.isEmpty)
        let (again, _) = try target.importBundle(bundle)
        #expect(again.alreadyCached == 1 && again.imported == 0)
    }

    @Test func aDryRunChecksATitleAndWritesNothing() throws {
        let cache = try BundleTestCache("mediacache-title")
        try TitleFixture.write(url: url, in: cache.directory, index: cache.index)
        let bundle = try cache.export()
        let target = try BundleTestCache("mediacache-title-target")
        let (summary, events) = try target.importBundle(bundle, options: ImportOptions(dryRun: true))
        #expect(summary.imported == 1 && summary.isComplete)
        #expect(events.contains { if case .verified = $0 { true } else { false } })
        #expect(try target.index.all().isEmpty)
        #expect(FileSystem.contentsOfDirectory(target.directory.root + "/objects").isEmpty)
        #expect(target.partialFiles.isEmpty)
    }

    @Test func anAbandonedStagedTitleGoesWithItsLockFile() throws {
        let cache = try BundleTestCache("mediacache-title")
        let owner = cache.directory.partialDirectory + "/" + StagedObject.prefix + "killed"
        FileManager.default.createFile(atPath: owner, contents: Data())
        try FileSystem.makeDirectory(owner + StagedTitle.folderSuffix + "/variant-0", durable: false)
        FileManager.default.createFile(atPath: owner + StagedTitle.folderSuffix + "/variant-0/s0.ts", contents: Data(count: 500))
        #expect(StagedObject.all(in: cache.directory).map(\.size) == [500])
        #expect(StagedObject.removeAbandoned(in: cache.directory).count == 1)
        #expect(cache.partialFiles.isEmpty)
    }

    @Test func titleMemberNamesAreClassified() {
        let key = CacheKey(identity: url)
        #expect(EntryPathPolicy.classify(Array("objects/\(key.hex).title/variant-0/s0.ts".utf8)) == .titleMember(key: key, member: "variant-0/s0.ts"))
        #expect(EntryPathPolicy.classify(Array("objects/\(key.hex).title/../../../etc/passwd".utf8)) == .rejected(.parentComponent))
        #expect(EntryPathPolicy.classify(Array("objects/\(key.hex).title/a//b.ts".utf8)) == .rejected(.unexpectedName))
        #expect(EntryPathPolicy.classify(Array("objects/\(key.hex).title/./b.ts".utf8)) == .rejected(.unexpectedName))
        #expect(EntryPathPolicy.classify(Array("objects/\(key.hex).title".utf8)) == .object(key: key, extension: "title"))
    }

    @Test func memberPathsStayInsideTheTitle() {
        for path in ["index.m3u8", "variant-0/s1.ts", "audio-aac-English/init.mp4"] { #expect(TitleOnDisk.isSafeMemberPath(path)) }
        for path in ["", "/etc/passwd", "../x", "a/../../x", "a//b", "./a", "a/\u{1}b", String(repeating: "a/", count: 9) + "b"] {
            #expect(!TitleOnDisk.isSafeMemberPath(path), "\(path)")
        }
    }

    /// `-d DIR` puts a title there as a folder named by its URL (`master` says nothing:
    /// the folder above it), its files hard links to the cache's; a second placement finds it.
    @Test func placementPutsATitleInAFolderOfItsFiles() throws {
        let cache = try BundleTestCache("mediacache-title")
        let title = try TitleFixture.write(url: url, in: cache.directory, index: cache.index)
        let outcome = LockedValue<ObjectPlacer.Outcome?>(nil)
        let placer = ObjectPlacer(cache: cache.directory) { _, result in outcome.withLock { $0 = result } }
        var entry = ListEntry(urls: [url])
        entry.directory = cache.root + "/out"
        placer.place(title.object, for: entry)
        placer.wait()
        guard case .success(let placed)? = outcome.withLock({ $0 }) else {
            Issue.record("not placed: \(String(describing: outcome.withLock { $0 }))")
            return
        }
        let folder = cache.root + "/out/show"
        #expect(placed == ObjectPlacement.Placed(path: folder + "/index.m3u8", method: .linked))
        let stored = cache.directory.absolute(title.object.titleDirectory!)
        for member in title.manifest.members.map(\.path) + [title.manifest.entry] {
            let (a, b) = (try FileManager.default.attributesOfItem(atPath: folder + "/" + member),
                          try FileManager.default.attributesOfItem(atPath: stored + "/" + member))
            #expect(a[.systemFileNumber] as? Int == b[.systemFileNumber] as? Int, "\(member)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder + "/" + TitleManifest.fileName))
        placer.place(title.object, for: entry)
        placer.wait()
        guard case .success(let again)? = outcome.withLock({ $0 }) else {
            Issue.record("not placed again: \(String(describing: outcome.withLock { $0 }))")
            return
        }
        #expect(again == ObjectPlacement.Placed(path: folder + "/index.m3u8", method: .alreadyThere))
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache.root + "/out") == ["show"])
        #expect(placer.failureCount == 0)
    }
}

extension DataFile {
    fileprivate func truncateQuietly(to length: Int64) { try? truncate(length: length) }
}
