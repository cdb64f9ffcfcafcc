import Foundation
import Testing
@testable import MediaCacheKit

@Suite("Rendition options in lists")
struct RenditionOptionTests {
    /// Each key an entry sets wins over the run's option of that name; the others stay.
    @Test func entryKeysOverrideTheRunsOptionsOneByOne() throws {
        let list = ListParser.parse(
            "https://cdn.example/t/master.m3u8\n  max-height=720\n  audio-lang=en, pt-BR\n", file: "list.txt")
        #expect(list.diagnostics.isEmpty)
        let entry = try #require(list.entries.first)
        let run = RenditionSelectionOptions(maxBandwidth: 5_000_000, allVariants: true)
        let applied = entry.renditions.applied(to: run)
        #expect(applied.maxHeight == 720)
        #expect(applied.maxBandwidth == 5_000_000)
        #expect(applied.allVariants)
        #expect(applied.audioLanguages == .matching(["en", "pt-BR"]))
    }

    /// A bad value skips the entry, naming the line: fetched without it, the title could
    /// fill the disk with renditions nobody asked for.
    @Test(arguments: ["max-height=abc", "max-bandwidth=fast", "all-variants=maybe", "audio-lang=en;rm"])
    func aBadValueSkipsTheEntry(option: String) {
        let list = ListParser.parse("https://cdn.example/t/master.m3u8\n  \(option)\n", file: "list.txt")
        #expect(list.entries.isEmpty)
        #expect(list.diagnostics.map(\.line) == [2])
        #expect(list.diagnostics.first?.message.contains("entry skipped") == true)
    }

    @Test func bitRatesTakeDecimalSuffixes() {
        #expect(BitRate.parse("800K") == 800_000)
        #expect(BitRate.parse("1.5M") == 1_500_000)
        #expect(BitRate.parse("2000000") == 2_000_000)
        #expect(BitRate.parse("0") == nil)
        #expect(BitRate.parse("-5M") == nil)
        #expect(BitRate.parse("M") == nil)
    }

    /// A resumed title chooses as its first run did: the keys are saved with its state,
    /// and states saved before they existed still load.
    @Test func overridesSurviveTheJobState() throws {
        var entry = ListEntry(urls: ["https://cdn.example/t/master.m3u8"])
        entry.renditions.maxHeight = 480
        entry.renditions.audioLanguages = .all
        let state = JobState(entry: entry, commandHeaders: [])
        let decoded = try JobStateCodec.decode(try JobStateCodec.encode(state), path: "state")
        #expect(decoded.entry.renditions == entry.renditions)
        let old = try JSONDecoder().decode(ListEntry.self, from: Data(#"{"urls":["https://a.example/x.mp4"],"headers":[]}"#.utf8))
        #expect(old.renditions.isEmpty)
    }
}
