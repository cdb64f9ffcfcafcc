import Testing

@testable import mediacache

@Suite struct ManPageRendering {
    static let generated = """
        .Dd November 21, 2026
        .Sh NAME
        .Nm tool
        .Nd "Does things."
        .Sh DESCRIPTION
        The long help, as one block of text. It is replaced.
        .Bl -tag -width 6n
        .It Fl -sort Ar sort
        Sort by name.
        .Pp
        .It Fl -json
        Print JSON (e.g. for scripts). One object a line.
        .El
        .Sh "EXIT STATUS"
        .Ex -std
        """

    @Test func finishMakesSectionsOfTheLongHelp() throws {
        let sections = [
            ManualSection(
                "EXIT STATUS", [.list([.init("0", "Fine."), .init("2", "Bad input.")]), .text("Also this.")]),
            ManualSection("ENVIRONMENT", [.list([.init("TOOL_DIR", .variable, "Where.")])]),
            ManualSection("EXAMPLES", [.text("Run it:"), .literal([".hidden \\ file"])]),
            ManualSection("SEE ALSO", [.seeAlso([("curl", 1), ("mpv", 1)])]),
        ]
        let page = try ManPage.finish(Self.generated, overview: ["First. Second.", "Third."], sections: sections)
        #expect(
            page == """
                .Dd November 21, 2026
                .Sh NAME
                .Nm tool
                .Nd "Does things"
                .Sh DESCRIPTION
                First.
                Second.
                .Pp
                Third.
                .Bl -tag -width 6n
                .It Fl -sort Ar sort
                Sort by name.
                .It Fl -json
                Print JSON (e.g.\\& for scripts).
                One object a line.
                .El
                .Sh "EXIT STATUS"
                .Bl -tag -width 3n -compact
                .It "0"
                Fine.
                .It "2"
                Bad input.
                .El
                .Pp
                Also this.
                .Sh ENVIRONMENT
                .Bl -tag -width 10n -compact
                .It Ev "TOOL_DIR"
                Where.
                .El
                .Sh EXAMPLES
                Run it:
                .Bd -literal -offset indent
                \\&.hidden \\e file
                .Ed
                .Sh "SEE ALSO"
                .Xr curl 1 ,
                .Xr mpv 1

                """)
    }

    @Test func aPageWithoutTheExpectedSectionsIsRefused() {
        #expect(throws: ManPage.Failure.self) { try ManPage.finish(".Sh NAME\n.Nm tool\n") }
    }

    @Test func textLinesAreBrokenAtSentencesAndEightyColumns() {
        let long = String(repeating: "word ", count: 30) + "end. .dot starts? Yes! \"Quoted.\" tail"
        let lines = ManPage.reflow([".Bd -literal", "keep. this. " + long, ".Ed", long, "", "Next.", ".It Fl x"])
        #expect(lines[0...2] == [".Bd -literal", "keep. this. " + long, ".Ed"])
        #expect(lines.last == ".It Fl x")
        let text = lines[3..<(lines.count - 1)]
        #expect(text.allSatisfy { $0.utf8.count <= 80 })
        #expect(Array(text.suffix(6)) == ["\\&.dot starts?", "Yes!", "\"Quoted.\"", "tail", ".Pp", "Next."])
    }
}

@Suite struct HelpTextRendering {
    @Test func sectionsHaveTitlesBlankLinesAndHangingIndents() {
        let section = ManualSection(
            "EXIT STATUS",
            [
                .text("Codes."),
                .list([
                    .init("0", "Fine."),
                    .init("1", String(repeating: "long ", count: 20)),
                    .init("a-term-longer-than-twenty", "Below."),
                ]),
                .literal(["$ tool"]),
            ])
        let text = HelpText.render(section)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        // Text starts at column 24 (terms up to 20 characters, then the gap).
        let pad = String(repeating: " ", count: 21)
        #expect(lines[0...3] == ["EXIT STATUS", "  Codes.", "", "  0\(pad)Fine."])
        #expect(lines[4].hasPrefix("  1\(pad)long long") && lines[5].hasPrefix(String(repeating: " ", count: 24) + "long"))
        #expect(text.contains("\n  a-term-longer-than-twenty\n        Below.\n\n    $ tool"))
        #expect(lines.allSatisfy { $0.count <= HelpText.width })
        #expect(HelpText.render(overview: ["One."], sections: [section]).hasPrefix("One.\n\nEXIT STATUS\n"))
    }
}
