import Foundation
import Testing
import TestOrigin

extension EndToEnd {
    /// The config file: its settings reach the origin, the command line wins, `--no-config`
    /// and `--config FILE` choose the file, and a bad line is named as file:line (exit 2).
    /// Every run sets XDG_CONFIG_HOME or HOME to the test's own scratch directory.
    @Suite struct ConfigFile {
        let origin: TestOrigin
        let harness = Harness()
        let bytes = TestBytes.make(120_000, seed: 41)

        init() throws {
            origin = try TestOrigin()
            origin.serve("/ok.mp4", Resource(bytes, contentType: "video/mp4"))
            var failing = Faults()
            failing.statusSequence = Array(repeating: ScriptedStatus(500, body: "oops"), count: 50)
            origin.serve("/gone.mp4", Resource(TestBytes.make(1000, seed: 42), contentType: "video/mp4", faults: failing))
        }

        var xdg: String { harness.scratch.path + "/xdg" }
        var defaultFile: String { xdg + "/mediacache/config" }

        /// Writes the default config file under the test's XDG_CONFIG_HOME.
        @discardableResult
        func writeConfig(_ text: String) throws -> String {
            try FileManager.default.createDirectory(atPath: xdg + "/mediacache", withIntermediateDirectories: true)
            FileManager.default.createFile(atPath: defaultFile, contents: Data(text.utf8))
            return defaultFile
        }

        func run(_ arguments: [String], environment: [String: String]? = nil) throws -> RunResult {
            try MediaCacheProcess.run(arguments, environment: environment ?? ["XDG_CONFIG_HOME": xdg], timeout: 60)
        }

        func prefetch(_ paths: [String], _ extra: [String] = []) throws -> RunResult {
            let list = harness.scratch.write("list.txt", paths.map { origin.url($0) }.joined(separator: "\n"))
            return try run(["prefetch", list, "--cache-dir", harness.scratch.cache] + extra)
        }

        static let settings = """
            # defaults for every run
            header = X-Config: from-file
            retries = 0

            sort = name
            """

        @Test func settingsOfTheDefaultFileReachTheOrigin() throws {
            try writeConfig(Self.settings)
            let result = try prefetch(["/ok.mp4", "/gone.mp4"])
            #expect(result.status == 1, "\(result.stderr)")
            #expect(try harness.cachedBytes(origin.url("/ok.mp4")) == bytes)
            let okRequests = origin.requests(for: "/ok.mp4")
            #expect(!okRequests.isEmpty && okRequests.allSatisfy { $0.headers["x-config"] == "from-file" })
            // retries = 0: the failing file is asked for once, not six times.
            #expect(origin.requests(for: "/gone.mp4").count == 1)
        }

        @Test func theCommandLineWinsAndRepeatableOptionsAdd() throws {
            try writeConfig(Self.settings)
            let result = try prefetch(["/ok.mp4", "/gone.mp4"], ["--retries", "1", "-H", "X-Cli: yes"])
            #expect(result.status == 1, "\(result.stderr)")
            #expect(origin.requests(for: "/gone.mp4").count == 2, "--retries 1 from the command line counts")
            let first = try #require(origin.requests(for: "/ok.mp4").first)
            #expect(first.headers["x-config"] == "from-file" && first.headers["x-cli"] == "yes")
        }

        /// A flag the file turns on is turned off for one run by its --no- form, and the
        /// file may name that form too (`no-faststart`), undone by the flag itself.
        @Test func aFlagOfTheFileIsUndoneByItsNoForm() throws {
            try writeConfig("quiet\njson\n")
            let quiet = try prefetch(["/ok.mp4"])
            #expect(quiet.status == 0 && !quiet.stderr.contains("done     "), "\(quiet.stderr)")
            #expect(quiet.stdout.contains(#""event":"summary""#), "\(quiet.stdout)")
            let loud = try prefetch(["/ok.mp4"], ["--no-quiet", "--no-json"])
            #expect(loud.status == 0, "\(loud.stderr)")
            #expect(loud.stderr.contains("cached   \(origin.url("/ok.mp4"))"), "\(loud.stderr)")
            #expect(loud.stdout.isEmpty, "\(loud.stdout)")
            try writeConfig("no-faststart\n")
            let undone = try prefetch(["/ok.mp4"], ["--faststart"])
            #expect(undone.status == 0, "\(undone.stderr)")
        }

