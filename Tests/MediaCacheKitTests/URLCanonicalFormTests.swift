import Testing
@testable import MediaCacheKit

@Suite("URL canonical form (cache keys)")
struct URLCanonicalFormTests {
    @Test(arguments: [
        ("HTTP://Media.Example.COM/Dir/File.MP4?Sig=AbC", "http://media.example.com/Dir/File.MP4?Sig=AbC"),
        ("http://a.example:80/x", "http://a.example/x"),
        ("https://a.example:443/x", "https://a.example/x"),
        ("http://a.example:443/x", "http://a.example:443/x"),
        ("https://a.example:8443/x", "https://a.example:8443/x"),
        ("http://a.example:/x", "http://a.example/x"),
        ("http://a.example", "http://a.example/"),
        ("http://a.example?q=1", "http://a.example/?q=1"),
        ("http://a.example/v.mp4#t=10", "http://a.example/v.mp4"),
        ("http://A.example#frag", "http://a.example/"),
        ("http://User@A.Example:80/x", "http://User@a.example/x"),
        ("http://[FE80::1]:80/x", "http://[fe80::1]/x"),
        ("http://[::1]:8080/x", "http://[::1]:8080/x"),
        ("http://[::1]/x", "http://[::1]/x"),
        ("http://a.example/p@th:80/x", "http://a.example/p@th:80/x"),
        ("http://a.example/x?r=http://B.example:80/", "http://a.example/x?r=http://B.example:80/"),
        ("http://a.example/sub/%c3%bcn%C3%AF.mp4", "http://a.example/sub/%C3%BCn%C3%AF.mp4"),
        ("http://a.example/sub/ünï.mp4", "http://a.example/sub/%C3%BCn%C3%AF.mp4"),
        ("http://a.example/%7Euser/%41%2d%2E_.mp4", "http://a.example/~user/A-._.mp4"),
        ("http://a.example/a%2fb%20c.mp4", "http://a.example/a%2Fb%20c.mp4"),
        ("http://a.example/./sub/../hello.txt", "http://a.example/hello.txt"),
        ("http://a.example/a/b/..", "http://a.example/a/"),
        ("http://a.example/a/./b/.", "http://a.example/a/b/"),
        ("http://a.example/../../x", "http://a.example/x"),
        ("http://a.example/%2E%2E/x", "http://a.example/x"),
        ("http://a.example/x?q=%7e%2f&r=ü", "http://a.example/x?q=~%2F&r=%C3%BC"),
        ("http://a.example/x?a=../b", "http://a.example/x?a=../b"),
        ("http://a.example/100%", "http://a.example/100%"),
    ])
    func spellingsOfOneResourceAreOne(spelling: String, canonical: String) {
        #expect(URLCanonicalForm.of(spelling) == canonical)
        #expect(URLCanonicalForm.of(canonical) == canonical)
    }

    @Test(arguments: ["my-key", "FTP://A.example/x", "HTTPX://a", "", "http:/a.example/x", "urn:Title:1#x"])
    func whatIsNoHTTPURLIsLeftAsItIs(key: String) {
        #expect(URLCanonicalForm.of(key) == key)
    }

    @Test func oneObjectForEverySpelling() {
        let key = CacheKey(identity: "https://cdn.example/v.mp4")
        #expect(CacheKey(identity: "HTTPS://CDN.Example:443/v.mp4#t=3") == key)
        #expect(CacheKey(identity: "https://cdn.example/V.mp4") != key)
        #expect(CacheKey(identity: "https://cdn.example/a/../%76.mp4") == key)
        #expect(CacheKey(identity: "https://user:secret@cdn.example/v.mp4") == CacheKey(identity: "https://user@CDN.example/v.mp4"))
    }
}
