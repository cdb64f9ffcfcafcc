import Testing
@testable import MediaCacheKit

private func parse(_ text: String) -> ParsedList {
    ListParser.parse(text, file: "list.txt")
}

private let sha256OfTest = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

@Suite("ListParser")
struct ListParserTests {
    // MARK: URL lines

    @Test func singleURLLineBecomesOneEntry() {
        let list = parse("https://cdn.example/a.mp4\n")
        #expect(list.diagnostics.isEmpty)
        #expect(list.entries == [ListEntry(urls: ["https://cdn.example/a.mp4"], origin: "list.txt:1")])
    }

    @Test func lastLineWithoutNewlineIsParsed() {
        let list = parse("https://cdn.example/a.mp4\nhttps://cdn.example/b.mp4")
        #expect(list.entries.map(\.urls) == [["https://cdn.example/a.mp4"], ["https://cdn.example/b.mp4"]])
        #expect(list.entries.map(\.origin) == ["list.txt:1", "list.txt:2"])
    }

    @Test(arguments: [
        "https://m1.example/b.m4a\thttps://m2.example/b.m4a",
        "https://m1.example/b.m4a https://m2.example/b.m4a",
        "https://m1.example/b.m4a \t  https://m2.example/b.m4a   ",
    ])
    func mirrorsOnOneLineFormOneEntry(line: String) throws {
        let list = parse(line + "\n")
        #expect(list.diagnostics.isEmpty)
        let entry = try #require(list.entries.first)
        #expect(list.entries.count == 1)
        #expect(entry.urls == ["https://m1.example/b.m4a", "https://m2.example/b.m4a"])
        #expect(entry.url == "https://m1.example/b.m4a")
    }

    // MARK: Options

    @Test func indentedOptionsApplyToTheEntryAbove() throws {
        let list = parse(
            """
            https://cdn.example/a.mp4
              out=intro.mp4
              header=Authorization: Bearer abc
            \theader=X-Trace: 1
              checksum=sha-256=\(sha256OfTest)
              cache-key=intro-v1
            https://cdn.example/b.mp4

            """)
        #expect(list.diagnostics.isEmpty)
        #expect(list.entries.count == 2)
        let entry = try #require(list.entries.first)
        #expect(entry.urls == ["https://cdn.example/a.mp4"])
        #expect(entry.outName == "intro.mp4")
        #expect(entry.headers == ["Authorization: Bearer abc", "X-Trace: 1"])
        #expect(entry.checksum == ExpectedChecksum(algorithm: .sha256, hex: sha256OfTest))
        #expect(entry.cacheKey == "intro-v1")
        #expect(entry.origin == "list.txt:1")
        // Options never leak into the next entry.
        #expect(list.entries[1] == ListEntry(urls: ["https://cdn.example/b.mp4"], origin: "list.txt:7"))
    }

    @Test func optionValueKeepsEqualsSignsAfterTheFirst() throws {
        let list = parse("https://a.example/x.mp4\n  header=Cookie: a=b; c=d\n")
        #expect(list.diagnostics.isEmpty)
        #expect(try #require(list.entries.first).headers == ["Cookie: a=b; c=d"])
    }

    @Test func optionKeyIsCaseInsensitive() throws {
        let list = parse("https://a.example/x.mp4\n  OUT=name.mp4\n")
        #expect(list.diagnostics.isEmpty)
        #expect(try #require(list.entries.first).outName == "name.mp4")
    }

    // MARK: Comments and blank lines

    @Test func fullLineCommentsAndBlankLinesAreIgnored() {
        let list = parse(
            """
            # a comment
               # an indented comment

            https://a.example/x.mp4
                \t
            # another
            https://a.example/y.mp4
            """)
        #expect(list.diagnostics.isEmpty)
        #expect(list.entries.map(\.url) == ["https://a.example/x.mp4", "https://a.example/y.mp4"])
        #expect(list.entries.map(\.origin) == ["list.txt:4", "list.txt:7"])
    }

