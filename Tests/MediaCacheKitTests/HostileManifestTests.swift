import Foundation
import Testing
@testable import MediaCacheKit

/// Manifests whose sizes are absurd: refused as malformed before import does any
/// arithmetic with them (it used to trap adding them up).
@Suite("BundleManifest, hostile sizes")
struct HostileManifestTests {
    private func manifest(sizes: [Int64]) -> BundleManifest {
        BundleManifestTests.manifest(
            sizes.enumerated().map { BundleManifestTests.entry("https://a.example/\($0.offset).mp4", size: $0.element) })
    }

    @Test(arguments: [[Int64.max], [1 << 62, 1 << 62], [(1 << 60) + 1], [1 << 59, 1 << 59, 1 << 59]] as [[Int64]])
    func sizesAddingUpPastOneExbibyteAreRefused(sizes: [Int64]) throws {
        let problem = try #require(BundleManifestCodec.problem(in: manifest(sizes: sizes)))
        #expect(problem.hasSuffix("sizes add up to more than 1 EiB"), "\(problem)")
    }

    @Test func largeButPossibleSizesPass() {
        #expect(BundleManifestCodec.problem(in: manifest(sizes: [1 << 59, 1 << 59, 0])) == nil)
    }

    /// The importer read an entry with `limit + 1` (trap at Int64.max) and summed sizes
    /// for progress (trap past Int64.max): now the bundle is refused as a whole.
    @Test(arguments: [[Int64.max], [1 << 62, 1 << 62]] as [[Int64]])
    func importRefusesTheBundleWithoutTrapping(sizes: [Int64]) throws {
        let cache = try BundleTestCache("mediacache-hostile-manifest")
        let manifest = manifest(sizes: sizes)
        let path = cache.root + "/huge.mcbundle"
        let writer = try ArchiveWriter(path: path, bundle: "huge.mcbundle", level: 1, threads: 1)
        let entries = [(EntryPathPolicy.manifestName, try BundleManifestCodec.encode(manifest))]
            + manifest.entries.map { ($0.path, [UInt8](repeating: 7, count: 10)) }
        for (name, bytes) in entries {
            try writer.beginEntry(path: name, size: Int64(bytes.count), modified: Date())
            try bytes.withUnsafeBytes { try writer.write($0) }
            try writer.finishEntry()
        }
        try writer.close()

        do {
            _ = try cache.importBundle(path, options: ImportOptions(dryRun: true))
            Issue.record("imported a manifest with sizes \(sizes)")
        } catch let error as BundleError {
            #expect("\(error)".contains("sizes add up to more than 1 EiB"), "\(error)")
        }
        #expect(cache.partialFiles.isEmpty)
    }
}
