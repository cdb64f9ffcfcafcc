import Foundation
import Testing

@testable import mediacache

@Suite struct ConfigFileParsing {
    func parse(_ text: String) throws(ConfigError) -> [ConfigSetting] {
        try ConfigFile.parse(Array(text.utf8), path: "conf").settings
    }

    @Test func settingsFlagsCommentsAndBlankLines() throws {
        let text = "\u{FEFF}# comment\r\n  jobs   =  8 \r\n\n   # indented comment\ninsecure\nheader = X-Tag: #1 = a\n"
        #expect(
            try parse(text) == [
                ConfigSetting(key: "jobs", value: "8", line: 2),
                ConfigSetting(key: "insecure", value: nil, line: 5),
                ConfigSetting(key: "header", value: "X-Tag: #1 = a", line: 6),
            ])
    }

    @Test(arguments: [
        ("jobs =", "conf:2: 'jobs =' has no value"),
        ("-x = 3", "conf:2: write the long option without dashes, like 'x = ...'"),
        ("--jobs=3", "conf:2: write the long option without dashes, like 'jobs = ...'"),
        ("= 3", "conf:2: expected 'long-option = value' or a flag's name alone, got '= 3'"),
        ("max size = 3", "conf:2: expected 'long-option = value' or a flag's name alone, got 'max size = 3'"),
    ])
    func badLinesAreNamed(line: String, message: String) {
        #expect(throws: ConfigError(description: message)) { try parse("# first\n\(line)\n") }
    }

    @Test func aLineThatIsNotUTF8IsNamedAndACommentIsNoExcuse() {
        let bytes = Array("jobs = 2\n# caf".utf8) + [0xE9] + [0x0A]
        #expect(throws: ConfigError(description: "conf:2: not UTF-8")) { try ConfigFile.parse(bytes, path: "conf") }
    }

    @Test func theDefaultPathFollowsXDGThenHome() {
        #expect(ConfigLocation.defaultPath(environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"]) == "/x/mediacache/config")
        #expect(ConfigLocation.defaultPath(environment: ["XDG_CONFIG_HOME": "", "HOME": "/h"]) == "/h/.config/mediacache/config")
        #expect(ConfigLocation.defaultPath(environment: ["HOME": ""]) == nil)
    }
}

@Suite struct ConfigArgumentsTests {
    static let commands = MediaCacheCommand.configurableCommands
    let file = ConfigFile(
        path: "conf",
        settings: [
            ConfigSetting(key: "jobs", value: "8", line: 1),
            ConfigSetting(key: "sort", value: "size", line: 2),
            ConfigSetting(key: "insecure", value: nil, line: 3),
            ConfigSetting(key: "header", value: "-X: leading dash", line: 4),
        ])

    @Test func theTableComesFromTheCommandDefinition() throws {
        let table = CommandOptionTable(Prefetch.self)
        #expect(table.commandName == "prefetch" && table.requiredPositionals == 0)
        #expect(table.positionalNames == ["url-or-list"])
        let jobs = try #require(table.option(long: "jobs"))
        #expect(jobs.takesValue && !jobs.isRepeating && jobs.shortNames == ["j"])
        #expect(table.option(long: "header")?.isRepeating == true)
        #expect(table.option(long: "insecure")?.takesValue == false)
        #expect(table.option(long: "config")?.takesValue == true, "every command takes --config")
    }

    @Test func eachCommandGetsTheSettingsItTakes() throws {
        let check = try ConfigCheck(file: file, commands: Self.commands)
        #expect(
            check.takers == [
                ["prefetch", "resume", "serve", "pull"], ["ls"], ["prefetch", "resume", "serve", "push", "pull"],
                ["prefetch", "resume", "serve", "url"],
            ])
        #expect(check.arguments(for: "prefetch") == ["--jobs=8", "--insecure", "--header=-X: leading dash"])
        #expect(check.arguments(for: "ls") == ["--sort=size"])
        #expect(check.arguments(for: "path").isEmpty)
    }

    @Test func aValueIsCheckedByEveryCommandThatTakesIt() {
        let bad = ConfigFile(path: "conf", settings: [ConfigSetting(key: "retries", value: "101", line: 7)])
        #expect(throws: ConfigError(description: "conf:7: retries = 101: --retries must be between 0 and 100")) {
            try ConfigCheck(file: bad, commands: Self.commands)
        }
    }

    @Test func theScanSkipsOptionValuesAndStopsAtDoubleDash() {
        let table = CommandOptionTable(Prefetch.self)
        let header = CommandLineScan(["-H", "--config", "list"], table: table)
        #expect(header.configPath == nil && header.given.map(\.value) == ["--config"])
        let inline = CommandLineScan(["--config=a.conf", "-j", "2"], table: table)
        #expect(inline.configPath == "a.conf" && inline.given.map(\.option.name) == ["config", "jobs"])
        let separate = CommandLineScan(["--no-config", "--", "--help"], table: table)
        #expect(separate.noConfig && !separate.wantsHelp)
        #expect(CommandLineScan(["list", "-h"], table: table).wantsHelp)
    }

    @Test func expandPutsTheFileBetweenTheCommandAndItsArguments() throws {
        let path = "/tmp/mediacache-config-\(getpid()).conf"
        FileManager.default.createFile(atPath: path, contents: Data("jobs = 8\nsort = name\n".utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let expand = { (arguments: [String]) throws(ConfigError) in
            try ConfigArguments.expand(arguments, commands: Self.commands, environment: ["XDG_CONFIG_HOME": "/nonexistent"])
        }
        #expect(try expand(["prefetch", "--config", path, "-j", "2", "l"]) == ["prefetch", "--jobs=8", "--config", path, "-j", "2", "l"])
        #expect(try expand(["ls", "--config", path]) == ["ls", "--sort=name", "--config", path])
        // Help, root-level requests and `config` itself are left alone.
        for untouched in [["prefetch", "--config", path, "--help"], ["help", "prefetch"], ["--version"], ["config", "--config", path]] {
            #expect(try expand(untouched) == untouched)
        }
        #expect(try expand(["ls"]) == ["ls"], "a missing default file is fine")
    }
}
