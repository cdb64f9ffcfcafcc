import ArgumentParser

/// What a command line says about the config file, found before ArgumentParser sees it:
/// `--config FILE`, `--no-config`, `--help`, and every option given (for `mediacache config`).
struct CommandLineScan {
    var configPath: String?
    var noConfig = false
    var wantsHelp = false
    /// The options given, in order, with their values (nil for a flag).
    var given: [(option: CommandOptionTable.Option, value: String?)] = []

    /// A command line that names no config file and asks for no help.
    init() {}

    /// Walks the tokens up to `--`, skipping option values, so `-H --config` is a header.
    init(_ arguments: [String], table: CommandOptionTable) {
        var index = 0
        while index < arguments.count, arguments[index] != "--" {
            let token = arguments[index]
            index += 1
            guard let (option, inline) = table.option(token: token) else { continue }
            var value: String?
            if option.takesValue {
                if inline {
                    value = String(token[token.index(after: token.firstIndex(of: "=")!)...])
                } else if index < arguments.count {
                    value = arguments[index]
                    index += 1
                }
            }
            given.append((option, value))
            switch option.name {
            case "config": configPath = value
            case "no-config": noConfig = true
            case "help": wantsHelp = true
            default: break
            }
        }
    }
}

/// Puts the config file's settings into the command line.
enum ConfigArguments {
    /// The subcommand, then the config's settings that it takes, then the command line's
    /// own arguments: a single-valued option given on the command line wins (the last
    /// value counts), a repeatable one (`-H`) adds to the config's. Help and root-level
    /// requests (`--version`, completion scripts, the man page's dump) read no config.
    static func expand(_ arguments: [String], commands: [ParsableCommand.Type], environment: [String: String])
        throws(ConfigError) -> [String]
    {
        guard let name = arguments.first, let command = commands.first(where: { $0._commandName == name }) else {
            return arguments
        }
        let rest = Array(arguments.dropFirst())
        // The command's option table costs a few hundredths of a second (ArgumentParser
        // describes the command as JSON): read only when a token may be one of these.
        let mayMatter = rest.contains { $0.hasPrefix("--config") || $0 == "--no-config" || $0 == "--help" || $0 == "-h" }
        let scan = mayMatter ? CommandLineScan(rest, table: CommandOptionTable(command)) : CommandLineScan()
        if scan.wantsHelp { return arguments }
        guard let file = try ConfigLocation.load(explicit: scan.configPath, disabled: scan.noConfig, environment: environment)
        else { return arguments }
        let check = try ConfigCheck(file: file, commands: commands)
        return [name] + check.arguments(for: name) + rest
    }
}
