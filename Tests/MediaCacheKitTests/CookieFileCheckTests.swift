import Testing
@testable import MediaCacheKit

@Suite("CookieFileCheck")
struct CookieFileCheckTests {
    @Test(arguments: [
        "# Netscape HTTP Cookie File\n.example.com\tTRUE\t/\tFALSE\t0\tsid\tabc\n",
        "#HttpOnly_example.com\tFALSE\t/\tTRUE\t1999999999\tsid\tabc\r\n",
        "example.com\tFALSE\t/\tFALSE\t0\tempty\n",
        "Set-Cookie: sid=abc; Domain=example.com\n",
        "",
        "# Netscape HTTP Cookie File\n# only comments\n\n",
        // A byte order mark before a comment harms nothing.
        "\u{FEFF}# Netscape HTTP Cookie File\n.example.com\tTRUE\t/\tFALSE\t0\tsid\tabc\n",
    ])
    func cookieFilesLibcurlReadsPass(text: String) {
        #expect(CookieFileCheck.problem(text: text) == nil)
    }

    @Test(arguments: [
        "[{\"domain\": \".example.com\", \"name\": \"sid\", \"value\": \"abc\"}]",
        "example.com FALSE / FALSE 0 sid abc\n",
        "sid=abc\n",
    ])
    func otherFormatsAreNamed(text: String) throws {
        let problem = try #require(CookieFileCheck.problem(text: text))
        #expect(problem.contains("Netscape cookies.txt format"))
    }

    /// A byte order mark before a cookie would hide that cookie from libcurl.
    @Test func aByteOrderMarkBeforeACookieIsNamed() throws {
        let problem = try #require(CookieFileCheck.problem(text: "\u{FEFF}.example.com\tTRUE\t/\tFALSE\t0\tsid\tabc\n"))
        #expect(problem.contains("byte order mark"))
    }
}
