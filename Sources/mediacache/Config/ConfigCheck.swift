import ArgumentParser
import MediaCacheKit

/// Checks every setting of a config file against the subcommands and turns the settings
/// into the arguments each subcommand takes. A key no command takes, a flag given a value,
/// an option without one, or a value the command would refuse is an error naming file:line,
/// whichever command runs: a config file is valid or not.
struct ConfigCheck {
    /// Keys that name options every command has but that mean nothing in a config file.
    static let refused: [String: String] = [
        "config": "'config' cannot be set in a config file (use --config FILE on the command line)",
        "no-config": "'no-config' cannot be set in a config file (use --no-config on the command line)",
        "help": "'help' cannot be set in a config file",
        "version": "'version' cannot be set in a config file",
        "input-file": "'input-file' cannot be set in a config file: name lists on the command line (-i FILE)",
        "output": "'output' cannot be set in a config file: it names one download's file (-o FILE on the command line)",
        "out": "'out' cannot be set in a config file: it names one download's file (-o FILE on the command line)",
        "list": "'list' is an argument, not an option: give it on the command line",
        "url": "'url' is an argument, not an option: give it on the command line",
    ]

    let file: ConfigFile
    /// For each setting of the file, in order: the names of the commands that take it.
    let takers: [[String]]

    init(file: ConfigFile, commands: [ParsableCommand.Type]) throws(ConfigError) {
        self.file = file
        let tables = commands.map { CommandOptionTable($0) }
        var takers: [[String]] = []
        for setting in file.settings {
            func fail(_ reason: String) -> ConfigError {
                ConfigError(description: "\(file.path):\(setting.line): \(reason)")
            }
            if let reason = Self.refused[setting.key] { throw fail(reason) }
            let taking = zip(commands, tables).filter { $0.1.option(long: setting.key) != nil }
            guard let (_, firstTable) = taking.first, let option = firstTable.option(long: setting.key) else {
                if tables.contains(where: { $0.positionalNames.contains(setting.key) }) {
                    throw fail("'\(setting.key)' is an argument, not an option: give it on the command line")
                }
                if let short = tables.lazy.compactMap({ $0.option(short: setting.key) }).first {
                    throw fail("'\(setting.key)' is a short option; write the long one: '\(short.name) = ...'")
                }
                throw fail("unknown option '\(setting.key)': no mediacache command takes --\(setting.key)")
            }
            if option.takesValue && setting.value == nil {
                throw fail("'\(setting.key)' needs a value: '\(setting.key) = VALUE'")
            }
            if !option.takesValue && setting.value != nil {
                throw fail("'\(setting.key)' is a flag and takes no value: write '\(setting.key)' alone")
            }
            takers.append(taking.map { $0.1.commandName })
        }
        // Values: one parse per command of all the settings it takes; only when that
        // parse complains is each line tried alone, to name it.
        for (command, table) in zip(commands, tables) {
            let settings = zip(file.settings, takers).filter { $0.1.contains(table.commandName) }.map(\.0)
            if settings.isEmpty { continue }
            let probe = Probe(command: command, table: table)
            guard probe.complaint(settings.flatMap(Self.arguments(for:))) != nil else { continue }
            let bare = probe.complaint([])
            for setting in settings {
                if let problem = probe.complaint(Self.arguments(for: setting)), problem != bare {
                    throw ConfigError(description: "\(file.path):\(setting.line): \(Self.display(setting)): \(problem)")
                }
            }
        }
        self.takers = takers
    }

    /// The settings `command` takes, as arguments to put before the command line's own.
    func arguments(for command: String) -> [String] {
        zip(file.settings, takers).filter { $0.1.contains(command) }.flatMap { Self.arguments(for: $0.0) }
    }

    /// `--key=value` keeps a value that starts with a dash a value.
    static func arguments(for setting: ConfigSetting) -> [String] {
        setting.value.map { ["--\(setting.key)=\($0)"] } ?? ["--\(setting.key)"]
    }

    static func display(_ setting: ConfigSetting) -> String {
        display(key: setting.key, value: setting.value)
    }

    /// `key = value`, with what may be a secret hidden: a header's value, a proxy's password.
    static func display(key: String, value: String?) -> String {
        guard let value else { return key }
        switch key {
        case "header": return "\(key) = \(HeaderRedaction.preview(value))"
        case "proxy": return "\(key) = \(URLCredentials.masked(value))"
        default: return "\(key) = \(value)"
        }
    }

    /// Parses arguments with `command` alone, with a dummy value for each required
    /// positional and an explicit cache directory (so nothing reads the environment).
    struct Probe {
        let command: ParsableCommand.Type
        let table: CommandOptionTable

        /// The parse's complaint, or nil when the arguments parse and validate.
        func complaint(_ arguments: [String]) -> String? {
            var base = Array(repeating: "x", count: table.requiredPositionals)
            if table.option(long: "cache-dir") != nil, !arguments.contains(where: { $0.hasPrefix("--cache-dir") }) {
                base += ["--cache-dir", "/"]
            }
            do {
                _ = try command.parse(base + arguments)
                return nil
            } catch {
                return command.message(for: error)
            }
        }
    }
}
