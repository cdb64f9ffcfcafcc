import Foundation
import MediaCacheKit
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

        /// A --cache-dir with no folder (mistyped) is named as no cache at all, not as an
        /// empty one; reading it makes nothing.
        @Test func aCacheFolderThatDoesNotExistIsNamedAsNoCache() throws {
            let missing = harness.scratch.path + "/no-such-cache"
            for command in [["ls"], ["stats"], ["path", "http://127.0.0.1:9/a.mp4"]] {
                let result = try MediaCacheProcess.run(command + ["--cache-dir", missing])
                #expect(result.stderr.contains("there is no cache at \(missing) (no such folder"), "\(command): \(result.stderr)")
            }
            #expect(!FileManager.default.fileExists(atPath: missing))
            try FileManager.default.createDirectory(atPath: missing, withIntermediateDirectories: true)
            let empty = try MediaCacheProcess.run(["ls", "--cache-dir", missing])
            #expect(empty.status == 0 && empty.stderr.contains("the cache at \(missing) is empty"), "\(empty.stderr)")
        }

        /// JSON lines: one object a line, and nothing at all, not `[]`, for an empty cache
        /// (none yet, and one emptied by rm).
        @Test func jsonListingsAreJSONLinesAndEmptyForAnEmptyCache() throws {
            for command in [["ls", "--json"], ["status", "--json"]] {
                let none = try harness.run(command)
                #expect(none.status == 0 && none.stdout.isEmpty && none.stderr.isEmpty, "\(command): \(none)")
            }
            // Asking about a cache that is not there (a mistyped --cache-dir) makes none.
            for command in [["stats"], ["stats", "--json"], ["gc"], ["ls"], ["status"]] {
                let asked = try harness.run(command)
                #expect(asked.status == 0, "\(command): \(asked)")
                #expect(!FileManager.default.fileExists(atPath: harness.scratch.cache), "\(command) made the cache")
            }
            _ = try fill(["a.mp4", "b.mp4"])
            let listed = try harness.run(["ls", "--json"]).stdout.split(separator: "\n")
            #expect(listed.count == 2)
            for line in listed {
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                #expect(object?["url"] != nil, "\(line)")
            }
            #expect(try harness.run(["rm", origin.url("/a.mp4"), origin.url("/b.mp4")]).status == 0)
            for command in [["ls", "--json"], ["status", "--json"]] {
                let emptied = try harness.run(command)
                #expect(emptied.status == 0 && emptied.stdout.isEmpty, "\(command): \(emptied)")
            }
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

        var partialJobs: [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: harness.scratch.cache + "/partial")) ?? [])
                .filter { CacheKey(hex: $0) != nil }
        }

        /// Starts slow downloads of `names` and stops the run with SIGTERM once every one
        /// has saved progress: each leaves a partial download behind.
        func interruptDownloads(_ names: [String]) throws {
            var faults = Faults()
            faults.bytesPerSecond = 400_000
            for (index, name) in names.enumerated() {
                origin.serve("/" + name, Resource(TestBytes.make(4 << 20, seed: UInt64(200 + index)), faults: faults))
            }
            let run = try harness.startPrefetch(
                list: names.map { origin.url("/" + $0) }.joined(separator: "\n"), ["-x", "1", "-j", "\(names.count)"])
            let saved = Harness.waitUntil(timeout: 20) { partialJobs.count == names.count }
            run.signal(SIGTERM)
            let stopped = run.wait()
            try #require(saved, "no partial download appeared: \(stopped.stderr)")
            try #require(stopped.status == 143, "\(stopped.stderr)")
        }

        @Test func rmRemovesAnInterruptedDownloadAndSaysWhenOneIsRunning() throws {
            var faults = Faults()
            faults.bytesPerSecond = 400_000
            let url = origin.url("/slow.mp4")
            origin.serve("/slow.mp4", Resource(TestBytes.make(4 << 20, seed: 9), faults: faults))
            let run = try harness.startPrefetch(list: url, ["-x", "1"])
            try #require(Harness.waitUntil(timeout: 20) { ((try? harness.savedBytes()) ?? 0) > 0 })
            let busy = try harness.run(["rm", url])
            #expect(busy.status == 1)
            #expect(busy.stderr.contains("\(url) is being downloaded by another mediacache process"), "\(busy.stderr)")
            run.signal(SIGTERM)
            #expect(run.wait().status == 143)
            try #require(partialJobs.count == 1)

            // Named as a player would link it: the fragment is no part of the download.
            let removed = try harness.run(["rm", url + "#t=3"])
            #expect(removed.status == 0, "\(removed.stderr)")
            #expect(removed.stderr.contains("removed partial download of \(url)"), "\(removed.stderr)")
            #expect(partialJobs.isEmpty, "the partial download is gone")
            #expect(try harness.run(["status"]).stderr.contains("no interrupted downloads"))
            origin.clearLog()
            let resumed = try harness.run(["resume"])
            #expect(resumed.status == 0)
            #expect(resumed.stderr.contains("nothing to resume"), "\(resumed.stderr)")
            #expect(origin.requests(for: "/slow.mp4").isEmpty, "nothing is fetched again")
            let again = try harness.run(["rm", url])
            #expect(again.status == 1)
            #expect(again.stderr.contains("not cached: \(url)"))
        }

        @Test func gcRemovesPartialDownloadsOlderThanTheLimit() throws {
            try interruptDownloads(["old.mp4", "new.mp4"])
            let old = harness.scratch.cache + "/partial/" + CacheKey(identity: origin.url("/old.mp4")).hex
            let eightDaysAgo = Date().addingTimeInterval(-8 * 86_400)
            for name in try FileManager.default.contentsOfDirectory(atPath: old) + [""] {
                try FileManager.default.setAttributes([.modificationDate: eightDaysAgo], ofItemAtPath: old + "/" + name)
            }
            let kept = try harness.run(["gc", "--partial-older-than", "30d"])
            #expect(kept.status == 0, "\(kept.stderr)")
            #expect(partialJobs.count == 2)

            let collected = try harness.run(["gc", "--partial-older-than", "7d"])
            #expect(collected.status == 0, "\(collected.stderr)")
            #expect(collected.stderr.contains("1 partial download older than 7d"), "\(collected.stderr)")
            #expect(!FileManager.default.fileExists(atPath: old))
            #expect(partialJobs == [CacheKey(identity: origin.url("/new.mp4")).hex])

            for bad in ["7x", "d", "1.5h", "12"] {
                let result = try harness.run(["gc", "--partial-older-than", bad])
                #expect(result.status == 2, "\(bad): \(result.stderr)")
                #expect(result.stderr.contains("--partial-older-than must be a duration like 30m, 12h or 7d, got '\(bad)'"), "\(result.stderr)")
            }
            #expect(partialJobs.count == 1)
        }

        /// A title whose state could not be saved (its disk filled up) leaves segments no
        /// run can go on from: stats counts them, and gc removes them, as it removes an
        /// unreadable download; a title's stopped pull from the tier, which the next pull
        /// goes on from, stays.
        @Test func aTitleFolderWithoutStateIsCountedAndCollected() throws {
            let cache = harness.scratch.cache
            #expect(try harness.run(["stats"]).status == 0)
            let lost = cache + "/partial/" + CacheKey(identity: origin.url("/lost.m3u8")).hex + ".title"
            try FileManager.default.createDirectory(atPath: lost + "/media", withIntermediateDirectories: true)
            FileManager.default.createFile(atPath: lost + "/media/s0.ts", contents: Data(TestBytes.make(300_000, seed: 9)))
            let pull = cache + "/partial/" + CacheKey(identity: origin.url("/pulled.m3u8")).hex + ".title/pull"
            try FileManager.default.createDirectory(atPath: pull, withIntermediateDirectories: true)
            let manifest = #"{"version":1,"url":"\#(origin.url("/pulled.m3u8"))","format":"hls","entry":"index.m3u8","renditions":[],"members":[]}"#
            FileManager.default.createFile(atPath: pull + "/title.json", contents: Data(manifest.utf8))
            try #require(PartialJobs.pulls(in: CacheDirectory(root: cache)).count == 1, "the stand-in pull must read as one")

            let stats = try harness.run(["stats"])
            #expect(stats.stdout.contains("partial jobs  1 (0 B held, 293.0 KiB on disk)"), "\(stats.stdout)")
            let collected = try harness.run(["gc"])
            #expect(collected.status == 0, "\(collected.stderr)")
            #expect(collected.stderr.contains("1 unreadable partial job"), "\(collected.stderr)")
            #expect(!FileManager.default.fileExists(atPath: lost) && FileManager.default.fileExists(atPath: pull))
            #expect(try harness.run(["stats"]).stdout.contains("partial jobs  0"))
        }

        @Test func lsCutsLongNamesAndJSONKeepsThem() throws {
            let long = origin.url("/long.mp4") + "?token=" + String(repeating: "a", count: 20_000) + "END"
            origin.serve("/long.mp4", Resource(TestBytes.make(1000, seed: 5), contentType: "video/mp4"))
            origin.serve("/short.mp4", Resource(TestBytes.make(1000, seed: 6), contentType: "video/mp4"))
            let fetched = try harness.prefetch(list: long + "\n" + origin.url("/short.mp4"))
            try #require(fetched.status == 0, "\(fetched.stderr)")
            let listing = try harness.run(["ls"])
            #expect(listing.status == 0)
            let lines = listing.stdout.split(separator: "\n")
            #expect(lines.count == 3)
            for line in lines { #expect(line.count <= 200, "a line of \(line.count) characters") }
            let row = try #require(lines.first { $0.contains("…") })
            #expect(row.hasPrefix(origin.url("/long.mp4")) && row.contains("aaaEND"), "\(row)")
            #expect(lines.contains { $0.hasPrefix(origin.url("/short.mp4") + " ") })
            let json = try harness.run(["ls", "--json"])
            #expect(json.stdout.contains(long), "--json keeps the whole URL")
        }

        @Test func infoShowsAnObjectAndAnUnfinishedDownloadWithoutSecrets() throws {
            _ = try fill(["a.mp4"])
            let cached = try harness.run(["info", origin.url("/a.mp4"), "--json"])
            #expect(cached.status == 0, "\(cached.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(cached.stdout.utf8)) as? [String: Any])
            #expect(object["state"] as? String == "cached")
            #expect(object["size"] as? Int == 300_000)
            #expect((object["sha256"] as? String)?.count == 64)
            // What nobody gave is null, not a "-" a script would take for a value.
            #expect(object["name"] is NSNull, "\(cached.stdout)")
            // Times as `ls --json` gives them: ISO 8601, UTC.
            #expect((object["added"] as? String)?.hasSuffix("Z") == true, "\(cached.stdout)")
            #expect((object["added"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) } != nil)
            #expect(!cached.stdout.contains(#":"-""#), "\(cached.stdout)")

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
            #expect(job["checksum"] is NSNull, "\(partialJSON.stdout)")

            let unknown = try harness.run(["info", origin.url("/nope.mp4")])
            #expect(unknown.status == 1)
            #expect(unknown.stderr.contains("not cached and no unfinished download: \(origin.url("/nope.mp4"))"))
        }
    }
}
