import Testing
@testable import MediaCacheKit

@Suite("ProxyURL")
struct ProxyURLTests {
    @Test(arguments: [
        "http://proxy.example:3128", "https://proxy.example", "socks5://127.0.0.1:1080", "socks5h://[::1]:1080",
        "HTTP://proxy.example:8080/", "proxy.example:3128", "http://user:pass@proxy.example:3128",
    ])
    func acceptedProxiesGoToLibcurlAsWritten(text: String) throws {
        let proxy = try ProxyURL(parsing: text)
        #expect(proxy.value == text)
        #expect(!proxy.isDirect)
    }

    @Test func emptyMeansNoProxyAtAll() throws {
        #expect(try ProxyURL(parsing: "") == .direct)
        #expect(try ProxyURL(parsing: "  ").isDirect)
    }

    @Test(arguments: [
        ("ftp://proxy.example", "unsupported scheme 'ftp'"),
        ("socks4://proxy.example", "unsupported scheme 'socks4'"),
        ("http://", "has no host"),
        ("http://proxy.example:0", "bad port '0'"),
        ("http://proxy.example:http", "bad port 'http'"),
        ("http://proxy.example/some/path", "has a path"),
        ("http://proxy example", "spaces or control characters"),
        ("http://[::1", "unclosed '['"),
        ("http://pu:pp@ss@127.0.0.1:3128", "has an '@' in its user name or password: write it as %40"),
    ])
    func badProxiesSayWhy(text: String, reason: String) {
        #expect(throws: ProxyURL.Problem.self) { try ProxyURL(parsing: text) }
        do {
            _ = try ProxyURL(parsing: text)
        } catch {
            #expect(error.description.contains(reason), "\(error)")
        }
    }

    @Test func passwordsNeverAppearInTextOrErrors() throws {
        let proxy = try ProxyURL(parsing: "http://alice:S3CRET@proxy.example:3128")
        #expect(proxy.description == "http://alice:***@proxy.example:3128")
        #expect("\(proxy)" == "http://alice:***@proxy.example:3128")
        #expect(URLCredentials.masked("alice:S3CRET@proxy.example") == "alice:***@proxy.example")
        #expect(URLCredentials.masked("http://alice@proxy.example") == "http://alice@proxy.example")
        do {
            _ = try ProxyURL(parsing: "http://alice:S3C@RET@proxy.example:3128")
            Issue.record("accepted")
        } catch {
            #expect(!error.description.contains("S3C") && !error.description.contains("RET@"), "\(error)")
        }
        #expect(try ProxyURL(parsing: "http://alice:S3C%40RET@proxy.example:3128").value.contains("%40"))
        do {
            _ = try ProxyURL(parsing: "gopher://alice:S3CRET@proxy.example")
            Issue.record("accepted")
        } catch {
            #expect(!error.description.contains("S3CRET"))
            #expect(error.description.contains("gopher://alice:***@proxy.example"))
        }
    }

    /// A Referer never carries a login or a fragment (RFC 9110 10.1.3).
    @Test func aRefererHasNoLoginAndNoFragment() {
        #expect(URLCredentials.asReferer("http://u:s3cret@h.example:8080/a/b.mp4?x=1#t=10") == "http://h.example:8080/a/b.mp4?x=1")
        #expect(URLCredentials.asReferer("https://user@h.example/p") == "https://h.example/p")
        #expect(URLCredentials.asReferer("https://h.example/p?mail=a@b.example") == "https://h.example/p?mail=a@b.example")
        #expect(URLCredentials.asReferer("https://h.example/") == "https://h.example/")
    }
}

@Suite("List keys for proxy and identity")
struct ListClientOptionTests {
    @Test func userAgentRefererAndProxyKeysApplyToTheirEntry() throws {
        let list = ListParser.parse(
            """
            http://a.example/1.mp4
              user-agent=Mozilla/5.0 (X11; Linux) Player/2
              referer=https://site.example/watch?v=1
              all-proxy=http://u:pw@proxy.example:3128
            http://a.example/2.mp4
              all-proxy=
            """, file: "list.txt")
        #expect(list.diagnostics.isEmpty, "\(list.diagnostics)")
        let first = try #require(list.entries.first)
        #expect(first.userAgent == "Mozilla/5.0 (X11; Linux) Player/2")
        #expect(first.referer == "https://site.example/watch?v=1")
        #expect(first.proxy?.value == "http://u:pw@proxy.example:3128")
        #expect(list.entries.last?.proxy == .direct)
        #expect(list.entries.last?.userAgent == nil)
    }

    @Test(arguments: [
        ("  all-proxy=ftp://u:pw@proxy.example", "all-proxy=: proxy 'ftp://u:***@proxy.example' has an unsupported scheme"),
        ("  user-agent=agent\u{1}x", "user-agent= contains control characters"),
        ("  referer=", "referer= needs a value"),
    ])
    func badValuesRejectTheirEntryNamingTheLine(option: String, message: String) throws {
        let list = ListParser.parse("http://a.example/1.mp4\n\(option)\nhttp://a.example/2.mp4\n", file: "list.txt")
        let error = try #require(list.errors.first)
        #expect(error.description.hasPrefix("list.txt:2: "))
        #expect(error.message.contains(message), "\(error)")
        #expect(!error.message.contains("pw@"))
        #expect(list.entries.map(\.url) == ["http://a.example/2.mp4"])
    }

    /// The saved state keeps the entry's identity headers but never its proxy, whose
    /// URL may hold a password.
    @Test func savedStateHoldsNoProxy() throws {
        var entry = ListEntry(urls: ["http://a.example/1.mp4"])
        entry.proxy = try ProxyURL(parsing: "http://u:PROXY-SECRET@proxy.example:3128")
        entry.userAgent = "Agent/1"
        entry.referer = "https://site.example/"
        let bytes = try JobStateCodec.encode(JobState(entry: entry, commandHeaders: []))
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(!text.contains("PROXY-SECRET") && !text.contains("proxy.example"))
        let decoded = try JobStateCodec.decode(bytes, path: "state")
        #expect(decoded.entry.proxy == nil)
        #expect(decoded.entry.userAgent == "Agent/1")
        #expect(decoded.entry.referer == "https://site.example/")
    }
}