    @Test func commentAfterWhitespaceIsStripped() throws {
        let list = parse(
            "https://m1.example/b.m4a\thttps://m2.example/b.m4a      # tab-separated mirrors\n  out=b.m4a # the name\n")
        #expect(list.diagnostics.isEmpty)
        let entry = try #require(list.entries.first)
        #expect(entry.urls == ["https://m1.example/b.m4a", "https://m2.example/b.m4a"])
        #expect(entry.outName == "b.m4a")
    }

    /// `#` inside a URL starts its fragment, not a comment; the fragment never reaches
    /// the server, so it is no part of the entry (or its cache key).
    @Test func hashInsideURLIsAFragmentAndIsDropped() throws {
        let list = parse("https://a.example/x.mp4#t=10\thttps://b.example/x.mp4#top # a comment\n")
        #expect(list.diagnostics.isEmpty)
        let entry = try #require(list.entries.first)
        #expect(entry.urls == ["https://a.example/x.mp4", "https://b.example/x.mp4"])
        #expect(entry.identity == "https://a.example/x.mp4")
    }

    @Test func hashInsideOptionValueWithoutSpaceIsKept() throws {
        let list = parse("https://a.example/x.mp4\n  out=take#2.mp4\n")
        #expect(list.diagnostics.isEmpty)
        #expect(try #require(list.entries.first).outName == "take#2.mp4")
    }

    // MARK: Line endings and encodings

    @Test func crlfLineEndingsAreAccepted() throws {
        let list = parse("# list\r\nhttps://a.example/x.mp4\r\n  out=x.mp4\r\n  header=A: b\r\nhttps://a.example/y.mp4\r\n")
        #expect(list.diagnostics.isEmpty)
        #expect(list.entries.count == 2)
        let first = try #require(list.entries.first)
        #expect(first.url == "https://a.example/x.mp4")
        #expect(first.outName == "x.mp4")
        #expect(first.headers == ["A: b"])
        #expect(first.origin == "list.txt:2")
        #expect(list.entries.last?.url == "https://a.example/y.mp4")
        #expect(list.entries.last?.origin == "list.txt:5")
    }

    @Test func crlfBytesAreAccepted() throws {
        let bytes = Array("https://a.example/x.mp4\r\n  out=x.mp4\r\n".utf8)
        let list = ListParser.parse(bytes, file: "list.txt")
        #expect(list.diagnostics.isEmpty)
        let entry = try #require(list.entries.first)
        #expect(entry.url == "https://a.example/x.mp4")
        #expect(entry.outName == "x.mp4")
    }

    @Test func crlfErrorsReportTheRightLine() {
        let list = parse("https://a.example/x.mp4\r\n  out=x.mp4\r\nftp://a.example/y.mp4\r\n")
        #expect(list.errors.map(\.line) == [3])
        #expect(list.entries.map(\.url) == ["https://a.example/x.mp4"])
    }

