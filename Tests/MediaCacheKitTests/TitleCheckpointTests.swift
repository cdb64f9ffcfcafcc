import Foundation
import Testing
@testable import MediaCacheKit

/// A title's checkpoint: its progress and job state replace the last ones whole, after
/// the files they name are flushed, and leave no temporary file behind.
@Suite("Title checkpoint")
struct TitleCheckpointTests {
    @Test func aCheckpointReplacesProgressAndStateAndLeavesNoTemporaries() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let staging = directory.path
        let files = staging + "/" + TitleLayout.filesFolder
        try FileManager.default.createDirectory(atPath: files, withIntermediateDirectories: true)
        let segment = Array(repeating: UInt8(9), count: 1000)
        _ = FileManager.default.createFile(atPath: files + "/s0.ts", contents: Data(segment))
        let entry = ListEntry(urls: ["http://127.0.0.1/title.m3u8"])
        var progress = TitleProgress()  // an empty one first, then one that holds a file
        progress.saveAfterFlushing(state: JobState(entry: entry, commandHeaders: []), staging: staging)
        progress.held["s0.ts"] = TitleProgress.Held(size: 1000, sha256: Digest.sha256Hex(segment), rendition: "media")
        var state = JobState(entry: entry, commandHeaders: [])
        state.completed.insert(ByteRange(0, 1000))
        progress.saveAfterFlushing(state: state, staging: staging)

        #expect(TitleProgress.load(staging: staging).held == progress.held)
        let statePath = staging + "/" + TitleLayout.stateFile
        #expect(try JobStateCodec.decode(try FileSystem.readAll(statePath), path: statePath).completed == state.completed)
        let names = try FileManager.default.contentsOfDirectory(atPath: staging)
        #expect(!names.contains { $0.hasSuffix(".tmp") }, "\(names)")
    }

    /// The progress is written by hand (`JSONBytes`): whatever names and validators it
    /// holds, `JSONDecoder` reads back what was saved.
    @Test func progressReadsBackWhateverItNames() throws {
        var progress = TitleProgress()
        progress.shapes = ["v0": "hls|ts|6", "audio \"en\"": "shape\u{1}"]
        let names = ["v0/s00001.ts", "a/quote\"back\\slash", "tab\there\nline", "é/日本.ts", "nul\u{0}x", "\u{7f}\u{1f}"]
        for (index, name) in names.enumerated() {
            progress.held[name] = TitleProgress.Held(size: Int64(index) << 40, sha256: String(repeating: "a", count: 64), rendition: name)
        }
        progress.partial["v0/s00002.ts"] = TitleProgress.Partial(bytes: 4096, validator: "W/\"etag \\ 1\"")
        // A file in pieces keeps its ranges; a resume of it whole continues after the first.
        let pieces = RangeSet([ByteRange(0, 100), ByteRange(4096, 8192), ByteRange(1 << 33, (1 << 33) + 7)])
        progress.partial["v0/file.ts"] = TitleProgress.Partial(held: pieces, validator: "\"p\"")
        #expect(progress.partial["v0/file.ts"]?.bytes == (1 << 33) + 7 && progress.partial["v0/file.ts"]?.held.contiguousPrefix == 100)
        // A whole file in pieces keeps the length its origin said.
        progress.partial["v0/whole.mp4"] = TitleProgress.Partial(held: pieces, validator: "\"w\"", length: 1 << 34)
        let decoded = try JSONDecoder().decode(TitleProgress.self, from: Data(progress.encoded()))
        #expect(decoded == progress)
        #expect(try JSONDecoder().decode(TitleProgress.self, from: Data(TitleProgress().encoded())) == TitleProgress())
    }
}
