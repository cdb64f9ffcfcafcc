import Foundation
import Testing
import TestOrigin

extension EndToEnd {
    /// `--load-cookies`, `--netrc`/`--netrc-file`, `--user-agent`/`--referer` and their
    /// list keys, observed in what each origin received.
    @Suite struct ClientIdentity {
        /// Two hosts for cookie matching (cookies ignore ports): 127.0.0.1 and localhost.
        let origin: TestOrigin
        let other: TestOrigin
        let harness = Harness()
        let bytes = TestBytes.make(200_000, seed: 51)

        init() throws {
            origin = try TestOrigin()
            other = try TestOrigin(host: "localhost")
        }

        @Test func cookiesGoOnlyToTheHostsAndPathsTheyMatch() throws {
            var guarded = Resource(bytes, contentType: "video/mp4")
            guarded.access.cookie = "session=COOKIE-SECRET"
            origin.serve("/private/a.mp4", guarded)
            origin.serve("/public/b.mp4", Resource(TestBytes.make(1000, seed: 52), contentType: "video/mp4"))
            other.serve("/private/a.mp4", Resource(bytes, contentType: "video/mp4"))
            let list = [origin.url("/private/a.mp4"), origin.url("/public/b.mp4"), other.url("/private/a.mp4")]
                .joined(separator: "\n")

            // Without the cookie the guarded file is refused.
            let refused = try harness.prefetch(list: origin.url("/private/a.mp4"), ["--retries", "0"])
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("HTTP 403"), "\(refused.stderr)")