    @Test func utf8BOMInBytesIsSkipped() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("https://a.example/x.mp4\n  out=x.mp4\n".utf8)
        let list = ListParser.parse(bytes, file: "list.txt")
        #expect(list.diagnostics.isEmpty)
        let entry = try #require(list.entries.first)
        #expect(entry.url == "https://a.example/x.mp4")
        #expect(entry.outName == "x.mp4")
    }

    @Test func utf8BOMAtStartOfStringIsSkipped() throws {
        let list = parse("\u{FEFF}https://a.example/x.mp4\n")
        #expect(list.diagnostics.isEmpty)
        #expect(try #require(list.entries.first).url == "https://a.example/x.mp4")
    }

    @Test func bomAndCRLFTogether() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("https://a.example/x.mp4\r\n  out=x.mp4\r\n".utf8)
        let list = ListParser.parse(bytes, file: "list.txt")
        #expect(list.diagnostics.isEmpty)
        let entry = try #require(list.entries.first)
        #expect(entry.url == "https://a.example/x.mp4")
        #expect(entry.outName == "x.mp4")
    }

    /// Decoded line by line: the undecodable line is the one error, the good one stands.
    @Test func invalidUTF8IsOneErrorForItsLine() throws {
        let bytes: [UInt8] = Array("https://a.example/x.mp4\n".utf8) + [0xFF, 0xFE, 0x80] + Array("\n".utf8)
        let list = ListParser.parse(bytes, file: "list.txt")
        #expect(list.entries.map(\.url) == ["https://a.example/x.mp4"])
        #expect(list.diagnostics.count == 1)
        let diagnostic = try #require(list.diagnostics.first)
        #expect(diagnostic.severity == .error)
        #expect(diagnostic.file == "list.txt" && diagnostic.line == 2)
        #expect(diagnostic.message.contains("UTF-8"))
    }

    // MARK: Errors

    @Test func optionWithoutURLAboveIsAnErrorWithItsLine() throws {
        let list = parse("# header comment\n  out=x.mp4\nhttps://a.example/y.mp4\n")
        let error = try #require(list.errors.first)
        #expect(list.errors.count == 1)
        #expect(error.line == 2)
        #expect(error.message.contains("no URL line above"))
        #expect(error.description.hasPrefix("list.txt:2: "))
        #expect(list.entries.map(\.url) == ["https://a.example/y.mp4"])
    }

    /// A URL indented by mistake reads as an option: the message names it as a URL and
    /// says what to do (not "expected key=value, got 'http …'").
    @Test func anIndentedURLIsNamedAsOne() throws {
        let list = parse("https://a.example/1.mp4\n  https://a.example/2.mp4\n")
        let error = try #require(list.errors.first)
        #expect(error.line == 2)
        #expect(error.message.contains("this one is a URL: https://a.example/2.mp4; to fetch it, write it at the start of its line"),
            "\(error.message)")
    }

    @Test func badSchemeIsReportedAndItsOptionsSkippedSilently() throws {
        let list = parse(
            """
            https://a.example/first.mp4
            ftp://files.example/b.mp4
              out=b.mp4
              header=Authorization: x
              bogus-key=1
              checksum=not-valid
            https://a.example/c.mp4
              out=c.mp4
            """)
        #expect(list.diagnostics.count == 1)
        let error = try #require(list.errors.first)
        #expect(error.line == 2)
        #expect(error.description.hasPrefix("list.txt:2: "))
        #expect(error.message.contains("ftp"))
        #expect(error.message.contains("ftp://files.example/b.mp4"))
        #expect(list.entries.map(\.url) == ["https://a.example/first.mp4", "https://a.example/c.mp4"])
        #expect(list.entries.last?.outName == "c.mp4")
        #expect(list.entries.first?.outName == nil)
    }

    @Test func badMirrorDropsTheWholeLine() {
        let list = parse("https://a.example/x.mp4 ftp://b.example/x.mp4\nhttps://a.example/y.mp4\n")
        #expect(list.errors.map(\.line) == [1])
        #expect(list.entries.map(\.url) == ["https://a.example/y.mp4"])
    }

    @Test(arguments: [
        "checksum=sha-256=abc",
        "checksum=md5=zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz",
        "checksum=crc32=12345678",
        "checksum=nothing",
        "header=NoColonHere",
        "header=: value",
        "header=Bad Name: value",
    ])
    func badOptionDropsItsEntry(option: String) throws {
        let list = parse("https://a.example/x.mp4\n  out=x.mp4\n  \(option)\n  out=y.mp4\nhttps://a.example/z.mp4\n")
        #expect(list.diagnostics.count == 1)
        let error = try #require(list.errors.first)
        #expect(error.line == 3)
        #expect(error.description.hasPrefix("list.txt:3: "))
        #expect(list.entries.map(\.url) == ["https://a.example/z.mp4"])
    }

    @Test func badChecksumMessageExplainsTheDigest() throws {
        let list = parse("https://a.example/x.mp4\n  checksum=sha-256=abc\n")
        let error = try #require(list.errors.first)
        #expect(error.message.contains("sha-256 digest must be 64 hex digits"))
    }

    @Test func optionWithoutEqualsIsAnError() {
        let list = parse("https://a.example/x.mp4\n  just-a-word\n")
        #expect(list.errors.map(\.line) == [2])
    }

    // MARK: Warnings

    @Test func unknownKeyIsAWarningAndEntryIsKept() throws {
        let list = parse("https://a.example/x.mp4\n  colour=blue\n  out=x.mp4\n")
        #expect(list.errors.isEmpty)
        let warning = try #require(list.warnings.first)
        #expect(list.warnings.count == 1)
        #expect(warning.severity == .warning)
        #expect(warning.line == 2)
        #expect(warning.message.contains("colour"))
        #expect(warning.description.hasPrefix("list.txt:2: warning: "))
        #expect(list.entries.count == 1)
        #expect(list.entries.first?.outName == "x.mp4")
    }

    @Test func aria2OptionIsAWarningThatNamesAria2() throws {
        let list = parse("https://a.example/x.mp4\n  split=4\n")
        let warning = try #require(list.warnings.first)
        #expect(warning.line == 2)
        #expect(warning.message.contains("aria2"))
        #expect(list.entries.count == 1)
    }

    /// A repeated URL is ignored, with a warning, unless it names a place of its own
    /// (`out=`, `dir=`): then it is kept, to be fetched once and put in both places.
    @Test func duplicateIdentityKeepsOnlyTheFirstUnlessItNamesAPlace() throws {
        let list = parse(
            """
            https://a.example/x.mp4
              out=first.mp4
            https://a.example/other.mp4
            https://a.example/x.mp4
            https://a.example/x.mp4
              out=second.mp4
            https://a.example/x.mp4
              dir=elsewhere
            """)
        #expect(list.errors.isEmpty)
        let warning = try #require(list.warnings.first)
        #expect(list.warnings.count == 1)
        #expect(warning.line == 4)
        #expect(warning.message.contains("line 1"))
        #expect(list.entries.map(\.url) == ["https://a.example/x.mp4", "https://a.example/other.mp4", "https://a.example/x.mp4",
            "https://a.example/x.mp4"])
        #expect(list.entries.map(\.outName) == ["first.mp4", nil, "second.mp4", nil])
        #expect(list.entries.last?.directory == "elsewhere")
    }

    @Test func differentCacheKeysMakeTheSameURLDistinct() {
        let list = parse(
            """
            https://a.example/x.mp4
              cache-key=one
            https://a.example/x.mp4
              cache-key=two
            """)
        #expect(list.diagnostics.isEmpty)
        #expect(list.entries.map(\.identity) == ["one", "two"])
    }

    @Test func sameCacheKeyMakesDifferentURLsDuplicates() throws {
        let list = parse(
            """
            https://a.example/x.mp4?token=1
              cache-key=video-42
            https://a.example/x.mp4?token=2
              cache-key=video-42
            """)
        #expect(list.errors.isEmpty)
        #expect(try #require(list.warnings.first).line == 3)
        #expect(list.entries.map(\.url) == ["https://a.example/x.mp4?token=1"])
    }

    @Test func cacheKeyIsTheIdentityAndURLOtherwise() {
        #expect(ListEntry(urls: ["https://a/x"], cacheKey: "k").identity == "k")
        #expect(ListEntry(urls: ["https://a/x", "https://b/x"]).identity == "https://a/x")
    }

    /// Events show the name `ls` shows, so a name seen in a line can be given to `info` or `rm`.
    @Test func displayNameIsOutElseTheURLWithoutItsPassword() {
        #expect(ListEntry(urls: ["https://a.example/dir/clip.mp4?t=1"], outName: "nice.mp4").displayName == "nice.mp4")
        #expect(ListEntry(urls: ["https://a.example/dir/clip.mp4?t=1"]).displayName == "https://a.example/dir/clip.mp4?t=1")
        #expect(ListEntry(urls: ["https://me:secret@a.example/c.mp4"]).displayName.contains("secret") == false)
    }

    // MARK: Diagnostic formatting

    @Test func errorDescriptionIsFileLineMessage() {
        let diagnostic = ListDiagnostic(severity: .error, file: "list.txt", line: 12, message: "something is wrong")
        #expect(diagnostic.description == "list.txt:12: something is wrong")
    }

    @Test func warningDescriptionSaysWarning() {
        let diagnostic = ListDiagnostic(severity: .warning, file: "in/list.txt", line: 3, message: "odd")
        #expect(diagnostic.description == "in/list.txt:3: warning: odd")
    }

    @Test func errorsAndWarningsAreSplitBySeverity() {
        let list = parse("https://a.example/x.mp4\n  colour=blue\nftp://b/y\n")
        #expect(list.errors.map(\.line) == [3])
        #expect(list.warnings.map(\.line) == [2])
    }
}

