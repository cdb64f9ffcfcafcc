import Testing

@testable import mediacache

/// Options before a command's name move after it, as users of git and curl type them;
/// before or after a group's name (`tier`), they move after its subcommand's.
@Suite struct LeadingOptionsHoisting {
    let commands = MediaCacheCommand.configuration.subcommands

    func hoisted(_ arguments: [String]) -> [String] { LeadingOptions.hoisted(arguments, commands: commands) }

    @Test func optionsBeforeACommandMoveAfterIt() {
        #expect(hoisted(["--cache-dir", "D", "status"]) == ["status", "--cache-dir", "D"])
        #expect(hoisted(["--cache-dir=D", "-q", "prefetch", "u"]) == ["prefetch", "--cache-dir=D", "-q", "u"])
        #expect(hoisted(["status", "--cache-dir", "D"]) == ["status", "--cache-dir", "D"])
        #expect(hoisted(["--frobnicate", "status"]) == ["--frobnicate", "status"])
        #expect(hoisted(["--version"]) == ["--version"])
    }

    @Test func optionsBeforeOrAfterAGroupMoveAfterItsSubcommand() {
        #expect(hoisted(["--cache-dir", "D", "tier", "ls"]) == ["tier", "ls", "--cache-dir", "D"])
        #expect(hoisted(["--no-config", "tier", "ls", "--json"]) == ["tier", "ls", "--no-config", "--json"])
        #expect(hoisted(["tier", "--cache-dir", "D", "ls"]) == ["tier", "ls", "--cache-dir", "D"])
        #expect(hoisted(["--cache-dir", "D", "tier", "--tier", "s3://b/p", "ls"])
            == ["tier", "ls", "--cache-dir", "D", "--tier", "s3://b/p"])
        #expect(hoisted(["tier", "ls", "--cache-dir", "D"]) == ["tier", "ls", "--cache-dir", "D"])
        #expect(hoisted(["tier", "--help"]) == ["tier", "--help"])
    }

    /// `help` reads no option: options before it (a shell alias's `--cache-dir`) go.
    @Test func optionsBeforeHelpAreDropped() {
        #expect(hoisted(["--cache-dir", "D", "help", "titles"]) == ["help", "titles"])
        #expect(hoisted(["--cache-dir", "D", "-q", "help", "prefetch"]) == ["help", "prefetch"])
        #expect(hoisted(["help", "titles"]) == ["help", "titles"])
    }
}
