import Foundation
import Testing
import TestOrigin

extension EndToEnd {
    /// `--proxy`, `all-proxy=`, the proxy environment and `--no-proxy`, observed at a
    /// logging forward proxy and at the origin behind it.
    @Suite struct Proxy {
        let origin: TestOrigin
        let harness = Harness()
        let bytes = TestBytes.make(300_000, seed: 41)

        init() throws {
            origin = try TestOrigin()
            origin.serve("/a.mp4", Resource(bytes, contentType: "video/mp4"))
        }

        /// Requests the proxy passed on for `path` (absolute form).
        static func forwarded(_ proxy: TestProxy, _ url: String) -> [ProxyRecord] {
            proxy.requests.filter { $0.method == "GET" && $0.target == url }
        }

        @Test func proxyFromTheFlagCarriesEveryRequestWithItsLogin() throws {
            let proxy = try TestProxy(requiredLogin: "pu:PROXY-SECRET")
            let login = "http://pu:PROXY-SECRET@127.0.0.1:\(proxy.port)"
            let result = try harness.prefetch(
                list: origin.url("/a.mp4"), ["--proxy", login, "-x", "2", "--min-fragment", "64K", "--json"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try harness.cachedBytes(origin.url("/a.mp4")) == bytes)
            let passed = Self.forwarded(proxy, origin.url("/a.mp4"))
            #expect(!passed.isEmpty && passed.count == origin.requests(for: "/a.mp4").count, "\(proxy.requests)")
            #expect(passed.allSatisfy { $0.header("Proxy-Authorization") == "Basic cHU6UFJPWFktU0VDUkVU" })
            #expect(passed.allSatisfy { $0.refusedWith == 0 })
            // The proxy's login stays with the proxy.
            #expect(origin.requests.allSatisfy { $0.headers["proxy-authorization"] == nil })
            #expect(!(result.stdout + result.stderr).contains("PROXY-SECRET"))
        }

        @Test func aWrongProxyLoginFailsWithoutPrintingThePassword() throws {
            let proxy = try TestProxy(requiredLogin: "pu:right")
            for json in [false, true] {
                let result = try harness.prefetch(
                    list: origin.url("/a.mp4"),
                    ["--proxy", "pu:WRONG-SECRET@127.0.0.1:\(proxy.port)", "--retries", "0"] + (json ? ["--json"] : []))
                #expect(result.status == 1, "\(result.stderr)")
                #expect((result.stdout + result.stderr).contains("407"), "\(result.stdout)\(result.stderr)")
                #expect(!(result.stdout + result.stderr).contains("WRONG-SECRET"))
            }
            #expect(proxy.requests.contains { $0.refusedWith == 407 })
            #expect(origin.requests(for: "/a.mp4").isEmpty)
        }

        /// A proxy that refuses the tunnel of an https URL (407 to the login given) fails
        /// the entry at once with what to check, as a plain http 407 does: no retries,
        /// nothing kept for resume, the password never printed (it retried for 15 s
        /// with libcurl's bare "CONNECT tunnel failed", then kept the entry).
        @Test func aProxyThatRefusesTheTunnelFailsAtOnce() throws {
            let proxy = try TestProxy(requiredLogin: "pu:right")
            let secure = "https://127.0.0.1:\(origin.port)/a.mp4"
            let result = try harness.prefetch(list: secure, ["--proxy", "http://pu:WRONG-SECRET@127.0.0.1:\(proxy.port)", "-k"])
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.contains("the proxy refused the tunnel to the origin with HTTP 407"), "\(result.stderr)")
            #expect(result.stderr.contains("check the user name and password in --proxy"), "\(result.stderr)")
            #expect(!result.stderr.contains("WRONG-SECRET"))
            #expect(result.stderr.contains("not kept for resume"), "\(result.stderr)")
            #expect(proxy.requests.filter { $0.method == "CONNECT" }.count == 1, "\(proxy.requests.map(\.method))")
        }

        /// A proxy that is not running is named as the proxy, not taken for the origin.
        @Test func aProxyThatIsNotRunningIsNamed() throws {
            let port = LoopbackPorts.free(1)[0]
            let result = try harness.prefetch(
                list: origin.url("/a.mp4"), ["--proxy", "http://pu:SECRET@127.0.0.1:\(port)", "--retries", "0"])
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.contains("that is the proxy http://pu:***@127.0.0.1:\(port)"), "\(result.stderr)")
            #expect(!result.stderr.contains("SECRET"))
        }

