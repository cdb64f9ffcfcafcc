import Testing

@testable import mediacache

/// Habits from aria2c, curl and wget are answered with what to type instead, before
/// ArgumentParser reports the option's value as a list that does not exist.
@Suite("Other tools' options and mistyped commands")
struct ForeignOptionsTests {
    @Test(arguments: [
        (["prefetch", "-O", "https://a.example/x"], "-O is not a mediacache option; mediacache names a file by the origin's name"),
        (["prefetch", "--output-document", "o", "https://a.example/x"], "--output-document is not a mediacache option; use -o FILE"),
        (["prefetch", "-s", "4", "https://a.example/x"], "-s is not a mediacache option; aria2's -s (split) is -x here"),
        (["prefetch", "--max-concurrent-downloads=3", "l.txt"], "--max-concurrent-downloads is not a mediacache option; use -j N"),
        (["prefetch", "-c", "https://a.example/x"], "-c is not a mediacache option; mediacache resumes by itself"),
        (["prefetch", "--checksum", "sha-256=ab", "u"], "--checksum is not a mediacache option; give checksum=sha-256=HEX"),
    ])
    func anotherToolsOptionIsNamedWithOurs(arguments: [String], said: String) {
        #expect(ForeignOptions.problem(in: arguments)?.hasPrefix(said) == true, "\(String(describing: ForeignOptions.problem(in: arguments)))")
    }

    @Test func ourOwnOptionsAndWordsAfterTheirEndPass() {
        #expect(ForeignOptions.problem(in: ["prefetch", "-x", "4", "-j", "2", "-d", "out", "-H", "A: b", "-q", "u"]) == nil)
        #expect(ForeignOptions.problem(in: ["prefetch", "--", "-o"]) == nil)
    }

    @Test func aURLOrAMistypedCommandAsTheFirstWordIsSaidSo() {
        let commands = MediaCacheCommand.configuration.subcommands
        #expect(
            CommandGuess.problem(first: "https://a.example/x.mp4", commands: commands)
                == "'https://a.example/x.mp4' is not a command; to download it: mediacache prefetch https://a.example/x.mp4")
        #expect(
            CommandGuess.problem(first: "prefech", commands: commands)
                == "'prefech' is not a command; did you mean 'prefetch'? (mediacache --help lists them)")
        #expect(CommandGuess.problem(first: "verfy", commands: commands)?.contains("did you mean 'verify'?") == true)
        #expect(CommandGuess.problem(first: "prefetch", commands: commands) == nil)
        #expect(CommandGuess.problem(first: "help", commands: commands) == nil)
        #expect(CommandGuess.problem(first: "zzzzzzzz", commands: commands) == nil)
    }
}
