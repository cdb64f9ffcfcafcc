import Foundation
import Testing
@testable import MediaCacheKit

@Suite("IndexDate")
struct IndexDateTests {
    @Test func writesGRDBsStorageFormatInUTC() {
        #expect(IndexDate.text(Date(timeIntervalSince1970: 0)) == "1970-01-01 00:00:00.000")
        #expect(IndexDate.text(Date(timeIntervalSince1970: 1_795_312_816.05)) == "2026-11-22 02:00:16.050")
        #expect(IndexDate.text(Date(timeIntervalSince1970: -0.5)) == "1969-12-31 23:59:59.500")
    }

    @Test func readsWhatItWritesToTheMillisecond() throws {
        for seconds in [0.0, 86_399.999, 1_795_312_816.123, 4_102_444_800.5] {
            let date = Date(timeIntervalSince1970: seconds)
            let back = try #require(IndexDate.date(IndexDate.text(date)))
            #expect(abs(back.timeIntervalSince1970 - seconds) < 0.001, "\(seconds)")
        }
    }

    @Test func readsShorterFormsAndRejectsOthers() {
        #expect(IndexDate.date("2026-11-22")?.timeIntervalSince1970 == 1_795_305_600)
        #expect(IndexDate.date("2026-11-22 02:00:16")?.timeIntervalSince1970 == 1_795_312_816)
        #expect(IndexDate.date("2026-11-22 02:00:16.05")?.timeIntervalSince1970 == 1_795_312_816.05)
        #expect(IndexDate.date("yesterday") == nil)
        #expect(IndexDate.date("2026-11") == nil)
    }
}
