import Foundation
import Testing
import TestSupport
@testable import MediaCacheKit

/// A cache in a fresh temporary folder, filled the way the committer fills it: a file
/// under `objects/` and its index row.
final class BundleTestCache {
    let temporary: TemporaryDirectory
    let directory: CacheDirectory
    let index: CacheIndex

    init(_ label: String = "mediacache-bundle") throws {
        temporary = try TemporaryDirectory(label)
        directory = CacheDirectory(root: temporary.path + "/cache")
        try directory.prepare()
        index = try CacheIndex(directory: directory)
    }

    deinit { temporary.remove() }

    var root: String { temporary.path }

    @discardableResult
    func add(
        identity: String, url: String? = nil, mirrors: [String] = [], bytes: [UInt8], ext: String? = "mp4",
        added: Date = Date()
    ) throws -> CachedObject {
        let key = CacheKey(identity: identity)
        let relative = directory.relativeObjectPath(key: key, extension: ext)
        try FileSystem.makeDirectory((directory.absolute(relative) as NSString).deletingLastPathComponent)
        FileManager.default.createFile(atPath: directory.absolute(relative), contents: Data(bytes))
        let digest = Digest(.sha256)
        digest.update(bytes)
        let object = CachedObject(
            key: key, cacheKey: identity, path: relative, size: Int64(bytes.count), sha256: digest.finalizeHex(),
            faststart: .original, url: url ?? identity, mirrors: mirrors, contentType: "video/mp4",
            validators: ("\"e\"", nil), addedAt: added, lastUsedAt: added)
        try index.insert(object, aliases: [object.url] + mirrors + [identity])
        return object
    }

    func bytes(of name: String) throws -> [UInt8]? {
        guard let object = try index.lookup(name) else { return nil }
        return FileManager.default.contents(atPath: directory.absolute(object.path)).map(Array.init)
    }

    func export(_ selection: ExportSelection = ExportSelection(), to name: String = "b.mcbundle") throws -> String {
        let path = root + "/" + name
        let exporter = try BundleExporter(cache: directory)
        _ = try exporter.export(
            try exporter.manifest(for: selection, options: ExportOptions()), to: path, options: ExportOptions(threads: 1))
        return path
    }

    func importBundle(_ path: String, options: ImportOptions = ImportOptions()) throws -> (ImportSummary, [ImportEvent]) {
        var events: [ImportEvent] = []
        let importer = try BundleImporter(cache: directory, options: options, events: { events.append($0) })
        return (try importer.importBundle(at: path, name: (path as NSString).lastPathComponent), events)
    }

    /// Every file under the temporary folder except the cache's own bookkeeping.
    var partialFiles: [String] { FileSystem.contentsOfDirectory(directory.partialDirectory) }
}

private func sample(_ count: Int, seed: UInt64) -> [UInt8] {
    var generator = SeededGenerator(seed: seed)
    var bytes = [UInt8](repeating: 0, count: (count + 7) / 8 * 8)
    bytes.withUnsafeMutableBytes { raw in
        for index in 0..<raw.count / 8 { raw.storeBytes(of: generator.next(), toByteOffset: index * 8, as: UInt64.self) }
    }
    return Array(bytes.prefix(count))
}

@Suite("Bundle export and import")
struct BundleImportTests {
    @Test func roundTripRecreatesEveryObjectAndName() throws {
        let source = try BundleTestCache()
        let a = sample(300_000, seed: 1)
        let b = sample(70_000, seed: 2)
        try source.add(identity: "https://a.example/a.mp4", mirrors: ["https://m.example/a.mp4"], bytes: a)
        try source.add(identity: "catalog/b", url: "https://b.example/b.m4a?token=s3cr3t", bytes: b, ext: "m4a")
        try source.add(identity: "https://a.example/empty", bytes: [], ext: nil)
        let bundle = try source.export()

        let target = try BundleTestCache()
        let (summary, _) = try target.importBundle(bundle)
        #expect(summary.imported == 3 && summary.isComplete, "\(summary)")
        #expect(try target.bytes(of: "https://a.example/a.mp4") == a)
        #expect(try target.bytes(of: "https://m.example/a.mp4") == a)
        #expect(try target.bytes(of: "catalog/b") == b)
        #expect(try target.bytes(of: "https://a.example/empty") == [])
        // The token-bearing URL was not shipped, so it names nothing here.
        #expect(try target.index.lookup("https://b.example/b.m4a?token=s3cr3t") == nil)
        #expect(try target.index.lookup("catalog/b")?.url == "https://b.example/b.m4a")
        #expect(try ObjectVerifier(directory: target.directory).verify().bad.isEmpty)
        #expect(target.partialFiles.isEmpty)
    }

