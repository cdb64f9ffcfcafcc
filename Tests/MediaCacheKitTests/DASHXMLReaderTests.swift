import Testing
@testable import MediaCacheKit

private func tree(_ text: String) throws -> XMLElementTree {
    try XMLElementTree(parsing: Array(text.utf8))
}

private func syntaxError(_ bytes: [UInt8]) -> XMLSyntaxError? {
    do {
        _ = try XMLElementTree(parsing: bytes)
        return nil
    } catch {
        return error
    }
}

private func syntaxError(_ text: String) -> XMLSyntaxError? { syntaxError(Array(text.utf8)) }

@Suite("DASH XML reader")
struct DASHXMLReaderTests {
    @Test func elementsAttributesAndTextInDocumentOrder() throws {
        let document = try tree(
            """
            <?xml version="1.0" encoding="UTF-8" standalone="no"?>
            <!-- written by hand -->
            <?xml-stylesheet href="style.xsl"?>
            <!DOCTYPE MPD PUBLIC "-//x//y" 'mpd.dtd'>
            <MPD a="1" b = 'two "quoted"'>
              <Period id="p0"><BaseURL> http://cdn.example/a/ </BaseURL></Period>
              <Period/>
              <!-- <Period id="commented"/> -->
            </MPD>
            <!-- after -->

            """)
        let root = document.root
        #expect(root.name == "MPD")
        #expect(root.line == 5)
        #expect(root["a"] == "1")
        #expect(root["b"] == "two \"quoted\"")
        #expect(root.children.map(\.name) == ["Period", "Period"])
        #expect(root.children.map(\.line) == [6, 7])
        let period = try #require(root.firstChild(named: "Period"))
        #expect(period["id"] == "p0")
        #expect(period.firstChild(named: "BaseURL")?.text == " http://cdn.example/a/ ")
        #expect(root.text == "")
    }

    @Test func entitiesCharacterReferencesAndCDATA() throws {
        let document = try tree(
            "<r t=\"&lt;&amp;&gt;&quot;&apos;&#65;&#x42;&#x1F600;\">a&amp;b<![CDATA[<not> &amp; markup]]>&#10;</r>")
        #expect(document.root["t"] == "<&>\"'AB😀")
        #expect(document.root.text == "a&b<not> &amp; markup\n")
    }

    @Test func blanksInAttributeValuesBecomeSpacesAndLineEndsLF() throws {
        let document = try tree("<r v=\"a\tb\r\nc\nd\">x\r\ny\rz</r>")
        #expect(document.root["v"] == "a b c d")
        #expect(document.root.text == "x\ny\nz")
    }

    @Test func prefixesAreKeptOnAttributesAndDroppedFromElementNames() throws {
        let document = try tree(
            """
            <mpd:MPD xmlns:mpd="urn:mpeg:dash:schema:mpd:2011" xmlns:xlink="http://www.w3.org/1999/xlink">
            <mpd:Period xlink:href="remote.xml" cenc:default_KID="00"/></mpd:MPD>
            """)
        #expect(document.root.name == "MPD")
        let period = try #require(document.root.firstChild(named: "Period"))
        #expect(period.name == "Period")
        #expect(period["xlink:href"] == "remote.xml")
        #expect(period["href"] == nil)
        #expect(period.attributes.map(\.localName) == ["href", "default_KID"])
    }

    @Test func aByteOrderMarkIsSkipped() throws {
        #expect(try XMLElementTree(parsing: [0xEF, 0xBB, 0xBF] + Array("<MPD/>".utf8)).root.name == "MPD")
    }

