import Testing

@testable import mediacache

@Suite("Progress lines")
struct ProgressLineTests {
    /// A title's line counts segments: its bar and percent are segments held of all,
    /// since its size is not known until every segment has arrived.
    @Test func aTitleLineCountsSegments() {
        let title = RunTally.File(
            name: "master.m3u8", done: 5 << 20, length: nil, rate: 1_048_576, connections: 4, segments: (45, 180))
        let line = ProgressBoard.line(for: title, width: 100)
        #expect(line.contains("[#####---------------]  25%"), "\(line)")
        #expect(line.contains("45/180 seg  5.00 MiB"), "\(line)")
        #expect(line.hasPrefix("master.m3u8"))
        #expect(line.count <= 100)
        // A file of unknown length has no bar.
        let file = RunTally.File(name: "f.mp4", done: 1 << 20, length: nil, rate: 0, connections: 1)
        #expect(!ProgressBoard.line(for: file, width: 100).contains("["))
    }
}
