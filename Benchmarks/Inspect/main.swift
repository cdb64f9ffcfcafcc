import Foundation
import MediaCacheKit

// `Benchmarks/run` checks what mediacache wrote with mediacache's own readers, so the
// benchmark never drifts from the formats it checks:
//   bench-inspect boxes FILE            top-level MP4 box types in file order, one a line
//   bench-inspect durable-ranges STATE  the ranges a job's saved state vouches for,
//                                       `start end` a line (end exclusive)

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("bench-inspect: \(message)\n".utf8))
    exit(1)
}

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 2, let command = arguments.first, let path = arguments.last else {
    fail("usage: bench-inspect boxes FILE | durable-ranges STATE")
}
do {
    switch command {
    case "boxes":
        let file = try DataFile(path: path, mode: .readOnly)
        for box in try TopLevelBoxes.scan(file, length: try file.size()) { print(box.type) }
    case "durable-ranges":
        guard let bytes = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
        for range in try JobStateCodec.decode(Array(bytes), path: path).completed.ranges {
            print(range.start, range.end)
        }
    default:
        fail("unknown command \(command); use boxes or durable-ranges")
    }
} catch {
    fail("\(path): \(error)")
}
