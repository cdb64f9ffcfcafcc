import Foundation
import Testing
@testable import MediaCacheKit

@Suite("FaststartState")
struct FaststartStateTests {
    @Test(arguments: [
        ("-", FaststartState.notMP4), ("original", .original), ("relocated", .relocated),
        ("skipped(fragmented)", .skipped("fragmented")), ("skipped(disabled)", .skipped("disabled")),
        ("skipped(relocation failed: short read (EIO))", .skipped("relocation failed: short read (EIO)")),
        ("unknown (index rebuilt)", .lostInIndexRebuild),
    ])
    func readsAndWritesTheRecordedText(text: String, state: FaststartState) {
        #expect(FaststartState(rawValue: text) == state)
        #expect(state.rawValue == text)
    }

    /// Another version may record states this one does not know: they read, and are
    /// written back, exactly as they were.
    @Test(arguments: ["relocated-v2", "", "skipped(", "Original", "skipped (x)"])
    func keepsTextItDoesNotKnow(text: String) throws {
        #expect(FaststartState(rawValue: text) == .unrecognized(text))
        #expect(FaststartState(rawValue: text).rawValue == text)
        let json = try JSONEncoder().encode([FaststartState(rawValue: text)])
        #expect(try JSONDecoder().decode([String].self, from: json) == [text])
        #expect(try JSONDecoder().decode([FaststartState].self, from: json) == [.unrecognized(text)])
    }
}
