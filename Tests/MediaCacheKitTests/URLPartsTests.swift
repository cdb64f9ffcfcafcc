import Testing
@testable import MediaCacheKit

@Suite("URLParts")
struct URLPartsTests {
    @Test(arguments: [
        ("https://cdn.example/a.mp4", "https://cdn.example:443"),
        ("HTTPS://CDN.Example.COM:443/a.mp4", "https://cdn.example.com:443"),
        ("http://Host.example/x", "http://host.example:80"),
        ("http://host.example:80/x", "http://host.example:80"),
        ("https://host.example:8443/x", "https://host.example:8443"),
        ("http://host.example:443/x", "http://host.example:443"),
    ])
    func originNormalisesSchemeHostAndDefaultPort(url: String, origin: String) throws {
        #expect(try #require(URLParts(url)).origin == origin)
    }

    @Test func sameOriginDespiteSpelling() {
        #expect(URLParts("https://A.example/x")?.origin == URLParts("https://a.example:443/y?q=1")?.origin)
        #expect(URLParts("https://a.example/x")?.origin != URLParts("http://a.example/x")?.origin)
    }

    @Test(arguments: ["ftp://a.example/x", "file:///etc/passwd", "https:///nohost", "not a url", "", "mailto:a@b.example"])
    func onlyHTTPURLsWithAHostParse(url: String) {
        #expect(URLParts(url) == nil)
    }

    @Test(arguments: [
        ("https://a.example/v/clip.MP4?token=1#t=3", "mp4" as String?),
        ("https://a.example/archive.tar.gz", "gz"),
        ("https://a.example/song.m4a", "m4a"),
        ("https://a.example/dir/", nil),
        ("https://a.example/", nil),
        ("https://a.example", nil),
        ("https://a.example/.hidden", nil),
        ("https://a.example/name.", nil),
        ("https://a.example/file.averylongext", nil),
        ("https://a.example/file.m-4", nil),
        ("https://a.example/a.b/file", nil),
        ("https://a.example/seg%2Emp4", "mp4"),
        ("https://a.example/x;v=1/seg.ts;p?x=a/b.mp4", nil),
        ("https://a.example.mp4", nil),
    ])
    func pathExtension(url: String, ext: String?) throws {
        #expect(try #require(URLParts(url)).pathExtension == ext)
        #expect(URLParts.pathExtension(ofURL: url) == ext)
    }

    @Test(arguments: [
        ("clip.MP4", "mp4" as String?),
        ("dir/Clip.Mkv", "mkv"),
        ("clip.mp4/", "mp4"),
        ("a.b/file", nil),
        (".hidden", nil),
        ("name.", nil),
        ("file.averylongext", nil),
        ("file.m-4", nil),
        ("file.mp\u{301}", nil),
        ("file.ÄÖ", nil),
        ("v.12345678", "12345678"),
        ("", nil),
    ])
    func shortExtensionOfAName(name: String, ext: String?) {
        #expect(URLParts.shortExtension(of: name) == ext)
    }

    @Test func lastPathComponentIsDecoded() {
        #expect(URLParts("https://a.example/dir/my%20clip.mp4?x=1")?.lastPathComponent == "my clip.mp4")
        #expect(URLParts("https://a.example/")?.lastPathComponent == "")
    }

    @Test func problemWithUnsupportedScheme() {
        #expect(URLParts.problem(with: "ftp://a.example/x") == "unsupported scheme 'ftp' (only http and https are fetched)")
    }

    @Test func problemWithMissingHost() {
        #expect(URLParts.problem(with: "https:///x.mp4") == "URL has no host")
        #expect(URLParts.problem(with: "http://127.0.0.1:99999/a") == "port 99999 is not a TCP port (1-65535)")
        #expect(URLParts.problem(with: "http://127.0.0.1:0/a") == "port 0 is not a TCP port (1-65535)")
        #expect(URLParts.problem(with: "http://127.0.0.1:65535/a") == nil)
    }

    @Test(arguments: ["garbage", "not a url", "", "//a.example/x.mp4", "http://exa mple.com/x"])
    func problemWithGarbage(text: String) {
        #expect(URLParts.problem(with: text) == "not a valid URL")
    }

    @Test(arguments: ["https://a.example/x.mp4", "HTTP://A.example:8080/x?y=1#z"])
    func noProblemWithHTTPURLs(url: String) {
        #expect(URLParts.problem(with: url) == nil)
    }

    @Test(arguments: [
        ("/other/x.mp4", "https://a.example/dir/y.mp4", "https://a.example/other/x.mp4"),
        ("z.mp4", "https://a.example/dir/y.mp4?t=1", "https://a.example/dir/z.mp4"),
        ("../up.mp4", "https://a.example/dir/sub/y.mp4", "https://a.example/dir/up.mp4"),
        ("https://b.example/q.mp4", "https://a.example/dir/y.mp4", "https://b.example/q.mp4"),
        ("//cdn.example/x.mp4", "https://a.example/y.mp4", "https://cdn.example/x.mp4"),
        ("?sig=2", "https://a.example/dir/y.mp4?sig=1", "https://a.example/dir/y.mp4?sig=2"),
    ])
    func resolveLocation(location: String, base: String, expected: String) {
        #expect(URLParts.resolve(location, against: base) == expected)
    }
}
