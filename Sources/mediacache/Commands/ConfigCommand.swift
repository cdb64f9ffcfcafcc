import ArgumentParser
import Foundation

/// `mediacache config [COMMAND ARGS...]`: which config file is read, and what it sets.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Show the config file and what it sets.",
        discussion: """
            Without a command: the path of the config file and each of its settings with its \
            file:line and the commands that take it. With a command and its arguments (not \
            run): the settings that run would use, from the config file and from the command \
            line, each with where it came from; a config value the command line overrides is \
            marked so. Values are shown as written, but for secrets: a header's value is cut \
            short and a proxy's password shown as ***.

            """ + ManualText.configFile)

    @OptionGroup var config: ConfigOptions

    @Argument(
        parsing: .captureForPassthrough,
        help: ArgumentHelp("A command and its arguments, e.g. prefetch -j 2 list.txt.", valueName: "command"))
    var command: [String] = []

    func run() throws {
        let commands = MediaCacheCommand.configurableCommands
        var path = config.path
        var disabled = config.noConfig
        var target: (name: String, scan: CommandLineScan)?
        if let name = command.first {
            // The passthrough argument takes `--help` too when it comes first.
            if ["-h", "--help"].contains(name) { throw CleanExit.helpRequest(self) }
            guard let type = commands.first(where: { $0._commandName == name }) else {
                throw ValidationError("'\(name)' is not a mediacache command that reads the config file")
            }
            let scan = CommandLineScan(Array(command.dropFirst()), table: CommandOptionTable(type))
            // The command's own --config/--no-config are the ones its run would use.
            if scan.configPath != nil || scan.noConfig {
                path = scan.configPath
                disabled = scan.noConfig
            }
            target = (name, scan)
        }
        let environment = ProcessInfo.processInfo.environment
        let file = try ConfigLocation.load(explicit: path, disabled: disabled, environment: environment)
        let check = try file.map { file throws(ConfigError) in try ConfigCheck(file: file, commands: commands) }
        Terminal.out("config file: " + Self.describe(file: file, disabled: disabled, environment: environment))

        var rows: [(setting: String, source: String)] = []
        if let check {
            for (setting, takers) in zip(check.file.settings, check.takers) {
                if let target, !takers.contains(target.name) { continue }
                var source = "\(check.file.path):\(setting.line)"
                if let target {
                    let overridden = target.scan.given.contains {
                        $0.option.longNames.contains(setting.key) && !$0.option.isRepeating
                    }
                    if overridden { source += ", overridden by the command line" }
                } else {
                    source += " (" + takers.joined(separator: ", ") + ")"
                }
                rows.append((ConfigCheck.display(setting), source))
            }
        }
        for (option, value) in target?.scan.given ?? [] where !["config", "no-config"].contains(option.name) {
            rows.append((ConfigCheck.display(key: option.name, value: value), "command line"))
        }
        let width = min(rows.map(\.setting.count).max() ?? 0, 40)
        for row in rows {
            let padding = String(repeating: " ", count: max(width - row.setting.count, 0))
            Terminal.out("\(row.setting)\(padding)  \(row.source)")
        }
    }

    static func describe(file: ConfigFile?, disabled: Bool, environment: [String: String]) -> String {
        if let file { return file.path }
        if disabled { return "none (--no-config)" }
        guard let path = ConfigLocation.defaultPath(environment: environment) else {
            return "none (neither XDG_CONFIG_HOME nor HOME is set)"
        }
        return "none (\(path) does not exist)"
    }
}
