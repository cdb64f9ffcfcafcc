import Foundation
import Testing
@testable import MediaCacheKit

@Suite("HTTPDate")
struct HTTPDateTests {
    /// RFC 9110's example instant, 1994-11-06 08:49:37 UTC.
    private let example = Date(timeIntervalSince1970: 784_111_777)

    @Test(arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT",
        "Sunday, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994",
        "  sun, 06 nov 1994 08:49:37 GMT ",
    ])
    func readsEachOfTheThreeForms(text: String) {
        #expect(HTTPDate.parse(text) == example)
    }

    @Test func writesIMFFixdate() {
        #expect(HTTPDate.format(example) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 951_782_400)) == "Tue, 29 Feb 2000 00:00:00 GMT")
    }

    @Test func whatItWritesItReads() {
        for seconds in stride(from: 0, to: 4_102_444_800, by: 86_399 * 37) {
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            #expect(HTTPDate.parse(HTTPDate.format(date)) == date)
        }
    }

    @Test(arguments: [
        "", "yesterday", "Sun, 06 Nov 1994 08:49:37 PST", "Sun, 06 Nov 94 08:49:37 GMT",
        "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, 06 Nov 1994 8:49:37 GMT",
        "Sun, 32 Nov 1994 08:49:37 GMT",
    ])
    func refusesWhatIsNotADate(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }
}