    @Test func secondImportChangesNothing() throws {
        let source = try BundleTestCache()
        try source.add(identity: "https://a.example/a.mp4", bytes: sample(50_000, seed: 3))
        let bundle = try source.export()
        let target = try BundleTestCache()
        _ = try target.importBundle(bundle)
        let before = try target.index.all()
        let (again, _) = try target.importBundle(bundle)
        #expect(again.imported == 0 && again.alreadyCached == 1 && again.isComplete)
        #expect(try target.index.all() == before)
    }

    @Test func dryRunVerifiesButWritesNothing() throws {
        let source = try BundleTestCache()
        try source.add(identity: "https://a.example/a.mp4", bytes: sample(50_000, seed: 4))
        let bundle = try source.export()
        let empty = try TemporaryDirectory("mediacache-dry")
        defer { empty.remove() }
        let cache = CacheDirectory(root: empty.path + "/cache")
        let importer = try BundleImporter(cache: cache, options: ImportOptions(dryRun: true))
        let summary = try importer.importBundle(at: bundle, name: "b")
        #expect(summary.imported == 1 && summary.isComplete)
        #expect(!FileManager.default.fileExists(atPath: cache.root))
    }

    @Test func objectBusyInAnotherProcessIsSkippedAndNamed() throws {
        let source = try BundleTestCache()
        try source.add(identity: "https://a.example/a.mp4", bytes: sample(10_000, seed: 5))
        try source.add(identity: "https://a.example/b.mp4", bytes: sample(10_000, seed: 6))
        let bundle = try source.export()
        let target = try BundleTestCache()
        let held = try #require(try KeyLock.tryAcquire(key: CacheKey(identity: "https://a.example/a.mp4"), in: target.directory))
        let (summary, events) = try target.importBundle(bundle)
        withExtendedLifetime(held) {}
        #expect(summary.imported == 1 && summary.skipped == 1 && !summary.isComplete)
        let skipped = events.compactMap { event -> String? in
            if case .skipped(let entry, let reason) = event { return entry.url + ": " + reason }
            return nil
        }
        #expect(skipped == ["https://a.example/a.mp4: another mediacache process is downloading or importing it; run the import again when it has finished"])
        #expect(try target.index.lookup("https://a.example/a.mp4") == nil)
    }

    @Test func differentVersionIsKeptUnlessReplaceIsAsked() throws {
        let source = try BundleTestCache()
        let new = sample(20_000, seed: 7)
        try source.add(identity: "https://a.example/a.mp4", bytes: new)
        let bundle = try source.export()
        let target = try BundleTestCache()
        let old = sample(10_000, seed: 8)
        try target.add(identity: "https://a.example/a.mp4", bytes: old, ext: "bin")

        let (kept, _) = try target.importBundle(bundle)
        #expect(kept.skipped == 1)
        #expect(try target.bytes(of: "https://a.example/a.mp4") == old)

        let (replaced, _) = try target.importBundle(bundle, options: ImportOptions(replace: true))
        #expect(replaced.imported == 1 && replaced.isComplete)
        #expect(try target.bytes(of: "https://a.example/a.mp4") == new)
        // The old file (another extension) is gone, and nothing is left unlisted.
        #expect(target.objectFiles.count == 1)
    }

