import Foundation
import Testing
import TestOrigin

extension EndToEnd {
    /// What the environment a run starts in can get wrong: too few file descriptors,
    /// an empty HOME or cache variables, a cache path that is not a directory.
    @Suite struct Startup {
        let origin: TestOrigin
        let harness = Harness()

        init() throws { origin = try TestOrigin() }

        /// Soft and hard limit both 10 (libdispatch traps below 12): raising cannot help. One message on stderr, exit
        /// 3, no crash, and stdout holds only events.
        @Test func tooFewFileDescriptorsFailsCleanly() throws {
            origin.serve("/a.mp4", Resource(TestBytes.make(100_000, seed: 3), contentType: "video/mp4"))
            let list = harness.scratch.write("list.txt", origin.url("/a.mp4"))
            let result = try MediaCacheProcess.run(
                ["prefetch", list, "--cache-dir", harness.scratch.cache, "--json"],
                fileLimit: .init(soft: 10, hard: 10), timeout: 30)
            #expect(result.status == 3, "\(result.stdout)\n\(result.stderr)")
            #expect(result.stderr.contains("only 10 file descriptors"), "\(result.stderr)")
            #expect(result.stderr.contains("ulimit -n"), "\(result.stderr)")
            #expect(!result.stderr.contains("Backtracing"), "\(result.stderr)")
            let stream = EventStream(result.stdout)
            #expect(stream.isValid, "\(result.stdout)")
            #expect(stream.last?["event"] as? String == "summary", "\(result.stdout)")
            #expect(stream.named("failed").first?["code"] as? String == "file-limit", "\(result.stdout)")
            #expect(try harness.cachedBytes(origin.url("/a.mp4")) == nil)
        }

        /// Soft limit 12 under a high hard limit: the run raises it and succeeds.
        @Test func lowSoftLimitIsRaisedToTheHardLimit() throws {
            let bytes = TestBytes.make(3 << 20, seed: 4)
            origin.serve("/a.mp4", Resource(bytes, contentType: "video/mp4"))
            let list = harness.scratch.write("list.txt", origin.url("/a.mp4"))
            let result = try MediaCacheProcess.run(
                ["prefetch", list, "--cache-dir", harness.scratch.cache, "--json"],
                fileLimit: .init(soft: 12, hard: 4096), timeout: 30)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(EventStream(result.stdout).isValid, "\(result.stdout)")
            #expect(try harness.cachedBytes(origin.url("/a.mp4")) == bytes)
        }

        /// Soft and hard limit 64 with -j 16 -x 16 and 50 files: the run is made to fit
        /// (and says so) instead of files failing with "Too many open files". Three
        /// rounds, each into a new cache: the old engine failed in about one of five.
        @Test func runIsSizedToALowDescriptorLimit() throws {
            var files: [(url: String, bytes: [UInt8])] = []
            for index in 0..<50 {
                let bytes = TestBytes.make(1 << 20, seed: 500 + UInt64(index))
                origin.serve("/f\(index).bin", Resource(bytes))
                files.append((origin.url("/f\(index).bin"), bytes))
            }
            let list = harness.scratch.write("list.txt", files.map(\.url).joined(separator: "\n"))
            for round in 0..<3 {
                let cache = harness.scratch.path + "/cache-\(round)"
                let result = try MediaCacheProcess.run(
                    ["prefetch", list, "--cache-dir", cache, "-j", "16", "-x", "16", "--min-fragment", "64K"],
                    fileLimit: .init(soft: 64, hard: 64), timeout: 60)
                #expect(result.status == 0, "round \(round): \(result.stderr)")
                #expect(!result.stderr.contains("Too many open files"), "round \(round): \(result.stderr)")
                #expect(
                    result.stderr.contains("warning: the open-file limit (64) fits "), "round \(round): \(result.stderr)")
                for file in files.prefix(3) + files.suffix(3) {
                    let path = try MediaCacheProcess.run(["path", file.url, "--cache-dir", cache])
                    let cached = TestBytes.read(path.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
                    #expect(cached == file.bytes, "round \(round): \(file.url)")
                }
            }
        }

        /// HOME="" must not put the cache at /.cache/mediacache.
        @Test func emptyHomeIsAnErrorUnlessTheCacheIsNamed() throws {
            let empty = ["HOME": "", "XDG_CACHE_HOME": "", "MEDIACACHE_DIR": ""]
            let refused = try MediaCacheProcess.run(["status"], environment: empty)
            #expect(refused.status == 2, "\(refused.stderr)")
            #expect(refused.stderr.contains("HOME is not set"), "\(refused.stderr)")
            #expect(refused.stderr.contains("--cache-dir"), "\(refused.stderr)")

            let named = try MediaCacheProcess.run(["status", "--cache-dir", harness.scratch.cache], environment: empty)
            #expect(named.status == 0, "\(named.stderr)")
            #expect(named.stderr.contains(harness.scratch.cache), "\(named.stderr)")

            let xdg = try MediaCacheProcess.run(["status"], environment: ["HOME": "", "XDG_CACHE_HOME": harness.scratch.path])
            #expect(xdg.status == 0, "\(xdg.stderr)")
            #expect(xdg.stderr.contains(harness.scratch.path + "/mediacache"), "\(xdg.stderr)")
        }

        /// Empty XDG_CACHE_HOME and MEDIACACHE_DIR count as unset (XDG base directory spec).
        @Test func emptyCacheVariablesAreUnset() throws {
            let result = try MediaCacheProcess.run(
                ["status"], environment: ["HOME": harness.scratch.path, "XDG_CACHE_HOME": "", "MEDIACACHE_DIR": ""])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains(harness.scratch.path + "/.cache/mediacache"), "\(result.stderr)")
        }

        /// A cache that cannot be used (here a regular file): exit 3, and with --json the
        /// stream still says so and ends with the summary.
        @Test(arguments: ["prefetch", "resume"])
        func unusableCacheStillEndsTheEventStream(command: String) throws {
            let file = harness.scratch.write("not-a-directory", "x")
            let list = harness.scratch.write("list.txt", origin.url("/a.mp4"))
            let arguments = command == "prefetch" ? ["prefetch", list] : ["resume"]
            let result = try MediaCacheProcess.run(arguments + ["--cache-dir", file, "--json"])
            if command == "resume" {
                // Nothing recorded in a cache that cannot even be read: nothing to resume.
                #expect(result.status == 0 || result.status == 3, "\(result.stderr)")
            } else {
                #expect(result.status == 3, "\(result.stderr)")
            }
            let stream = EventStream(result.stdout)
            #expect(stream.isValid, "\(result.stdout)")
            #expect(stream.last?["event"] as? String == "summary", "\(result.stdout)")
            if result.status == 3 {
                #expect(stream.named("failed").first?["code"] as? String == "cache-unusable", "\(result.stdout)")
                #expect(result.stderr.contains("cannot use the cache at \(file)"), "\(result.stderr)")
            }
        }
    }
}
