import Testing

@testable import MediaCacheKit

@Suite struct TitleCountsTests {
    static func resource(_ path: String, rendition: String, segment: Int? = nil, segments: Int = 0) -> TitleResource {
        TitleResource(
            path: path, url: "http://127.0.0.1/" + path, range: nil, kind: segment == nil ? .initSection : .segment,
            rendition: rendition, label: path, segment: segment, segments: segment == nil ? segments : 1)
    }

    @Test func runsOfNumbers() {
        #expect(TitleCounts.runs([9, 3, 4, 5, 5]) == ["3-5", "9"])
        #expect(TitleCounts.runs([]) == [])
        #expect(TitleCounts.runs([7]) == ["7"])
    }

    /// A failure lists what is missing by rendition: runs of segment numbers, then the
    /// other files by stored path; a ranged file counts every segment it carries.
    @Test func missingSegmentsAreListedAsRuns() {
        let resources = [Self.resource("v/init-0.mp4", rendition: "v")]
            + (0..<10).map { (number: Int) in Self.resource("v/s\(number).m4s", rendition: "v", segment: number) }
            + [Self.resource("a/file-1.mp4", rendition: "a", segments: 10)]
        let held: Set<String> = ["v/s0.m4s", "v/s1.m4s", "v/s5.m4s", "a/file-1.mp4"]
        let counts = TitleCounts(resources: resources, isHeld: held.contains, listingMissing: true)
        #expect(counts.segments == 20 && counts.segmentsHeld == 13)
        #expect(counts.files == 12 && counts.filesHeld == 4)
        #expect(counts.missing == ["v": ["2-4", "6-9", "v/init-0.mp4"]])
        #expect(TitleCounts(resources: resources, isHeld: held.contains, listingMissing: false).missing.isEmpty)
    }
}