        /// `all-proxy=` wins over `--proxy`; an empty one goes direct.
        @Test func entryKeyWinsOverTheFlag() throws {
            let flagProxy = try TestProxy()
            let entryProxy = try TestProxy()
            origin.serve("/b.mp4", Resource(TestBytes.make(1000, seed: 42), contentType: "video/mp4"))
            origin.serve("/c.mp4", Resource(TestBytes.make(1000, seed: 43), contentType: "video/mp4"))
            let list = """
                \(origin.url("/a.mp4"))
                  all-proxy=\(entryProxy.url)
                \(origin.url("/b.mp4"))
                \(origin.url("/c.mp4"))
                  all-proxy=
                """
            let result = try harness.prefetch(list: list, ["--proxy", flagProxy.url])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!Self.forwarded(entryProxy, origin.url("/a.mp4")).isEmpty)
            #expect(Self.forwarded(flagProxy, origin.url("/a.mp4")).isEmpty)
            #expect(!Self.forwarded(flagProxy, origin.url("/b.mp4")).isEmpty)
            #expect(Self.forwarded(entryProxy, origin.url("/b.mp4")).isEmpty)
            #expect(!origin.requests(for: "/c.mp4").isEmpty)
            #expect((flagProxy.requests + entryProxy.requests).allSatisfy { !$0.target.hasSuffix("/c.mp4") })
        }

        /// libcurl's rules: lowercase http_proxy only (HTTP_PROXY can be set by a CGI
        /// request's `Proxy:` header), and no_proxy or --no-proxy bypass it.
        @Test func environmentProxyIsUsedAndNoProxyBypassesIt() throws {
            let proxy = try TestProxy()
            let list = harness.scratch.write("list.txt", origin.url("/a.mp4"))
            func run(_ extra: [String], _ environment: [String: String]) throws -> RunResult {
                try? FileManager.default.removeItem(atPath: harness.scratch.cache)
                origin.clearLog()
                return try MediaCacheProcess.run(
                    ["prefetch", list, "--cache-dir", harness.scratch.cache] + extra, environment: environment)
            }
            var result = try run([], ["http_proxy": proxy.url])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!Self.forwarded(proxy, origin.url("/a.mp4")).isEmpty)

            let before = proxy.requests.count
            for (extra, environment) in [
                (["--no-proxy", "127.0.0.1"], ["http_proxy": proxy.url]),
                ([], ["http_proxy": proxy.url, "no_proxy": "localhost,127.0.0.1"]),
                ([], ["HTTP_PROXY": proxy.url]),
                (["--proxy", ""], ["http_proxy": proxy.url, "ALL_PROXY": proxy.url]),
            ] {
                result = try run(extra, environment)
                #expect(result.status == 0, "\(extra) \(environment): \(result.stderr)")
                #expect(!origin.requests(for: "/a.mp4").isEmpty)
                #expect(proxy.requests.count == before, "\(extra) \(environment) went through the proxy")
            }
            // all_proxy covers http when http_proxy is unset.
            result = try run([], ["ALL_PROXY": proxy.url])
            #expect(result.status == 0)
            #expect(proxy.requests.count > before)
        }

        /// An https URL through the proxy is a CONNECT tunnel: the proxy sees the host
        /// and port, never the request's headers. (The test origin speaks no TLS, so the
        /// handshake inside the tunnel fails and the entry with it.)
        @Test func httpsGoesThroughATunnelThatHidesTheHeaders() throws {
            let proxy = try TestProxy()
            let secure = "https://127.0.0.1:\(origin.port)/a.mp4"
            let list = "\(secure)\n  header=Authorization: Bearer TUNNEL-SECRET\n"
            let result = try harness.prefetch(
                list: list, ["--proxy", proxy.url, "-H", "X-Token: FLAG-SECRET", "--retries", "0", "--timeout", "2", "-k"])
            #expect(result.status == 1, "\(result.stderr)")
            #expect(!proxy.requests.isEmpty)
            #expect(proxy.requests.allSatisfy { $0.method == "CONNECT" && $0.target == "127.0.0.1:\(origin.port)" })
            let seen = proxy.requests.flatMap(\.headerLines).joined(separator: "\n")
            #expect(!seen.contains("SECRET") && !seen.lowercased().contains("authorization"), "\(seen)")
        }

        /// socks5 hands the proxy an address, socks5h the host name; either way the
        /// request itself goes through the tunnel unread.
        @Test(arguments: [("socks5", "127.0.0.1"), ("socks5h", "localhost")])
        func socksProxiesTunnelTheRequest(scheme: String, host: String) throws {
            let proxy = try TestProxy()
            let named = try TestOrigin(host: "localhost")
            named.serve("/a.mp4", Resource(bytes, contentType: "video/mp4"))
            let result = try harness.prefetch(
                list: named.url("/a.mp4"), ["--proxy", "\(scheme)://127.0.0.1:\(proxy.port)", "-x", "2", "--min-fragment", "64K"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try harness.cachedBytes(named.url("/a.mp4")) == bytes)
            #expect(!proxy.requests.isEmpty)
            #expect(proxy.requests.allSatisfy { $0.method == "SOCKS5" && $0.target == "\(host):\(named.port)" })
            #expect(proxy.requests.count == Set(named.requests(for: "/a.mp4").map(\.connectionID)).count)
        }

        @Test func badProxySchemesAreNamedWithoutTheirPassword() throws {
            let flag = try harness.prefetch(list: origin.url("/a.mp4"), ["--proxy", "ftp://u:BAD-SECRET@127.0.0.1:1"])
            #expect(flag.status == 2)
            #expect(flag.stderr.contains("--proxy: proxy 'ftp://u:***@127.0.0.1:1' has an unsupported scheme 'ftp'"))
            #expect(!flag.stderr.contains("BAD-SECRET"))

            origin.serve("/b.mp4", Resource(TestBytes.make(1000, seed: 44), contentType: "video/mp4"))
            let list = "\(origin.url("/a.mp4"))\n  all-proxy=gopher://u:BAD-SECRET@127.0.0.1:1\n\(origin.url("/b.mp4"))\n"
            let entry = try harness.prefetch(list: list)
            #expect(entry.status == 1)
            #expect(entry.stderr.contains("list.txt:2: all-proxy=: proxy 'gopher://u:***@127.0.0.1:1' has an unsupported scheme"))
            #expect(!entry.stderr.contains("BAD-SECRET"))
            #expect(origin.requests(for: "/a.mp4").isEmpty)
            #expect(try harness.cachedBytes(origin.url("/b.mp4")) != nil)
        }

        /// A job cut short keeps its state for `resume`; the entry's proxy (and its
        /// password) is not in it, and `resume` takes the proxy of its own command line.
        @Test func savedStateHoldsNoProxyPasswordAndResumeTakesTheCommandLinesProxy() throws {
            let proxy = try TestProxy(requiredLogin: "pu:STATE-SECRET")
            let login = "http://pu:STATE-SECRET@127.0.0.1:\(proxy.port)"
            var cut = Faults()
            cut.dropAfterBytes = 100_000
            origin.serve("/a.mp4", Resource(bytes, contentType: "video/mp4", faults: cut))
            let list = "\(origin.url("/a.mp4"))\n  all-proxy=\(login)\n"
            let first = try harness.prefetch(list: list, ["--retries", "0", "-x", "1"])
            #expect(first.status == 1, "\(first.stderr)")
            #expect(try harness.savedBytes() > 0)
            for file in try Self.files(under: harness.scratch.cache) {
                #expect(!(TestBytes.read(file).map { String(decoding: $0, as: UTF8.self) } ?? "").contains("STATE-SECRET"), "\(file)")
            }
            let before = proxy.requests.count
            let resumed = try harness.run(["resume", "--proxy", login])
            #expect(resumed.status == 0, "\(resumed.stderr)")
            #expect(proxy.requests.count > before)
            #expect(try harness.cachedBytes(origin.url("/a.mp4")) == bytes)
        }

        static func files(under root: String) throws -> [String] {
            let walker = try #require(FileManager.default.enumerator(atPath: root))
            return walker.compactMap { $0 as? String }.map { root + "/" + $0 }.filter {
                var isDirectory: ObjCBool = false
                return FileManager.default.fileExists(atPath: $0, isDirectory: &isDirectory) && !isDirectory.boolValue
            }
        }
    }
}
