import ArgumentParser

/// `--config FILE` and `--no-config`. The file is read before the command line is parsed
/// (`ConfigArguments`); these declarations make the options known, documented and completed.
struct ConfigOptions: ParsableArguments {
    @Option(
        name: .customLong("config"),
        help: ArgumentHelp(
            "Read settings from this file instead of ${XDG_CONFIG_HOME:-~/.config}/mediacache/config.",
            valueName: "file"),
        completion: .file())
    var path: String?

    @Flag(name: .customLong("no-config"), help: "Read no config file.")
    var noConfig = false
}
