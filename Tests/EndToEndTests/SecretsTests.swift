import Foundation
import Testing
import TestOrigin

extension EndToEnd {
    /// Credentials given with -H or header= reach the origin they are for and nothing
    /// else: no output, no error message; and the cache that stores them is private.
    @Suite struct Secrets {
        let origin: TestOrigin
        let harness = Harness()

        init() throws { origin = try TestOrigin() }

        @Test(arguments: [false, true])
        func headersNeverAppearInOutputOfFailingRuns(json: Bool) throws {
            var failing = Faults()
            failing.statusSequence = Array(repeating: ScriptedStatus(500, body: "oops"), count: 50)
            origin.serve("/broken.mp4", Resource(TestBytes.make(1000, seed: 1), contentType: "video/mp4", faults: failing))
            let list = """
                \(origin.url("/broken.mp4"))
                  header=Cookie: c=SECRET-COOKIE
                \(origin.url("/missing.mp4"))
                  header=Cookie: c=SECRET-COOKIE
                \(origin.url("/typo.mp4"))
                  header=Authorization Bearer SECRET-TYPO
                """
            let result = try harness.prefetch(
                list: list, ["-H", "Authorization: Bearer SECRET-BEARER", "--retries", "1"] + (json ? ["--json"] : []))
            #expect(result.status == 1)
            let output = result.stdout + result.stderr
            #expect(!output.contains("SECRET"), "\(output)")
            #expect(output.contains(origin.url("/broken.mp4")) && output.contains("HTTP 500"))
            #expect(output.contains(origin.url("/missing.mp4")) && output.contains("HTTP 404"))
            #expect(result.stderr.contains("header must look like 'Name: value', got 'Authorization …'"))
            // The test means something only if the secrets were really sent.
            let sent = try #require(origin.requests(for: "/broken.mp4").first)
            #expect(sent.headers["authorization"] == "Bearer SECRET-BEARER")
            #expect(sent.headers["cookie"] == "c=SECRET-COOKIE")

            // The saved state holds the headers (for resume); nothing that shows it prints them.
            for command in [["status"], ["status", "--json"], ["info", origin.url("/broken.mp4")]] {
                let shown = try harness.run(command)
                #expect(!(shown.stdout + shown.stderr).contains("SECRET"), "\(command): \(shown.stdout)")
            }
        }

        /// A password in a URL given to path, info and rm is masked in what they say, as
        /// prefetch masks it.
        @Test func aPasswordInAURLIsNeverEchoedByTheCacheCommands() throws {
            origin.serve("/in.mp4", Resource(TestBytes.make(1000, seed: 2), contentType: "video/mp4"))
            let url = origin.url("/in.mp4").replacingOccurrences(of: "http://", with: "http://bob:TOPSECRETPW@")
            #expect(try harness.prefetch(list: url).status == 0)
            let other = url.replacingOccurrences(of: "/in.mp4", with: "/other.mp4")
            for arguments in [["path", other], ["info", other], ["rm", url], ["rm", url]] {
                let result = try harness.run(arguments)
                #expect(!(result.stdout + result.stderr).contains("TOPSECRETPW"), "\(arguments): \(result.stdout)\(result.stderr)")
                #expect(result.stderr.contains("bob:***@"), "\(arguments): \(result.stderr)")
            }
        }

        @Test func malformedCommandLineHeaderIsNotEchoed() throws {
            let list = harness.scratch.write("l.txt", origin.url("/a.mp4"))
            let result = try harness.run(["prefetch", list, "-H", "Authorization Bearer SECRET-TYPO"])
            #expect(result.status == 2)
            #expect(result.stderr.contains("-H expects 'Name: value', got 'Authorization …'"))
            #expect(!result.stderr.contains("SECRET"))
        }

        /// With a permissive umask, everything the cache creates is still owner-only:
        /// directories 0700, files (index and its WAL, states, locks, data, objects) 0600.
        @Test func cacheDirectoriesAre0700AndFiles0600() throws {
            let previous = umask(0o022)
            defer { umask(previous) }
            let done = TestBytes.make(300_000, seed: 2)
            let partial = TestBytes.make(900_000, seed: 3)
            var cut = Faults()
            cut.dropAfterBytes = 200_000
            origin.serve("/done.mp4", Resource(done, contentType: "video/mp4"))
            origin.serve("/partial.mp4", Resource(partial, contentType: "video/mp4", faults: cut))
            let list = "\(origin.url("/done.mp4"))\n\(origin.url("/partial.mp4"))\n  header=Cookie: c=1\n"
            let result = try harness.prefetch(list: list, ["--retries", "0", "-x", "1"])
            #expect(result.status == 1, "the partial one fails and keeps its state: \(result.stderr)")
            #expect(try harness.savedBytes() > 0)

            let cache = harness.scratch.cache
            var seen: [String: mode_t] = [:]
            let walker = try #require(FileManager.default.enumerator(atPath: cache))
            for case let relative as String in walker {
                var info = stat()
                #expect(lstat(cache + "/" + relative, &info) == 0)
                seen[relative] = info.st_mode
            }
            var root = stat()
            #expect(stat(cache, &root) == 0 && root.st_mode & 0o777 == 0o700)
            for (path, mode) in seen.sorted(by: { $0.key < $1.key }) {
                let expected: mode_t = mode & S_IFMT == S_IFDIR ? 0o700 : 0o600
                #expect(mode & 0o777 == expected, "\(path) has mode \(String(mode & 0o777, radix: 8))")
            }
            // The files that matter are among those checked.
            let names = Set(seen.keys.map { ($0 as NSString).lastPathComponent })
            for name in ["index.sqlite", "state", "data", "objects", "partial", "locks"] {
                #expect(names.contains(name), "no \(name) in \(seen.keys.sorted())")
            }
            #expect(seen.keys.contains { $0.hasPrefix("objects/") && $0.hasSuffix(".mp4") })
            #expect(seen.keys.contains { $0.hasPrefix("locks/") })
        }
    }
}
