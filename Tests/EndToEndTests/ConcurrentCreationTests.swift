import Foundation
import Testing
import TestOrigin

extension EndToEnd {
    /// Two processes started together on a cache directory that does not exist yet: both
    /// create it, open and migrate its index, and neither may fail for the other.
    @Suite struct ConcurrentCreation {
        static let rounds = 20

        @Test func twoPrefetchesCreateOneNewCache() throws {
            let origin = try TestOrigin()
            let a = TestBytes.make(50_000, seed: 301)
            let b = TestBytes.make(50_000, seed: 302)
            origin.serve("/a.bin", Resource(a))
            origin.serve("/b.bin", Resource(b))
            let scratch = Scratch()
            let listA = scratch.write("a.txt", origin.url("/a.bin"))
            let listB = scratch.write("b.txt", origin.url("/b.bin"))
            for round in 0..<Self.rounds {
                let cache = scratch.path + "/cache\(round)"
                let first = try MediaCacheProcess.start(["prefetch", listA, "--cache-dir", cache, "-q"])
                let second = try MediaCacheProcess.start(["prefetch", listB, "--cache-dir", cache, "-q"])
                for result in [first.wait(), second.wait()] {
                    #expect(result.status == 0, "round \(round): \(result.stderr)")
                }
                for (url, bytes) in [(origin.url("/a.bin"), a), (origin.url("/b.bin"), b)] {
                    let path = try MediaCacheProcess.run(["path", url, "--cache-dir", cache])
                    #expect(path.status == 0, "round \(round): \(url) not cached: \(path.stderr)")
                    let exact = TestBytes.read(path.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) == bytes
                    #expect(exact, "round \(round): \(url) cached byte-exact")
                }
            }
        }

        @Test func twoImportsOfOneBundleCreateOneNewCache() throws {
            let fixture = try BundleFixture(sizes: [40_000, 30_000])
            for round in 0..<Self.rounds {
                let cache = fixture.target.scratch.path + "/cache\(round)"
                let first = try MediaCacheProcess.start(["import", fixture.bundle, "--cache-dir", cache])
                let second = try MediaCacheProcess.start(["import", fixture.bundle, "--cache-dir", cache])
                for result in [first.wait(), second.wait()] {
                    // An object the other import holds at that moment is skipped (exit 1,
                    // named); the index itself must never fail.
                    #expect(result.status == 0 || result.status == 1, "round \(round): \(result.status) \(result.stderr)")
                    #expect(!result.stderr.contains("SQLite") && !result.stderr.contains("cannot use the cache"),
                        "round \(round): \(result.stderr)")
                    if result.status == 1 {
                        #expect(result.stderr.contains("skipped"), "round \(round): \(result.stderr)")
                    }
                }
                for file in fixture.files {
                    let path = try MediaCacheProcess.run(["path", file.url, "--cache-dir", cache])
                    #expect(path.status == 0, "round \(round): \(file.url) not imported: \(path.stderr)")
                    let exact = TestBytes.read(path.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) == file.bytes
                    #expect(exact, "round \(round): \(file.url) imported byte-exact")
                }
            }
        }
    }
}