    @Test(arguments: [
        ("<MPD>\n<Period>\n</MPD>", 3, "the end tag </MPD> does not close <Period> of line 2"),
        ("<MPD>\n<Period>\n", 3, "the document ends inside <Period> of line 2: the file is cut short?"),
        ("<MPD>\n  <P a=\"1\" a='2'/></MPD>", 2, "the attribute a is written twice"),
        ("<MPD a=1/>", 1, "the value of attribute a is not in quotes"),
        ("<MPD a=\"1\"b=\"2\"/>", 1, "attributes must be separated by blank space"),
        ("<MPD>\n\n&nbsp;</MPD>", 3,
         "unknown entity or character '&nbsp;'; only &amp; &lt; &gt; &quot; &apos; and references to characters XML allows are defined"),
        ("<MPD>&#0;</MPD>", 1,
         "unknown entity or character '&#0;'; only &amp; &lt; &gt; &quot; &apos; and references to characters XML allows are defined"),
        ("<MPD>\na & b</MPD>", 2, "an '&' that starts no entity reference (write &amp; for '&')"),
        ("<MPD v=\"a<b\"/>", 1, "'<' inside the value of attribute v"),
        ("<MPD/>\n<MPD/>", 2, "a second root element"),
        ("<MPD/>\ntext", 2, "text outside the root element"),
        ("\n<!-- open", 2, "a comment (<!--) is not closed with '-->'"),
        ("<MPD><![CDATA[x</MPD>", 1, "a CDATA section (<![CDATA[) is not closed with ']]>'"),
        ("<MPD>\n<?xml version=\"1.0\"?></MPD>", 2, "an XML declaration (<?xml ...?>) after the start of the document"),
        ("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><MPD/>", 1,
         "the document declares encoding 'ISO-8859-1'; only UTF-8 is read"),
        ("<1MPD/>", 1, "the name 1MPD starts with 1"),
        ("<a:b:c/>", 1, "the name a:b:c is not a valid prefixed name"),
        ("", 1, "the document has no root element"),
        ("<MPD>\u{1}</MPD>", 1, "a control character (0x1) in text"),
    ])
    func malformedDocumentsAreRefusedWithTheirLine(text: String, line: Int, reason: String) {
        #expect(syntaxError(text) == XMLSyntaxError(line: line, reason: reason))
    }

    @Test func invalidUTF8AndUTF16AreRefused() {
        #expect(syntaxError(Array("<MPD>\n<P v=\"".utf8) + [0xFF] + Array("\"/></MPD>".utf8))
            == XMLSyntaxError(line: 2, reason: "the text is not UTF-8"))
        #expect(syntaxError([0xFF, 0xFE, 0x3C, 0x00]) == XMLSyntaxError(line: 1, reason: "the document is UTF-16; only UTF-8 is read"))
    }

    /// Billion laughs: an internal subset can define entities that expand to gigabytes.
    @Test func anInternalSubsetIsRefused() {
        let text = """
            <?xml version="1.0"?>
            <!DOCTYPE lolz [
             <!ENTITY lol "lol">
             <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
            ]>
            <MPD>&lol2;</MPD>
            """
        #expect(syntaxError(text) == XMLSyntaxError(
            line: 2, reason: "a DOCTYPE with an internal subset ([...]) is refused: its entities could expand without bound"))
        // A '[' inside a quoted system id is no subset.
        #expect(syntaxError("<!DOCTYPE MPD SYSTEM \"a[1].dtd\"><MPD/>") == nil)
    }

    @Test func nestingIsBounded() {
        let depth = XMLElementTree.maxDepth
        let fits = String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth)
        #expect(syntaxError(fits) == nil)
        let deeper = String(repeating: "<a>\n", count: depth + 1) + String(repeating: "</a>", count: depth + 1)
        #expect(syntaxError(deeper) == XMLSyntaxError(line: depth + 1, reason: "elements nested deeper than 64"))
    }

    @Test func manyElementsAndLongTextStayLinear() throws {
        let count = 100_000
        let text = "<SegmentTimeline>" + String(repeating: "<S d=\"2\"/>x<!---->", count: count) + "</SegmentTimeline>"
        let clock = ContinuousClock()
        let start = clock.now
        let document = try tree(text)
        #expect(document.root.children.reduce(0) { count, _ in count + 1 } == count)
        #expect(document.root.text.count == count)
        #expect(clock.now - start < .seconds(20))
    }
}