            let cookies = harness.scratch.write(
                "cookies.txt",
                """
                # Netscape HTTP Cookie File
                127.0.0.1\tFALSE\t/private\tFALSE\t0\tsession\tCOOKIE-SECRET
                #HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t0\tpref\tdark
                127.0.0.1\tFALSE\t/\tFALSE\t1\texpired\tgone

                """)
            origin.clearLog()
            let result = try harness.prefetch(list: list, ["--load-cookies", cookies])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try harness.cachedBytes(origin.url("/private/a.mp4")) == bytes)
            let guardedCookies = Set(origin.requests(for: "/private/a.mp4").map { $0.headers["cookie"] ?? "" })
            #expect(guardedCookies.allSatisfy { $0.contains("session=COOKIE-SECRET") && $0.contains("pref=dark") })
            let publicCookies = origin.requests(for: "/public/b.mp4").map { $0.headers["cookie"] ?? "" }
            #expect(!publicCookies.isEmpty && publicCookies.allSatisfy { $0 == "pref=dark" }, "\(publicCookies)")
            #expect(!origin.requests.contains { ($0.headers["cookie"] ?? "").contains("gone") })
            #expect(!other.requests.isEmpty && other.requests.allSatisfy { $0.headers["cookie"] == nil })
            // Cookies live in their file only: not in output, not in the cache.
            #expect(!(result.stdout + result.stderr).contains("COOKIE-SECRET"))
            for file in try Proxy.files(under: harness.scratch.cache) {
                #expect(!(TestBytes.read(file).map { String(decoding: $0, as: UTF8.self) } ?? "").contains("COOKIE-SECRET"))
            }
        }

        @Test func anUnreadableOrForeignCookieFileIsNamed() throws {
            let missing = harness.scratch.path + "/no-cookies.txt"
            let result = try harness.prefetch(list: origin.url("/a.mp4"), ["--load-cookies", missing])
            #expect(result.status == 2)
            #expect(result.stderr.contains("--load-cookies: cannot read \(missing): no such file"), "\(result.stderr)")
            #expect(origin.requests.isEmpty)

            // A browser extension's JSON export: libcurl would skip it without a word.
            let json = harness.scratch.write("cookies.json", "[{\"domain\": \"127.0.0.1\", \"name\": \"a\"}]\n")
            let wrongFormat = try harness.prefetch(list: origin.url("/a.mp4"), ["--load-cookies", json])
            #expect(wrongFormat.status == 2)
            #expect(wrongFormat.stderr.contains("--load-cookies: \(json) holds no cookies in Netscape cookies.txt format"))
        }

        @Test func netrcLoginsGoToTheirMachineOnly() throws {
            var guarded = Resource(bytes, contentType: "video/mp4")
            guarded.access.basicLogin = "alice:NETRC-SECRET"
            origin.serve("/login.mp4", guarded)
            other.serve("/open.mp4", Resource(TestBytes.make(1000, seed: 53), contentType: "video/mp4"))
            let list = "\(origin.url("/login.mp4"))\n\(other.url("/open.mp4"))\n"
            let netrc = harness.scratch.write("netrc", "machine 127.0.0.1 login alice password NETRC-SECRET\n")

            let result = try harness.prefetch(list: list, ["--netrc-file", netrc])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try harness.cachedBytes(origin.url("/login.mp4")) == bytes)
            #expect(origin.requests(for: "/login.mp4").allSatisfy { $0.status == 206 || $0.status == 200 })
            #expect(other.requests.allSatisfy { $0.headers["authorization"] == nil })
            #expect(!(result.stdout + result.stderr).contains("NETRC-SECRET"))
            for file in try Proxy.files(under: harness.scratch.cache) {
                #expect(!(TestBytes.read(file).map { String(decoding: $0, as: UTF8.self) } ?? "").contains("NETRC-SECRET"))
            }

            // --netrc reads ~/.netrc.
            try? FileManager.default.removeItem(atPath: harness.scratch.cache)
            let home = harness.scratch.path + "/home"
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: netrc, toPath: home + "/.netrc")
            let fromHome = try MediaCacheProcess.run(
                ["prefetch", harness.scratch.write("l2.txt", origin.url("/login.mp4")), "--netrc", "--cache-dir",
                 harness.scratch.cache], environment: ["HOME": home])
            #expect(fromHome.status == 0, "\(fromHome.stderr)")

            // A wrong password, or none, is the origin's 401.
            try? FileManager.default.removeItem(atPath: harness.scratch.cache)
            let wrong = harness.scratch.write("wrong", "machine 127.0.0.1 login alice password nope\n")
            for extra in [["--netrc-file", wrong], []] {
                let failed = try harness.prefetch(list: origin.url("/login.mp4"), extra + ["--retries", "0"])
                #expect(failed.status == 1)
                #expect(failed.stderr.contains("HTTP 401"), "\(failed.stderr)")
            }
            let missing = try harness.prefetch(list: origin.url("/login.mp4"), ["--netrc-file", home + "/none"])
            #expect(missing.status == 2)
            #expect(missing.stderr.contains("--netrc-file: cannot read \(home)/none: no such file"))
        }

        @Test func userAgentAndRefererComeFromFlagsAndEntryKeys() throws {
            for name in ["/1.mp4", "/2.mp4", "/3.mp4", "/4.mp4"] {
                origin.serve(name, Resource(TestBytes.make(1000, seed: 54), contentType: "video/mp4"))
            }
            let withLogin = origin.url("/4.mp4").replacingOccurrences(of: "http://", with: "http://u:s3cret@") + "#t=10"
            let list = """
                \(origin.url("/1.mp4"))
                \(origin.url("/2.mp4"))
                  user-agent=EntryAgent/2 (X11)
                  referer=https://entry.example/page
                \(origin.url("/3.mp4"))
                  referer=*
                \(withLogin)
                  referer=*
                """
            let result = try harness.prefetch(
                list: list, ["--user-agent", "FlagAgent/1", "--referer", "https://flag.example/"])
            #expect(result.status == 0, "\(result.stderr)")
            func seen(_ path: String, _ header: String) -> Set<String> {
                Set(origin.requests(for: path).map { $0.headers[header] ?? "(none)" })
            }
            #expect(seen("/1.mp4", "user-agent") == ["FlagAgent/1"])
            #expect(seen("/1.mp4", "referer") == ["https://flag.example/"])
            #expect(seen("/2.mp4", "user-agent") == ["EntryAgent/2 (X11)"])
            #expect(seen("/2.mp4", "referer") == ["https://entry.example/page"])
            #expect(seen("/3.mp4", "user-agent") == ["FlagAgent/1"])
            #expect(seen("/3.mp4", "referer") == [origin.url("/3.mp4")])
            // A Referer carries no login and no fragment (RFC 9110): it goes wherever a
            // redirect leads.
            #expect(seen("/4.mp4", "referer") == [origin.url("/4.mp4")])

            // Without flags: mediacache's own agent and no Referer.
            try FileManager.default.removeItem(atPath: harness.scratch.cache)
            origin.clearLog()
            let plain = try harness.prefetch(list: origin.url("/1.mp4"))
            #expect(plain.status == 0)
            #expect(seen("/1.mp4", "user-agent").allSatisfy { $0.hasPrefix("mediacache/") })
            #expect(seen("/1.mp4", "referer") == ["(none)"])
        }

        @Test func controlCharactersInIdentityHeadersAreRefused() throws {
            origin.serve("/1.mp4", Resource(TestBytes.make(1000, seed: 55), contentType: "video/mp4"))
            let flag = try harness.prefetch(list: origin.url("/1.mp4"), ["--referer", "https://a.example/\r\nX-Evil: 1"])
            #expect(flag.status == 2)
            #expect(flag.stderr.contains("--referer contains control characters"), "\(flag.stderr)")
            let agent = try harness.prefetch(list: origin.url("/1.mp4"), ["--user-agent", "a\u{7}b"])
            #expect(agent.status == 2)
            #expect(agent.stderr.contains("--user-agent contains control characters"))
            #expect(origin.requests.isEmpty)

            let list = "\(origin.url("/1.mp4"))\n  user-agent=bad\u{1B}[31m\n"
            let entry = try harness.prefetch(list: list)
            #expect(entry.status == 1)
            #expect(entry.stderr.contains("list.txt:2: user-agent= contains control characters"), "\(entry.stderr)")
            #expect(origin.requests.isEmpty)
        }
    }
}