@Suite("ListEntries")
struct ListEntriesTests {
    @Test func entriesComeOneAtATimeWithTheirProblemsFirst() {
        let entries = ListEntries([
            ListText(text: "https://a.example/1.mp4\nftp://a.example/x\nhttps://a.example/2.mp4\n  out=two.mp4", file: "a.txt"),
            ListText(text: "\u{FEFF}https://a.example/1.mp4\r\nhttps://a.example/3.mp4", file: "b.txt"),
        ])
        var seen: [String] = []
        func next() -> String? {
            entries.next { seen.append($0.description) }.map { $0.outName ?? $0.url }
        }
        // An entry is complete when the next URL line starts: the bad line 2 is met
        // (and reported) on the way to handing out entry 1, nothing further is read.
        #expect(next() == "https://a.example/1.mp4")
        #expect(seen.count == 1 && seen[0].hasPrefix("a.txt:2: unsupported scheme"))
        #expect(entries.errorCount == 1)
        #expect(next() == "two.mp4")
        #expect(seen.count == 1)
        // A key already seen in another list is dropped, naming where it came first.
        #expect(next() == "https://a.example/3.mp4")
        #expect(seen.contains("b.txt:1: warning: duplicate of the entry at a.txt:1; ignored"))
        #expect(next() == nil)
        #expect(next() == nil)
        #expect(entries.errorCount == 1)
    }

