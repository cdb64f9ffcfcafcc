import ArgumentParser
import Foundation
import MediaCacheKit

@main
struct MediaCacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mediacache",
        abstract: "Prefetch media into a verified, resumable local cache.",
        discussion: HelpTopics.shortHelp,
        // The full text (`VersionText.full`) is printed by `main`, only when asked for.
        version: MediaCacheVersion.string,
        subcommands: [
            Prefetch.self, Resume.self, Status.self, PathCommand.self, Info.self, List.self, Remove.self, CollectGarbage.self,
            Stats.self, Verify.self, Export.self, Import.self, BundleInfo.self, Serve.self, LocalURLCommand.self,
            Push.self, Pull.self, TierCommand.self, ConfigCommand.self, Completions.self,
        ]
    )

    /// The subcommands whose options the config file can set (all but `config` itself).
    static var configurableCommands: [ParsableCommand.Type] {
        configuration.subcommands.filter { $0 != ConfigCommand.self && $0 != Completions.self }
    }

    /// Like ArgumentParser's, but usage errors exit 2 (the documented code) instead of 64.
    /// Async for `serve`; the other commands run as they are, on the main thread.
    static func main() async {
        // First, before libdispatch, SQLite or curl take any descriptor.
        let descriptors = FileDescriptorLimit.raiseSoftLimit()
        CryptoLibrary.keepUntilExit()
        // A closed reader of stdout then shows as EPIPE (Terminal), so a run can save its
        // progress instead of dying silently.
        signal(SIGPIPE, SIG_IGN)
        MemoryTuning.limitMallocArenas()
        IndexNotices.observe { Terminal.err("mediacache: warning: \($0)") }
        let arguments = Array(CommandLine.arguments.dropFirst())
        let hoisted = LeadingOptions.hoisted(arguments, commands: configuration.subcommands)
        // A help topic (`help titles`), which no command parses.
        let given = hoisted.first == "help" ? hoisted : arguments
        if given.count == 2, given[0] == "help" {
            if let topic = HelpTopics.text(for: given[1]) {
                Terminal.out(topic)
                return
            }
            let commands = configuration.subcommands.map { $0._commandName } + ["help"]
            if !commands.contains(given[1]) {
                Terminal.err(
                    "mediacache: no command or help topic '\(Printable.name(given[1], limit: 40))'; topics: "
                        + HelpTopics.topics.map(\.name).joined(separator: ", ") + "; commands: `mediacache --help`")
                Foundation.exit(ExitStatus.usage.rawValue)
            }
        }
        var problem = ForeignOptions.problem(in: given)
        if problem == nil, let first = hoisted.first {
            problem = CommandGuess.problem(first: first, commands: configuration.subcommands)
        }
        if let problem {
            Terminal.err("mediacache: \(problem)")
            Foundation.exit(ExitStatus.usage.rawValue)
        }
        // Known once parsed: a usage error found when it runs names its usage.
        var parsed: ParsableCommand.Type?
        do {
            let arguments = try ConfigArguments.expand(
                hoisted, commands: configurableCommands,
                environment: ProcessInfo.processInfo.environment)
            // Not through ArgumentParser's version flag: asking libcurl for its version
            // starts OpenLDAP (its SASL plugins, a Berkeley DB library), which no other
            // run needs, and `configuration` is read by every run.
            if arguments == ["--version"] {
                Terminal.out(VersionText.full)
                return
            }
            var command = try parseAsRoot(arguments)
            parsed = type(of: command)
            // Before any dispatch source exists: libdispatch traps when it has too few.
            if descriptors < FileDescriptorLimit.minimumForARun {
                SummaryPrinter.printRunFailure(
                    "only \(descriptors) file descriptors are allowed (RLIMIT_NOFILE, and the hard limit is no "
                        + "higher); mediacache needs at least \(FileDescriptorLimit.minimumForARun). Raise the "
                        + "limit, e.g. `ulimit -n 1024` in the shell (LimitNOFILE= for a systemd service)",
                    code: "file-limit", json: (command as? DownloadCommand)?.download.json ?? false)
                Foundation.exit(ExitStatus.cacheError.rawValue)
            }
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            if let problem = error as? ConfigError {
                Terminal.err("mediacache: \(problem)")
                Foundation.exit(ExitStatus.usage.rawValue)
            }
            // Whichever command met it: the cache could not be used (exit 3, as documented).
            if let problem = error as? CacheError {
                Terminal.err("mediacache: \(problem)")
                Foundation.exit(ExitStatus.cacheError.rawValue)
            }
            if let ambiguous = error as? AmbiguousName {
                Terminal.err("mediacache: \(ambiguous)")
                Foundation.exit(ExitStatus.someFailed.rawValue)
            }
            if let parsed, error is ValidationError {
                Terminal.err(
                    "Error: \(error)\nUsage: \(usageString(for: parsed))\n"
                        + "  See 'mediacache \(parsed._commandName) --help' for more information.")
                Foundation.exit(ExitStatus.usage.rawValue)
            }
            if exitCode(for: error) == .validationFailure {
                Terminal.err(fullMessage(for: error))
                Foundation.exit(ExitStatus.usage.rawValue)
            }
            exit(withError: error)
        }
    }
}
