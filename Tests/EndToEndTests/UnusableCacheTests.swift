import Foundation
import Testing
import TestOrigin

extension EndToEnd {
    /// A cache directory that cannot be used is exit 3 for every command, with a message
    /// naming it, and never a report about an "empty" cache.
    @Suite struct UnusableCache {
        @Test func aRegularFileAsCacheIsExitThreeForEveryCommand() throws {
            let fixture = try BundleFixture(sizes: [20_000])
            let scratch = fixture.target.scratch
            let notADirectory = scratch.write("not-a-directory", "a file\n")
            let list = scratch.write("list.txt", fixture.files[0].url)
            let url = fixture.files[0].url
            let commands: [[String]] = [
                ["prefetch", list], ["resume"], ["status"], ["path", url], ["info", url], ["ls"], ["ls", "--json"],
                ["rm", url], ["gc"], ["stats"], ["verify"], ["verify", url], ["export", scratch.path + "/out.mcbundle"],
                ["import", fixture.bundle], ["import", "--dry-run", fixture.bundle], ["bundle-info", fixture.bundle],
            ]
            for command in commands {
                let result = try MediaCacheProcess.run(command + ["--cache-dir", notADirectory])
                #expect(result.status == 3, "\(command): exit \(result.status), \(result.stderr)")
                #expect(result.stderr.contains(notADirectory), "\(command): \(result.stderr)")
                #expect(!result.stdout.contains("verified") && !result.stderr.contains("empty"), "\(command): \(result.stdout) \(result.stderr)")
            }
            #expect(TestBytes.read(notADirectory) == Array("a file\n".utf8), "the file is left alone")
            #expect(!FileManager.default.fileExists(atPath: scratch.path + "/out.mcbundle"))
        }

        /// A cache directory not made yet is an empty cache, not an unusable one: lookups
        /// say "not cached" (exit 1), listings are empty (exit 0), and nothing is created.
        @Test func aCacheNotMadeYetIsEmptyForEveryReadingCommand() throws {
            let scratch = Scratch()
            let missing = scratch.path + "/not-made-yet"
            let url = "http://127.0.0.1:9/a.mp4"
            for (command, status) in [(["path", url], 1), (["info", url], 1), (["ls"], 0), (["status"], 0)] {
                let result = try MediaCacheProcess.run(command + ["--cache-dir", missing])
                #expect(result.status == Int32(status), "\(command): exit \(result.status), \(result.stderr)")
                if status == 1 { #expect(result.stderr.contains("not cached"), "\(command): \(result.stderr)") }
            }
            #expect(!FileManager.default.fileExists(atPath: missing))
        }

        /// A cache on a read-only file system is read as it is: `ls` and `path` find what
        /// it holds though SQLite can make no -shm file there. `verify` either checks it
        /// or says once why it cannot, exits 3, and never adds a count after the error;
        /// `gc` says it cannot write.
        @Test(.enabled(if: TmpfsMount.available, "needs root and mount"))
        func verifyOnAReadOnlyCacheSaysSoOnce() throws {
            let fixture = try BundleFixture(sizes: [20_000])
            let mount = try TmpfsMount(at: fixture.target.scratch.cache, size: "4m")
            defer { mount.unmount() }
            try #require(try fixture.importBundle(fixture.bundle).status == 0)
            try mount.remount("ro")
            let listed = try fixture.target.run(["ls"])
            #expect(listed.status == 0 && listed.stdout.contains(fixture.files[0].url), "\(listed.stderr)")
            let path = try fixture.target.run(["path", fixture.files[0].url])
            #expect(path.status == 0, "\(path.stderr)")
            #expect(FileManager.default.fileExists(atPath: path.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
            for command in [["verify"], ["verify", "-q"], ["verify", fixture.files[0].url]] {
                let result = try fixture.target.run(command)
                if result.status == 0 {
                    #expect(result.stderr.isEmpty, "\(command): \(result.stderr)")
                } else {
                    #expect(result.status == 3, "\(command): \(result.status) \(result.stderr)")
                    #expect(result.stdout.isEmpty, "\(command): no count after the error: \(result.stdout)")
                    #expect(result.stderr.components(separatedBy: "read-only").count == 2, "\(command): \(result.stderr)")
                }
            }
            let gc = try fixture.target.run(["gc"])
            #expect(gc.status == 3, "\(gc.stderr)")
            #expect(gc.stderr.contains("read-only"), "\(gc.stderr)")
        }
    }
}
