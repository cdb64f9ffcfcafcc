import Foundation
import Testing
import TestOrigin

extension EndToEnd {
    /// `ls`, `rm`, `gc` and `stats` on a real cache filled by `prefetch`.
    @Suite struct CacheCommands {
        let origin: TestOrigin
        let harness = Harness()

        init() throws { origin = try TestOrigin() }

        func fill(_ names: [String], size: Int = 300_000) throws -> [String: [UInt8]] {
            var files: [String: [UInt8]] = [:]
            for (index, name) in names.enumerated() {
                files[name] = TestBytes.make(size, seed: UInt64(100 + index))
                origin.serve("/" + name, Resource(files[name]!, contentType: "video/mp4"))
            }
            let result = try harness.prefetch(list: names.map { origin.url("/" + $0) }.joined(separator: "\n"), ["-j", "1"])
            #expect(result.status == 0, "\(result.stderr)")
            return files
        }

        @Test func rmRemovesTheObjectAndNamesUnknownOnes() throws {
            let files = try fill(["a.mp4", "b.mp4"])
            let path = try harness.run(["path", origin.url("/a.mp4")]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let result = try harness.run(["rm", origin.url("/a.mp4"), origin.url("/nope.mp4")])
            #expect(result.status == 1)
            #expect(result.stderr.contains("removed  \(origin.url("/a.mp4"))"))
            #expect(result.stderr.contains("not cached: \(origin.url("/nope.mp4"))"))
            #expect(!FileManager.default.fileExists(atPath: path))
            #expect(try harness.cachedBytes(origin.url("/a.mp4")) == nil)
            #expect(try harness.cachedBytes(origin.url("/b.mp4")) == files["b.mp4"])
            let listing = try harness.run(["ls"])
            #expect(!listing.stdout.contains("/a.mp4") && listing.stdout.contains("/b.mp4"))
        }

        @Test func gcEvictsLeastRecentlyUsedFirst() throws {
            let files = try fill(["a.mp4", "b.mp4", "c.mp4"])
            usleep(20_000)
            _ = try harness.run(["path", origin.url("/a.mp4")])  // a use: a is now the most recent
            let result = try harness.run(["gc", "--max-size", "700K"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("evicted  \(origin.url("/b.mp4"))"))
            #expect(try harness.cachedBytes(origin.url("/b.mp4")) == nil)
            #expect(try harness.cachedBytes(origin.url("/a.mp4")) == files["a.mp4"])
            #expect(try harness.cachedBytes(origin.url("/c.mp4")) == files["c.mp4"])
        }

        @Test func gcCleansOrphansAndStatsCountsWhatIsLeft() throws {
            _ = try fill(["a.mp4", "b.mp4"])
            let stray = harness.scratch.cache + "/objects/ff/" + String(repeating: "f", count: 64) + ".mp4"
            try FileManager.default.createDirectory(atPath: harness.scratch.cache + "/objects/ff", withIntermediateDirectories: true)
            FileManager.default.createFile(atPath: stray, contents: Data([1, 2, 3]))
            let gone = try harness.run(["path", origin.url("/b.mp4")]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            try FileManager.default.removeItem(atPath: gone)
            // A per-key lock file as earlier versions left them.
            let legacyLock = harness.scratch.cache + "/locks/" + String(repeating: "e", count: 64)
            FileManager.default.createFile(atPath: legacyLock, contents: Data("123\n".utf8))

            let result = try harness.run(["gc"])
            #expect(result.status == 0)
            #expect(result.stderr.contains("0 evicted, 1 orphan files, 1 rows without a file"))
            #expect(!FileManager.default.fileExists(atPath: stray))
            #expect(!FileManager.default.fileExists(atPath: legacyLock))
            #expect(FileManager.default.fileExists(atPath: harness.scratch.cache + "/locks/keys"))
            let stats = try harness.run(["stats", "--json"])
            let fields = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
            #expect(fields["objects"] as? Int == 1)
            #expect(fields["bytes"] as? Int == 300_000)
        }

        @Test func infoShowsAnObjectAndAnUnfinishedDownloadWithoutSecrets() throws {
            _ = try fill(["a.mp4"])
            let cached = try harness.run(["info", origin.url("/a.mp4"), "--json"])
            #expect(cached.status == 0, "\(cached.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(cached.stdout.utf8)) as? [String: Any])
            #expect(object["state"] as? String == "cached")
            #expect(object["size"] as? Int == 300_000)
            #expect((object["sha256"] as? String)?.count == 64)

            var faults = Faults()
            faults.bytesPerSecond = 500_000
            origin.serve("/slow.mp4", Resource(TestBytes.make(4 << 20, seed: 9), faults: faults))
            let run = try harness.startPrefetch(
                list: origin.url("/slow.mp4") + "\n  header=Authorization: Bearer very-secret\n", ["-x", "1"])
            Harness.waitUntil(timeout: 10) { ((try? harness.savedBytes()) ?? 0) > 0 }
            run.signal(SIGKILL)
            _ = run.wait()
            let partial = try harness.run(["info", origin.url("/slow.mp4")])
            #expect(partial.status == 0, "\(partial.stderr)")
            #expect(partial.stdout.contains("unfinished"))
            #expect(partial.stdout.contains("Authorization: (hidden)"))
            #expect(!partial.stdout.contains("very-secret"))
            // Numbers are JSON numbers, as in `status --json`.
            let partialJSON = try harness.run(["info", origin.url("/slow.mp4"), "--json"])
            let job = try #require(try JSONSerialization.jsonObject(with: Data(partialJSON.stdout.utf8)) as? [String: Any])
            #expect(job["length"] as? Int == 4 << 20, "\(partialJSON.stdout)")
            #expect((job["bytes_done"] as? Int).map { $0 > 0 } == true, "\(partialJSON.stdout)")
            #expect(job["ranges_supported"] as? Bool == true, "\(partialJSON.stdout)")
            #expect(job["headers"] as? [String] == ["Authorization: (hidden)"], "\(partialJSON.stdout)")

            let unknown = try harness.run(["info", origin.url("/nope.mp4")])
            #expect(unknown.status == 1)
            #expect(unknown.stderr.contains("not cached and no unfinished download: \(origin.url("/nope.mp4"))"))
        }
    }
}