    @Test func aListWithoutAFinalNewlineKeepsItsLastEntryAndOptions() {
        let list = ListParser.parse("https://a.example/1.mp4\nhttps://a.example/2.mp4\n  out=last.mp4", file: "list.txt")
        #expect(list.entries.map(\.url) == ["https://a.example/1.mp4", "https://a.example/2.mp4"])
        #expect(list.entries.last?.outName == "last.mp4")
        #expect(list.diagnostics.isEmpty)
    }
}

@Suite("Shard")
struct ShardTests {
    /// Machines of different releases split one list: the shard of a key never changes.
    @Test func aKeysShardIsItsDigestModuloTheCount() throws {
        let key = CacheKey(identity: "https://a.example/1.mp4")
        let high = try #require(UInt64(key.hex.prefix(16), radix: 16))
        for count in [1, 2, 3, 7, 4096] {
            let expected = Int(high % UInt64(count))
            for index in 0..<min(count, 8) {
                #expect(try Shard(index: index, count: count).contains(key) == (index == expected))
            }
        }
    }

    /// A fixed vector: sha256("https://a.example/1.mp4") begins 0971e1616dfe6611, which is
    /// 6 modulo 7 and 1553 modulo 4096. A change here would split lists differently on
    /// machines of different releases.
    @Test func theShardRuleIsTheSameInEveryRelease() throws {
        let key = CacheKey(identity: "https://a.example/1.mp4")
        #expect(key.hex.hasPrefix("0971e1616dfe6611"))
        #expect(try Shard(index: 6, count: 7).contains(key))
        #expect(try Shard(index: 1553, count: 4096).contains(key))
        #expect(try !Shard(index: 0, count: 7).contains(key))
    }

    @Test func shardsOfAListAreDisjointAndCoverIt() throws {
        let text = (0..<200).map { "https://a.example/\($0).mp4" }.joined(separator: "\n")
        var seen: [String] = []
        var otherCounts = 0
        for index in 0..<3 {
            let entries = ListEntries([ListText(text: text, file: "a.txt")], shard: try Shard(index: index, count: 3))
            var mine: [String] = []
            while let entry = entries.next(diagnose: { _ in }) { mine.append(entry.url) }
            #expect(mine.count > 30, "shard \(index) took \(mine.count) of 200")
            #expect(entries.otherShardCount == 200 - mine.count)
            otherCounts += entries.otherShardCount
            seen += mine
        }
        #expect(seen.count == 200 && Set(seen).count == 200)
        #expect(otherCounts == 400)
    }

