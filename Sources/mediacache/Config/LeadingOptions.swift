import ArgumentParser

/// `mediacache --cache-dir X status` as `mediacache status --cache-dir X`: options given
/// before the command name move after it, as users of git, aria2 and curl type them.
/// Only options some command takes move; whether this command takes them is then
/// ArgumentParser's to say. `-V` is `--version`.
enum LeadingOptions {
    /// Requests of the tool itself, answered without a command.
    static let rootRequests: Set<String> = [
        "-h", "--help", "--version", "--generate-completion-script", "--experimental-dump-help",
    ]

    static func hoisted(_ arguments: [String], commands: [ParsableCommand.Type]) -> [String] {
        if arguments == ["-V"] { return ["--version"] }
        // Reading every command's options costs milliseconds: only when a leading option
        // is not one the tool answers itself (`--version`, `--help`).
        guard let first = arguments.first, first.hasPrefix("-"), !rootRequests.contains(first) else { return arguments }
        let tables = commands.map { CommandOptionTable($0) }
        var index = 0
        var leading: [String] = []
        while index < arguments.count {
            let token = arguments[index]
            guard token.hasPrefix("-"), token != "-", token != "--", !rootRequests.contains(token),
                let (option, inline) = tables.lazy.compactMap({ $0.option(token: token) }).first
            else { break }
            leading.append(token)
            index += 1
            if option.takesValue && !inline && index < arguments.count {
                leading.append(arguments[index])
                index += 1
            }
        }
        guard !leading.isEmpty, index < arguments.count,
            commands.contains(where: { $0._commandName == arguments[index] })
        else { return arguments }
        return [arguments[index]] + leading + arguments[(index + 1)...]
    }
}
