import ArgumentParser
import Foundation

/// The options one subcommand takes, read from swift-argument-parser's own description of
/// the command (`_dumpHelp()`, the JSON behind `--experimental-dump-help` and the man
/// page), so options added later need no entry here.
struct CommandOptionTable: Sendable {
    struct Option: Equatable, Sendable {
        var longNames: [String]
        var shortNames: [String]
        /// False for a flag.
        var takesValue: Bool
        var isRepeating: Bool
        /// As `--help` shows it ("4", "64G"); nil for a flag or an option without one.
        var defaultValue: String? = nil
        var name: String { longNames.first ?? shortNames.first ?? "" }
    }

    let commandName: String
    let options: [Option]
    /// How many positional arguments a bare parse needs (one each, a dummy value).
    let requiredPositionals: Int
    /// The value names of the positional arguments (`list`, `url`), which a config file cannot set.
    let positionalNames: [String]

    init(_ type: ParsableCommand.Type) {
        commandName = type._commandName
        let info = try? JSONDecoder().decode(ToolDescription.self, from: Data(type._dumpHelp().utf8))
        let arguments = info?.command.arguments ?? []
        options = arguments.compactMap { argument in
            guard argument.kind != "positional", let names = argument.names else { return nil }
            return Option(
                longNames: names.filter { $0.kind == "long" }.map(\.name),
                shortNames: names.filter { $0.kind == "short" }.map(\.name),
                takesValue: argument.kind == "option", isRepeating: argument.isRepeating ?? false,
                defaultValue: argument.kind == "option" ? argument.defaultValue : nil)
        }
        requiredPositionals = arguments.filter { $0.kind == "positional" && $0.isOptional == false }.count
        positionalNames = arguments.filter { $0.kind == "positional" }.compactMap(\.valueName)
    }

    func option(long name: String) -> Option? { options.first { $0.longNames.contains(name) } }
    func option(short name: String) -> Option? { options.first { $0.shortNames.contains(name) } }

    /// The option a command-line token names (`--jobs`, `--jobs=8`, `-j`), and whether
    /// its value is inside the token.
    func option(token: String) -> (option: Option, inlineValue: Bool)? {
        if token.hasPrefix("--") {
            let body = token.dropFirst(2)
            let name = body.prefix { $0 != "=" }
            return option(long: String(name)).map { ($0, name.count < body.count) }
        }
        if token.hasPrefix("-"), token.count == 2 { return option(short: String(token.dropFirst())).map { ($0, false) } }
        return nil
    }

    /// The subset of ArgumentParser's ToolInfoV0 JSON read here.
    private struct ToolDescription: Decodable {
        struct Command: Decodable { var arguments: [Argument]? }
        struct Argument: Decodable {
            struct Name: Decodable {
                var kind: String
                var name: String
            }
            var kind: String
            var names: [Name]?
            var isOptional: Bool?
            var isRepeating: Bool?
            var valueName: String?
            var defaultValue: String?
        }
        var command: Command
    }
}
