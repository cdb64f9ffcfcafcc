import Foundation
import Testing
@testable import MediaCacheKit

/// A list file is read a chunk at a time as its entries are asked for; what it gives
/// (entries, diagnostics, their lines) must be what the same bytes give in memory.
@Suite("List files read in chunks")
struct ListFileTests {
    /// Every entry and diagnostic of `lists`, in the order a run meets them.
    private static func read(_ lists: [ListText]) -> (entries: [String], diagnostics: [String]) {
        let entries = ListEntries(lists)
        var diagnostics: [String] = []
        var urls: [String] = []
        while let entry = entries.next(diagnose: { diagnostics.append($0.description) }) {
            urls.append([entry.url, entry.outName ?? "", entry.headers.joined(separator: "|")].joined(separator: " "))
        }
        return (urls, diagnostics)
    }

    private static func file(_ bytes: [UInt8]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("list-\(UUID().uuidString).txt").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    private static let overlong = "https://a.example/" + String(repeating: "x", count: ListParser.maxLineLength + 10)

    /// Lists with what a line can be: CRLF, a BOM, comments holding any bytes, a line that
    /// is not UTF-8 (a URL line, an option line), an over-long line, no final newline.
    private static let cases: [[UInt8]] = [
        Array("https://a.example/1.mp4\n  out=one.mp4\nhttps://a.example/2.mp4".utf8),
        [0xEF, 0xBB, 0xBF] + Array("https://a.example/1.mp4\r\n  header=X-A: 1\r\n\r\nhttps://a.example/2.mp4\r\n".utf8),
        Array("# a comment \u{00E9}\nhttps://a.example/1.mp4 # note\n".utf8) + [0x23, 0xFF, 0x0A]
            + Array("https://a.example/2.mp4\n".utf8),
        Array("https://a.example/1.mp4\n".utf8) + [0x68, 0x74, 0xFF, 0x0A] + Array("  out=x.mp4\nhttps://a.example/3.mp4\n".utf8),
        Array("https://a.example/1.mp4\n  out=".utf8) + [0xC3, 0x28] + Array("\nhttps://a.example/2.mp4\n".utf8),
        Array("https://a.example/1.mp4\n\(overlong)\n  out=dropped.mp4\nhttps://a.example/2.mp4\n  \(overlong)\n".utf8),
        Array("https://a.example/1.mp4\nhttps://a.example/1.mp4\n\n\nhttps://a.example/2.mp4\nhttps://a.example/1.mp4".utf8),
        Array("\(overlong)".utf8),
        Array("# \(overlong)\nhttps://a.example/1.mp4 # \(overlong)\n  out=one.mp4\n  # \(overlong)\n".utf8),
        [],
    ]

    @Test(arguments: cases.indices, [1, 7, 64, 65536])
    func aFileGivesWhatTheSameBytesGiveInMemory(index: Int, chunkSize: Int) throws {
        let bytes = Self.cases[index]
        let path = try Self.file(bytes)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let inMemory = Self.read([ListParser.text(of: bytes, file: "list.txt")])
        // The chunk size only changes where reads end, never what a line is.
        let streamed = Self.read([ListText(readingFile: path, file: "list.txt", chunkSize: chunkSize)])
        #expect(streamed.entries == inMemory.entries)
        #expect(streamed.diagnostics == inMemory.diagnostics)
        // And what both give is what the list says, for two of them.
        if index == 1 {
            #expect(streamed.entries == ["https://a.example/1.mp4  X-A: 1", "https://a.example/2.mp4  "])
            #expect(streamed.diagnostics.isEmpty)
        } else if index == 6 {
            #expect(streamed.entries == ["https://a.example/1.mp4  ", "https://a.example/2.mp4  "])
            #expect(
                streamed.diagnostics == [
                    "list.txt:2: warning: duplicate of the entry on line 1; ignored",
                    "list.txt:6: warning: duplicate of the entry on line 1; ignored",
                ])
        }
    }

