import ArgumentParser

/// `mediacache --cache-dir X status` as `mediacache status --cache-dir X`: options given
/// before the command name move after it, as users of git, aria2 and curl type them.
/// Before a command group's subcommand (`tier ls`), they move after the subcommand, and
/// so do options between the group's name and the subcommand's (`tier --cache-dir X ls`):
/// a group takes none of its own. Only options some command takes move; whether this
/// command takes them is then ArgumentParser's to say. `-V` is `--version`.
enum LeadingOptions {
    /// Requests of the tool itself, answered without a command.
    static let rootRequests: Set<String> = [
        "-h", "--help", "--version", "--generate-completion-script", "--experimental-dump-help",
    ]

    static func hoisted(_ arguments: [String], commands: [ParsableCommand.Type]) -> [String] {
        if arguments == ["-V"] { return ["--version"] }
        guard let first = arguments.first, !rootRequests.contains(first) else { return arguments }
        // Reading every command's options costs milliseconds: only when an option comes
        // before a command's name, or after a group's.
        let group = commands.first { $0._commandName == first && !$0.configuration.subcommands.isEmpty }
        guard first.hasPrefix("-") || (group != nil && arguments.count > 1 && arguments[1].hasPrefix("-")) else {
            return arguments
        }
        let tables = commands.map { CommandOptionTable($0) }
        var index = 0
        let leading = options(in: arguments, from: &index, tables: tables)
        // `help` reads no option: `--cache-dir X help titles` is `help titles`.
        if index < arguments.count, arguments[index] == "help", !leading.isEmpty { return Array(arguments[index...]) }
        guard index < arguments.count, let command = commands.first(where: { $0._commandName == arguments[index] })
        else { return arguments }
        index += 1
        let subcommands = command.configuration.subcommands
        guard !subcommands.isEmpty else {
            return leading.isEmpty ? arguments : [command._commandName] + leading + arguments[index...]
        }
        let between = options(in: arguments, from: &index, tables: tables)
        guard index < arguments.count, subcommands.contains(where: { $0._commandName == arguments[index] }),
            !(leading + between).isEmpty
        else { return arguments }
        return [command._commandName, arguments[index]] + leading + between + arguments[(index + 1)...]
    }

    /// The options some command takes, with their values, from `index` on; `index` ends
    /// at the first word that is none.
    private static func options(in arguments: [String], from index: inout Int, tables: [CommandOptionTable]) -> [String] {
        var found: [String] = []
        while index < arguments.count {
            let token = arguments[index]
            guard token.hasPrefix("-"), token != "-", token != "--", !rootRequests.contains(token),
                let (option, inline) = tables.lazy.compactMap({ $0.option(token: token) }).first
            else { break }
            found.append(token)
            index += 1
            if option.takesValue && !inline && index < arguments.count {
                found.append(arguments[index])
                index += 1
            }
        }
        return found
    }
}