    @Test func incrementalSelectionBySinceAndByAnotherManifest() throws {
        let source = try BundleTestCache()
        try source.add(identity: "https://a.example/old.mp4", bytes: sample(1000, seed: 9), added: Date(timeIntervalSince1970: 1_700_000_000))
        let first = try source.export(to: "first.mcbundle")
        try source.add(identity: "https://a.example/new.mp4", bytes: sample(1000, seed: 10), added: Date(timeIntervalSince1970: 1_800_000_000))

        let exporter = try BundleExporter(cache: source.directory)
        let since = try exporter.manifest(for: ExportSelection(since: Date(timeIntervalSince1970: 1_750_000_000)), options: ExportOptions())
        #expect(since.entries.map(\.url) == ["https://a.example/new.mp4"])
        let excluding = try exporter.manifest(
            for: ExportSelection(excluded: [try BundleManifest.read(bundleAt: first)]), options: ExportOptions())
        #expect(excluding.entries.map(\.url) == ["https://a.example/new.mp4"])
        #expect(throws: BundleError.notCached("https://a.example/missing.mp4")) {
            try exporter.manifest(for: ExportSelection(names: ["https://a.example/missing.mp4"]), options: ExportOptions())
        }
    }

    @Test func corruptObjectStopsTheExportAndLeavesNoFile() throws {
        let source = try BundleTestCache()
        let object = try source.add(identity: "https://a.example/a.mp4", bytes: sample(100_000, seed: 11))
        let file = try DataFile(path: source.directory.absolute(object.path), mode: .readWrite)
        try file.write([0xFF ^ (try file.read(count: 1, at: 5000)[0])], at: 5000)
        #expect(throws: BundleError.self) { try source.export() }
        #expect(FileSystem.contentsOfDirectory(source.root).filter { $0.contains("mcbundle") }.isEmpty)
    }

    @Test func cancelledImportRemovesItsTemporaryFileAndKeepsWhatItCommitted() throws {
        let source = try BundleTestCache()
        for index in 0..<4 {
            try source.add(identity: "https://a.example/\(index).mp4", bytes: sample(3 << 20, seed: UInt64(20 + index)))
        }
        let bundle = try source.export()
        let target = try BundleTestCache()
        var blocks = 0
        let importer = try BundleImporter(
            cache: target.directory,
            events: { if case .progress = $0 { blocks += 1 } },
            isCancelled: { blocks > 5 })
        #expect(throws: BundleError.cancelled) { try importer.importBundle(at: bundle, name: "b") }
        #expect(target.partialFiles.isEmpty)
        let report = try ObjectVerifier(directory: target.directory).verify()
        #expect(report.bad.isEmpty)
        #expect(report.verified >= 1 && report.verified < 4, "\(report.verified) committed before the cancel")
        #expect(target.objectFiles.count == report.verified)
    }

    @Test func abandonedTemporaryFilesAreRemovedLiveOnesKept() throws {
        let cache = try BundleTestCache()
        let live = try StagedObject(cache: cache.directory)
        let abandoned = cache.directory.partialDirectory + "/import-abandoned"
        FileManager.default.createFile(atPath: abandoned, contents: Data([1, 2, 3]))
        // Just written, yet no import holds it: removed at once.
        let removed = StagedObject.removeAbandoned(in: cache.directory)
        #expect(removed.map(\.path) == [abandoned])
        #expect(!FileManager.default.fileExists(atPath: abandoned))
        #expect(FileManager.default.fileExists(atPath: live.path))
        withExtendedLifetime(live) {}
    }
}

@Suite("ObjectVerifier")
struct ObjectVerifierTests {
    @Test func namesEachBadObjectWithItsProblem() throws {
        let cache = try BundleTestCache()
        try cache.add(identity: "https://a.example/good.mp4", bytes: sample(10_000, seed: 1))
        let flipped = try cache.add(identity: "https://a.example/flipped.mp4", bytes: sample(10_000, seed: 2))
        let short = try cache.add(identity: "https://a.example/short.mp4", bytes: sample(10_000, seed: 3))
        let gone = try cache.add(identity: "https://a.example/gone.mp4", bytes: sample(10_000, seed: 4))
        let file = try DataFile(path: cache.directory.absolute(flipped.path), mode: .readWrite)
        try file.write([~(try file.read(count: 1, at: 9_999)[0])], at: 9_999)
        try DataFile(path: cache.directory.absolute(short.path), mode: .readWrite).truncate(length: 9_000)
        FileSystem.remove(cache.directory.absolute(gone.path))

        let report = try ObjectVerifier(directory: cache.directory).verify()
        #expect(report.verified == 1)
        let problems = Dictionary(uniqueKeysWithValues: report.bad.map { ($0.name, $0.problem) })
        #expect(problems["https://a.example/short.mp4"] == .wrongSize(actual: 9_000, expected: 10_000))
        #expect(problems["https://a.example/gone.mp4"] == .missing)
        guard case .wrongHash = problems["https://a.example/flipped.mp4"] else {
            Issue.record("flipped byte not found: \(report.bad)")
            return
        }
    }

    @Test func onlyTheNamedObjectsAndUnknownNamesAreReported() throws {
        let cache = try BundleTestCache()
        try cache.add(identity: "https://a.example/a.mp4", bytes: sample(1000, seed: 1))
        try cache.add(identity: "https://a.example/b.mp4", bytes: sample(1000, seed: 2))
        let report = try ObjectVerifier(directory: cache.directory).verify(names: ["https://a.example/a.mp4", "nope"])
        #expect(report.verified == 1)
        #expect(report.bad.map(\.name) == ["nope"])
        #expect(report.bad.first?.problem == .notCached)
    }
}

extension BundleTestCache {
    /// Every regular file under `objects/`.
    var objectFiles: [String] {
        let root = directory.objectsDirectory
        return (FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []).filter {
            FileSystem.isRegularFile(root + "/" + $0)
        }
    }
}
