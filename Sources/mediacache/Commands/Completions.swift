import ArgumentParser

/// `mediacache completions SHELL`: the completion script, and where the shell looks for it.
struct Completions: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "completions",
        abstract: "Print the completion script for bash, zsh or fish.",
        discussion: """
            Save it where the shell looks: bash, \
            ~/.local/share/bash-completion/completions/mediacache; zsh, _mediacache in a \
            folder of $fpath (e.g. ~/.zfunc, with fpath=(~/.zfunc $fpath) before compinit in \
            ~/.zshrc); fish, ~/.config/fish/completions/mediacache.fish. For example: \
            mediacache completions bash > ~/.local/share/bash-completion/completions/mediacache.
            """)

    @Argument(help: ArgumentHelp("bash, zsh or fish.", valueName: "shell"))
    var shell: String

    func validate() throws {
        guard CompletionShell(rawValue: shell) != nil else {
            throw ValidationError("no completion script for '\(shell)': choose bash, zsh or fish")
        }
    }

    func run() throws {
        let script = MediaCacheCommand.completionScript(for: CompletionShell(rawValue: shell)!)
        Terminal.out(script.hasSuffix("\n") ? String(script.dropLast()) : script)
    }
}
