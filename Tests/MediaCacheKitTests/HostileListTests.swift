import Foundation
import Testing
import TestSupport
@testable import MediaCacheKit

/// Lists that are not lists, or that try to smuggle something in: every problem is a
/// diagnostic naming its line, never a crash, and nothing unsafe becomes an entry.
@Suite("ListParser, hostile input")
struct HostileListTests {
    private func parse(_ bytes: [UInt8]) -> ParsedList { ListParser.parse(bytes, file: "list.txt") }

    private func hasControl(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    @Test func binaryGarbageGivesLocatedErrorsAndNoEntries() {
        var generator = SeededGenerator(seed: 6)
        // ASCII junk (control characters included) keeps it UTF-8, so every line is parsed.
        let bytes = (0..<20_000).map { _ in UInt8(truncatingIfNeeded: generator.next() % 0x80) }
        let lines = bytes.filter { $0 == 0x0A }.count + 1
        let list = parse(bytes)
        #expect(list.entries.isEmpty)
        #expect(!list.errors.isEmpty)
        for diagnostic in list.diagnostics {
            #expect((1...lines).contains(diagnostic.line))
            #expect(diagnostic.description.hasPrefix("list.txt:\(diagnostic.line): "))
            #expect(!hasControl(diagnostic.message), "\(diagnostic.message.debugDescription)")
        }
    }

    @Test func nulInsideAURLRejectsItsLineOnly() throws {
        let list = parse(Array("https://a.example/x.mp4\u{0}.evil\nhttps://a.example/ok.mp4\n".utf8))
        let error = try #require(list.errors.first)
        #expect(list.errors.count == 1)
        #expect(error.line == 1)
        #expect(error.message.contains("control characters"))
        #expect(!hasControl(error.message))
        #expect(list.entries.map(\.url) == ["https://a.example/ok.mp4"])
    }

    /// Found by FuzzListParser: URLComponents accepts NUL and CR inside a fragment, so
    /// the list took a URL that libcurl would have cut at the NUL.
    @Test func fuzzRegressionControlCharactersInAFragment() throws {
        let bytes = try #require(
            Data(
                base64Encoded:
                    "Oi8vMS4wLjAuYTo4MDgwL21wCg0KaHR0cHM6Ly9bOjoxXTo4L3kubW9AIz90ZTAAOjA4LjA4MC94LiNmcmFnDSNmcmFnDQoJT1VUPXkubW92DTI="
            ))
        let list = parse(Array(bytes))
        #expect(list.entries.isEmpty)
        #expect(list.errors.map(\.line) == [1, 3])
        #expect(list.errors.last?.message.hasPrefix("URL contains control characters") == true)
    }

    @Test func megabyteLineIsReportedShortly() throws {
        let junk = String(repeating: "x", count: 1 << 20)
        let list = parse(Array("\(junk)\n  \(junk)\nhttps://a.example/ok.mp4\n".utf8))
        #expect(list.errors.map(\.line) == [1])  // the option line belongs to the bad entry: skipped
        #expect(try #require(list.errors.first).message.count <= 301)
        #expect(list.entries.map(\.url) == ["https://a.example/ok.mp4"])
    }

    /// Lists are decoded line by line: Latin-1 (or any bytes) in a comment is fine; a
    /// URL line that is not UTF-8 is an error for that line, and its options go with it;
    /// an option line that is not UTF-8 takes its entry; the rest of the list stands.
    @Test func nonUTF8LinesAreErrorsForThoseLinesOnly() throws {
        let latin1: [UInt8] = [0xE9, 0x74, 0xE9]  // "été" in Latin-1
        var bytes: [UInt8] = Array("# r".utf8) + latin1 + Array("sum\nhttps://a.example/1.mp4 # ".utf8) + latin1
        bytes += Array("\n  out=one.mp4\nhttps://a.example/".utf8) + latin1 + Array(".mp4\n  out=bad.mp4\n".utf8)
        bytes += Array("https://a.example/3.mp4\n  out=".utf8) + latin1 + Array("\nhttps://a.example/4.mp4\n".utf8)
        let list = parse(bytes)
        #expect(list.entries.map(\.url) == ["https://a.example/1.mp4", "https://a.example/4.mp4"])
        #expect(list.entries.first?.outName == "one.mp4")
        #expect(list.errors.map(\.line) == [4, 7], "\(list.diagnostics)")
        for error in list.errors {
            #expect(error.description.hasPrefix("list.txt:\(error.line): line is not UTF-8 text (save the list as UTF-8)"))
        }
        #expect(list.warnings.isEmpty, "\(list.diagnostics)")
    }