    @Test func anOverlongLineIsRefusedByItsFullLength() throws {
        let path = try Self.file(Array("\(Self.overlong)\r\nhttps://a.example/2.mp4\n".utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let read = Self.read([ListText(readingFile: path, file: "l.txt")])
        #expect(read.entries == ["https://a.example/2.mp4  "])
        #expect(read.diagnostics.count == 1)
        #expect(read.diagnostics.first?.hasPrefix("l.txt:1: line is \(Self.overlong.utf8.count) bytes long") == true, "\(read.diagnostics)")
    }

    /// A comment may be as long as it likes, on a line of its own or after a URL: only
    /// what stands before it counts against the limit.
    @Test func aLongCommentIsStillAComment() throws {
        let comment = "# " + String(repeating: "c", count: ListParser.maxLineLength + 10)
        let path = try Self.file(Array("\(comment)\nhttps://a.example/1.mp4 \(comment)\n  out=one.mp4\n".utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let read = Self.read([ListText(readingFile: path, file: "l.txt")])
        #expect(read.entries == ["https://a.example/1.mp4 one.mp4 "])
        #expect(read.diagnostics.isEmpty, "\(read.diagnostics)")
    }

    @Test func aListThatCannotBeReadSaysSoNamingIt() {
        let entries = ListEntries([ListText(readingFile: "/nonexistent/list.txt", file: "gone.txt")])
        var diagnostics: [ListDiagnostic] = []
        #expect(entries.next { diagnostics.append($0) } == nil)
        #expect(entries.errorCount == 1)
        #expect(diagnostics.count == 1)
        #expect(diagnostics.first?.description.hasPrefix("gone.txt:1: cannot read the list from here on (") == true)
    }

    /// The count is an estimate for progress: bad lines may count (in a file, a line
    /// that is not UTF-8 does), a good one is never missed.
    @Test func entryLinesOfAFileAreCountedAsInMemory() throws {
        for bytes in Self.cases {
            let path = try Self.file(bytes)
            defer { try? FileManager.default.removeItem(atPath: path) }
            let inFile = ListParser.entryLineCount([ListText(readingFile: path, file: "l")])
            let inMemory = ListParser.entryLineCount([ListParser.text(of: bytes, file: "l")])
            if String(validating: bytes, as: UTF8.self) != nil {
                #expect(inFile == inMemory)
            } else {
                #expect(inFile >= inMemory && inFile >= Self.read([ListParser.text(of: bytes, file: "l")]).entries.count)
            }
        }
    }

    /// Keys beyond the first merges (2,048, then a 32nd of those held) are still
    /// found, each with the place it was first seen.
    @Test func firstSeenKeysFindEveryRepeatWithItsFirstPlace() {
        var seen = FirstSeenKeys()
        let keys = (0..<20_000).map { CacheKey(identity: "https://a.example/\($0)") }
        for (index, key) in keys.enumerated() {
            #expect(seen.insert(key, at: index + 1) == nil)
        }
        #expect(seen.count == keys.count)
        for index in stride(from: 0, to: keys.count, by: 7) {
            #expect(seen.insert(keys[index], at: 0) == index + 1, "key \(index)")
        }
        #expect(seen.count == keys.count)
    }

    /// A pipe's lines are taken as they arrive: an entry whose writer went quiet after it
    /// is given out without waiting for the next line; one written with its option lines
    /// keeps them; the end of the pipe ends the list.
    @Test func aStreamGivesEachEntryAsItArrives() throws {
        let list = PipedList()
        list.write("https://a.example/1.mp4\n")
        #expect(list.next()?.url == "https://a.example/1.mp4")
        list.write("https://a.example/2.mp4\n  out=two.mp4\n")
        list.closeWriter()
        let second = list.next()
        #expect(second?.url == "https://a.example/2.mp4" && second?.outName == "two.mp4")
        #expect(list.next() == nil)
        #expect(list.diagnostics.isEmpty, "\(list.diagnostics)")
    }

    /// An option line that comes after its entry was taken (the writer fell silent for a
    /// second between them) is an error that names the entry, not "no URL line above it".
    @Test func anOptionTooLateForItsEntryNamesTheEntry() throws {
        let list = PipedList()
        list.write("https://a.example/1.mp4\n")
        #expect(list.next()?.url == "https://a.example/1.mp4")
        list.write("  out=late.mp4\n")
        list.closeWriter()
        #expect(list.next() == nil)
        #expect(
            list.diagnostics == [
                "<stdin>:2: option 'out=late.mp4' came more than a second after its entry on line 1, which had started: "
                    + "write an entry's lines together"
            ], "\(list.diagnostics)")
    }

    /// A stopped stream (Ctrl-C) gives what it holds whole and says where it stopped; a
    /// line cut short by the stop is not taken.
    @Test func aStoppedStreamSaysWhereItStopped() throws {
        let list = PipedList()
        list.write("https://a.example/1.mp4\n  out=one.mp4\nhttps://a.example/2.mp4\nhttps://a.exa")
        let first = list.next()
        #expect(first?.url == "https://a.example/1.mp4" && first?.outName == "one.mp4")
        list.stream.stop()
        #expect(list.next() == nil)
        #expect(
            list.diagnostics == [
                "<stdin>:4: warning: the run was interrupted before this line: the entry on line 3 and the rest of the list were not taken"
            ], "\(list.diagnostics)")
    }
}

/// A list on a pipe the test writes, as `cmd | mediacache prefetch -` gives one.
private final class PipedList {
    let stream: ListStream
    let entries: ListEntries
    private(set) var diagnostics: [String] = []
    private var writer: Int32

    init() {
        var ends: [Int32] = [0, 0]
        precondition(pipe(&ends) == 0, "pipe: \(errno)")
        stream = ListStream(descriptor: ends[0], owned: true)
        entries = ListEntries([ListText(reading: stream, file: "<stdin>")])
        writer = ends[1]
    }

    deinit { closeWriter() }

    func write(_ text: String) {
        let bytes = Array(text.utf8)
        precondition(bytes.withUnsafeBytes { Glibc.write(writer, $0.baseAddress, $0.count) } == bytes.count)
    }

    /// The writer's end of input.
    func closeWriter() {
        guard writer >= 0 else { return }
        close(writer)
        writer = -1
    }

    func next() -> ListEntry? { entries.next { diagnostics.append($0.description) } }
}
