/// How far a streaming title is: what its progress line and its NDJSON events report.
public struct TitleCounts: Sendable, Equatable {
    /// Media segments held, of all the chosen renditions have (a byte-range file holds
    /// every segment that points into it).
    public var segmentsHeld: Int
    public var segments: Int
    /// Files held, of every file the title needs (segments, init sections, keys).
    public var filesHeld: Int
    public var files: Int
    /// What is not held yet, by rendition: runs of segment numbers (`17-2036`, `40`),
    /// and the stored path of any other file (`video-0/init-0.mp4`).
    public var missing: [String: [String]]

    public init(segmentsHeld: Int, segments: Int, filesHeld: Int, files: Int, missing: [String: [String]] = [:]) {
        self.segmentsHeld = segmentsHeld
        self.segments = segments
        self.filesHeld = filesHeld
        self.files = files
        self.missing = missing
    }

    /// The counts of `resources` of which those at `held` paths are held; `missing`
    /// is filled only when `listingMissing` (a failure's report, not every progress line).
    init(resources: [TitleResource], isHeld: (String) -> Bool, listingMissing: Bool) {
        var counts = TitleCounts(segmentsHeld: 0, segments: 0, filesHeld: 0, files: resources.count)
        var numbers: [String: [Int]] = [:]
        for resource in resources {
            counts.segments += resource.segments
            if isHeld(resource.path) {
                counts.filesHeld += 1
                counts.segmentsHeld += resource.segments
            } else if listingMissing {
                if let number = resource.segment {
                    numbers[resource.rendition, default: []].append(number)
                } else {
                    counts.missing[resource.rendition, default: []].append(resource.path)
                }
            }
        }
        for (rendition, list) in numbers {
            counts.missing[rendition, default: []] = Self.runs(list) + (counts.missing[rendition] ?? [])
        }
        self = counts
    }

    /// `[3, 4, 5, 9]` → `["3-5", "9"]`.
    static func runs(_ numbers: [Int]) -> [String] {
        var runs: [(first: Int, last: Int)] = []
        for number in Set(numbers).sorted() {
            if let run = runs.last, number == run.last + 1 {
                runs[runs.count - 1].last = number
            } else {
                runs.append((number, number))
            }
        }
        return runs.map { $0.first == $0.last ? "\($0.first)" : "\($0.first)-\($0.last)" }
    }
}