        @Test func noConfigIgnoresTheFile() throws {
            try writeConfig(Self.settings)
            let result = try prefetch(["/ok.mp4"], ["--no-config"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(origin.requests(for: "/ok.mp4").allSatisfy { $0.headers["x-config"] == nil })
        }

        @Test func configReadsAnotherFileAndAMissingOneIsAnError() throws {
            try writeConfig(Self.settings)
            let other = harness.scratch.write("other.conf", "header = X-Other: 1\n")
            let result = try prefetch(["/ok.mp4"], ["--config", other])
            #expect(result.status == 0, "\(result.stderr)")
            let first = try #require(origin.requests(for: "/ok.mp4").first)
            #expect(first.headers["x-other"] == "1" && first.headers["x-config"] == nil)

            let missing = try prefetch(["/gone.mp4"], ["--config", harness.scratch.path + "/nope.conf"])
            #expect(missing.status == 2)
            #expect(missing.stderr.contains("cannot read config file \(harness.scratch.path)/nope.conf: no such file"))
            #expect(origin.requests(for: "/gone.mp4").isEmpty)
            let both = try prefetch(["/gone.mp4"], ["--config", other, "--no-config"])
            #expect(both.status == 2 && both.stderr.contains("--config and --no-config cannot be used together"))
        }

        /// XDG_CONFIG_HOME first, then ~/.config; a missing default file is fine.
        @Test func theDefaultFileFollowsXDGConfigHomeThenHome() throws {
            let home = harness.scratch.path + "/home"
            try FileManager.default.createDirectory(atPath: home + "/.config/mediacache", withIntermediateDirectories: true)
            FileManager.default.createFile(atPath: home + "/.config/mediacache/config", contents: Data("jobs = 3\n".utf8))
            try writeConfig("jobs = 7\n")

            let viaHome = try run(["config"], environment: ["HOME": home, "XDG_CONFIG_HOME": ""])
            #expect(viaHome.status == 0)
            #expect(viaHome.stdout.contains("config file: \(home)/.config/mediacache/config\n"))
            #expect(viaHome.stdout.contains("jobs = 3  \(home)/.config/mediacache/config:1 (prefetch, resume, serve, pull)"))

            let viaXDG = try run(["config"], environment: ["HOME": home, "XDG_CONFIG_HOME": xdg])
            #expect(viaXDG.stdout.contains("jobs = 7  \(defaultFile):1 (prefetch, resume, serve, pull)"), "\(viaXDG.stdout)")

            let none = try run(["status", "--cache-dir", harness.scratch.cache], environment: ["XDG_CONFIG_HOME": home])
            #expect(none.status == 0, "no \(home)/mediacache/config is fine: \(none.stderr)")
        }

        static let badLines: [(String, String)] = [
            ("jobs = many", "config:3: jobs = many: The value 'many' is invalid for '--jobs <jobs>'"),
            ("jobs = 900", "config:3: jobs = 900: --jobs must be between 1 and 64"),
            ("header = no colon", "config:3: header = no …: -H expects 'Name: value'"),
            ("sort = random", "config:3: sort = random: The value 'random' is invalid for '--sort <sort>'"),
            ("speed = 1M", "config:3: unknown option 'speed': no mediacache command takes --speed"),
            ("insecure = yes", "config:3: 'insecure' is a flag and takes no value: write 'insecure' alone"),
            ("retries", "config:3: 'retries' needs a value: 'retries = VALUE'"),
            ("j = 4", "config:3: 'j' is a short option; write the long one: 'jobs = ...'"),
            ("--jobs = 4", "config:3: write the long option without dashes, like 'jobs = ...'"),
            ("help", "config:3: 'help' cannot be set in a config file"),
            ("config = other.conf", "config:3: 'config' cannot be set in a config file"),
            ("list = urls.txt", "config:3: 'list' is an argument, not an option: give it on the command line"),
            ("input-file = urls.txt", "config:3: 'input-file' cannot be set in a config file: name lists on the command line (-i FILE)"),
            ("jobs 4", "config:3: expected 'long-option = value' or a flag's name alone, got 'jobs 4'"),
        ]

        /// Whatever command runs, a bad line stops it before it starts (exit 2), named.
        @Test(arguments: badLines)
        func aBadLineIsNamedAsFileAndLine(line: String, message: String) throws {
            try writeConfig("# comment\nretries = 2\n\(line)\n")
            for command in [["ls", "--cache-dir", harness.scratch.cache], ["config"]] {
                let result = try run(command)
                #expect(result.status == 2, "\(command): \(result.stderr)")
                #expect(result.stderr.hasPrefix("mediacache: \(xdg)/mediacache/\(message)"), "\(result.stderr)")
            }
            let fetch = try prefetch(["/ok.mp4"])
            #expect(fetch.status == 2 && fetch.stdout.isEmpty)
            #expect(origin.requests(for: "/ok.mp4").isEmpty, "nothing is fetched under a bad config")
        }

        @Test func aLineThatIsNotUTF8IsNamed() throws {
            try FileManager.default.createDirectory(atPath: xdg + "/mediacache", withIntermediateDirectories: true)
            FileManager.default.createFile(
                atPath: defaultFile, contents: Data("jobs = 2\n".utf8 + [0x68, 0x65, 0x61, 0x64, 0xE9, 0x0A]))
            let result = try run(["ls", "--cache-dir", harness.scratch.cache])
            #expect(result.status == 2)
            #expect(result.stderr.contains("\(defaultFile):2: not UTF-8"))
        }

        @Test func helpWorksUnderABrokenConfig() throws {
            try writeConfig("speed = 1M\n")
            let help = try run(["prefetch", "--help"])
            #expect(help.status == 0 && help.stdout.contains("--no-config"))
            let configHelp = try run(["config", "--help"])
            #expect(configHelp.status == 0 && configHelp.stdout.contains("USAGE: mediacache config"), "\(configHelp)")
        }

        /// Header values (tokens) and proxy passwords are not shown.
        @Test func configShowsEachSettingWithItsSource() throws {
            try writeConfig(Self.settings + "\ninsecure\n")
            let all = try run(["config"])
            #expect(all.status == 0, "\(all.stderr)")
            #expect(
                all.stdout == """
                    config file: \(defaultFile)
                    header = X-Config …  \(defaultFile):2 (prefetch, resume, serve, url)
                    retries = 0          \(defaultFile):3 (prefetch, resume, serve)
                    sort = name          \(defaultFile):5 (ls)
                    insecure             \(defaultFile):6 (prefetch, resume, serve, push, pull)

                    """)

            let forRun = try run(["config", "prefetch", "--retries", "4", "-H", "X-Cli: yes", "list.txt"])
            #expect(forRun.status == 0, "\(forRun.stderr)")
            #expect(
                forRun.stdout == """
                    config file: \(defaultFile)
                    header = X-Config …  \(defaultFile):2
                    retries = 0          \(defaultFile):3, overridden by the command line
                    insecure             \(defaultFile):6
                    retries = 4          command line
                    header = X-Cli …     command line

                    """)

            try writeConfig("header = Authorization: Bearer s3cret\nproxy = http://user:pw0rd@proxy:3128\n")
            let secrets = try run(["config"])
            #expect(secrets.status == 0 && !secrets.stdout.contains("s3cret") && !secrets.stdout.contains("pw0rd"), "\(secrets.stdout)")

            let other = harness.scratch.write("other.conf", "sort = size\n")
            let forLs = try run(["config", "ls", "--config", other])
            #expect(forLs.stdout == "config file: \(other)\nsort = size  \(other):1\n", "\(forLs.stdout)")

            let disabled = try run(["config", "--no-config"])
            #expect(disabled.stdout == "config file: none (--no-config)\n")
            let absent = try run(["config"], environment: ["XDG_CONFIG_HOME": harness.scratch.path + "/empty"])
            #expect(absent.stdout == "config file: none (\(harness.scratch.path)/empty/mediacache/config does not exist)\n")
        }
    }
}
