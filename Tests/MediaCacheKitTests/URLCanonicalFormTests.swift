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
        #expect(CacheKey(identity: "https://user:secret@cdn.example/v.mp4") == CacheKey(identity: "https://user@CDN.example/v.mp4"))
    }
}