    /// A URL over 64 KiB (still shorter than the longest line read) is named, shortly, by
    /// its length; its options go with it and the next entry stands. So does a mirror.
    @Test func urlLongerThanTheLimitIsALineError() throws {
        let long = "https://a.example/v.mp4?sig=" + String(repeating: "z", count: 70_000)
        let list = parse(Array("\(long)\n  out=x.mp4\nhttps://a.example/b.mp4\thttps://b.example/\(long.suffix(66_000))\n".utf8))
        #expect(list.errors.map(\.line) == [1, 3])
        let message = try #require(list.errors.first).message
        #expect(message.hasPrefix("URL is \(long.utf8.count) bytes long; mediacache fetches URLs of up to 65536 bytes"))
        #expect(message.count <= 301)
        #expect(list.entries.isEmpty)
        #expect(URLParts.problem(with: String(long.prefix(URLParts.maxLength))) == nil)
    }

    @Test func urlsInMessagesAreCutInTheMiddle() {
        let url = "https://a.example/" + String(repeating: "q", count: 5000) + "/end.mp4"
        let shown = Printable.url(url)
        #expect(shown.utf8.count < 1100)
        #expect(shown.hasPrefix("https://a.example/qqq") && shown.hasSuffix("qq/end.mp4"))
        #expect(shown.contains("…(\(url.utf8.count) bytes)…"))
        #expect(Printable.url("https://a.example/short.mp4") == "https://a.example/short.mp4")
    }

    @Test(arguments: [
        ("file:///etc/passwd", "unsupported scheme 'file'"),
        ("ftp://files.example/a.mp4", "unsupported scheme 'ftp'"),
        ("https:///no-host.mp4", "URL has no host"),
        ("javascript:alert(1)", "unsupported scheme 'javascript'"),
        ("//a.example/x.mp4", "not a valid URL"),
    ])
    func unfetchableSchemesAreErrors(url: String, message: String) throws {
        let list = parse(Array("\(url)\n  out=x.mp4\n".utf8))
        #expect(list.entries.isEmpty)
        let error = try #require(list.errors.first)
        #expect(list.diagnostics.count == 1)
        #expect(error.message.hasPrefix(message), "\(error.message)")
    }

    @Test(arguments: ["X-A: b\rInjected: yes", "X-A: b\u{0}c", "X-A: \u{1B}[2J"])
    func controlCharactersInAHeaderRejectTheEntry(header: String) throws {
        let list = parse(Array("https://a.example/x.mp4\n  header=\(header)\nhttps://a.example/y.mp4\n".utf8))
        let error = try #require(list.errors.first)
        #expect(error.line == 2)
        #expect(error.message.contains("control characters"))
        #expect(list.entries.map(\.url) == ["https://a.example/y.mp4"])
    }

    @Test func controlCharactersInOutAreAnErrorAndTheEntryIsSkipped() throws {
        let list = parse(Array("https://a.example/x.mp4\n  out=\u{1B}]0;owned\u{7}x.mp4\nhttps://a.example/y.mp4\n".utf8))
        #expect(list.errors.map(\.line) == [2])
        #expect(list.errors.first?.message.contains("entry skipped") == true)
        #expect(list.entries.map(\.url) == ["https://a.example/y.mp4"])
    }

    /// `out=` is a display name and a name inside `-d`'s folder: the stored path comes
    /// from the key and a short alphanumeric extension, whatever the name says, and a
    /// name that may climb out of the folder (`..`) is refused with its line, the entry
    /// skipped.
    @Test(arguments: ["../../x", "../../evil.sh", "/etc/passwd", "a/../../b.mp4", "..", "x.mp4/../../y", ".mp4"])
    func outNeverBecomesAPath(out: String) throws {
        let list = parse(Array("https://a.example/x.mp4\n  out=\(out)\n".utf8))
        let climbs = out.split(separator: "/").contains("..")
        #expect(list.errors.map(\.line) == (climbs ? [2] : []))
        if climbs {
            #expect(list.entries.isEmpty)
            return
        }
        let entry = try #require(list.entries.first)
        #expect(entry.outName == out)
        let key = CacheKey(identity: entry.identity)
        let relative = CacheDirectory(root: "/c").relativeObjectPath(key: key, extension: URLParts.shortExtension(of: out))
        #expect(relative.hasPrefix("objects/\(key.hex.prefix(2))/\(key.hex)"))
        #expect(!relative.contains(".."))
        #expect(relative.split(separator: "/").count == 3)
    }

    @Test(arguments: ["split=-1", "max-connection-per-server=999999999", "min-split-size=99999999999999999999T"])
    func absurdAria2NumbersAreWarningsNotCrashes(option: String) throws {
        let list = parse(Array("https://a.example/x.mp4\n  \(option)\n".utf8))
        #expect(list.errors.isEmpty)
        #expect(try #require(list.warnings.first).message.contains("aria2 option"))
        #expect(list.entries.count == 1)
    }
}