    @Test(arguments: ["", "1", "a/2", "1/", "/2", "1/2/3", "2/2", "0/0", "0/4097", "-1/2"])
    func badTextIsRefusedWithAReason(text: String) {
        #expect(throws: Shard.ParseError.self) { try Shard(parsing: text) }
    }
}

@Suite("Object placement names")
struct ObjectPlacementNameTests {
    @Test func outWinsThenTheURLsLastSegmentThenTheKey() {
        #expect(ObjectPlacement.fileName(outName: "Episode 6.mp4", url: "https://h/x.mp4", key: "ab", pathExtension: "mp4") == "Episode 6.mp4")
        #expect(ObjectPlacement.fileName(outName: nil, url: "https://h/a/My%20Clip.mp4?sig=1", key: "ab", pathExtension: "mp4") == "My Clip.mp4")
        #expect(ObjectPlacement.fileName(outName: nil, url: "https://h/", key: "0123456789abcdef99", pathExtension: "mp4") == "0123456789abcdef.mp4")
        // Never a path: a separator or a control character becomes _.
        #expect(ObjectPlacement.fileName(outName: "../../etc/passwd", url: "https://h/x", key: "ab", pathExtension: nil) == ".._.._etc_passwd")
        #expect(ObjectPlacement.fileName(outName: "..", url: "https://h/x", key: "cd", pathExtension: nil) == "cd")
        // Nor a name that hides its end: a direction override becomes _ too.
        #expect(ObjectPlacement.fileName(outName: nil, url: "https://h/%E2%80%AEgpj.exe", key: "ab", pathExtension: nil) == "_gpj.exe")
    }

    /// `out=` names folders inside the entry's folder, as aria2's does; never above it.
    @Test func outMayNameFoldersInsideTheEntrysFolder() {
        #expect(ObjectPlacement.splitOutName("Season 1/E01.mp4") == ("Season 1", "E01.mp4"))
        #expect(ObjectPlacement.splitOutName("/a//./b/E01.mp4") == ("a/b", "E01.mp4"))
        #expect(ObjectPlacement.splitOutName("E01.mp4") == (nil, "E01.mp4"))
        #expect(ObjectPlacement.splitOutName("a/../../E01.mp4") == ("a/_/_", "E01.mp4"))
        #expect(ObjectPlacement.splitOutName(nil) == (nil, nil))
        let parsed = ListParser.parse(
            "https://h/a.mp4\n  out=../a.mp4\nhttps://h/b.mp4\n  out=Season 1/\nhttps://h/c.mp4\n  out=.\n", file: "l.txt")
        #expect(parsed.errors.map(\.line) == [2, 4, 6])
        #expect(parsed.errors.first?.message.contains("out= ../a.mp4 has a '..'") == true)
        #expect(parsed.errors.allSatisfy { $0.message.hasSuffix("; entry skipped") }, "\(parsed.errors)")
        #expect(parsed.entries.isEmpty, "an entry whose out= is refused is not fetched under another name")
    }

    @Test func takenNamesAreNumberedBeforeTheExtension() {
        #expect(ObjectPlacement.numbered("clip.mp4", 0) == "clip.mp4")
        #expect(ObjectPlacement.numbered("clip.mp4", 2) == "clip.2.mp4")
        #expect(ObjectPlacement.numbered("README", 1) == "README.1")
        #expect(ObjectPlacement.numbered(".hidden", 1) == ".hidden.1")
    }
}

/// A list line with a space inside a URL: the error says why the rest is no URL.
@Suite("List URL lines with spaces")
struct ListURLSpaceTests {
    @Test func theRestOfANameWithASpaceIsExplained() throws {
        let list = ListParser.parse("https://h/My Clip.mp4\n", file: "l.txt")
        let error = try #require(list.errors.first)
        #expect(error.line == 1)
        #expect(error.message.contains("not a valid URL: Clip.mp4"), "\(error.message)")
        #expect(error.message.contains("write a space inside a URL as %20"), "\(error.message)")
        // A word with a scheme is a mirror that is wrong, not a name cut at a space.
        let mirror = ListParser.parse("https://h/a.mp4 ftp://h/a.mp4\n", file: "l.txt")
        #expect(mirror.errors.first.map { !$0.message.contains("%20") } == true)
    }
}
