import ArgumentParser

/// What `prefetch` and `serve` read: URLs and list files as arguments, lists after `-i`
/// (aria2's --input-file), `-` for standard input.
struct ListInputOptions: ParsableArguments {
    @Argument(
        help: ArgumentHelp("URLs to fetch, list files, or - for standard input.", valueName: "url-or-list"),
        completion: .file())
    var inputs: [String] = []

    @Option(
        name: [.customShort("i"), .customLong("input-file")],
        help: ArgumentHelp("A list file to read (or - for standard input), as aria2's -i; may be repeated.", valueName: "list"),
        completion: .file())
    var inputFiles: [String] = []

    /// Whether any URL or list was given; what each word is, `classified` says when the
    /// command runs. Not in `validate`: ArgumentParser validates before it reports an
    /// unknown option, and `--cache-dri DIR` would be "DIR is neither a URL nor a list
    /// file" instead of a suggestion of `--cache-dir`.
    var isEmpty: Bool { inputs.isEmpty && inputFiles.isEmpty }

    /// A word that is neither a URL nor a file is a usage error, before anything runs.
    func classified() throws -> ListInputs {
        try ListInputs(arguments: inputs, inputFiles: inputFiles)
    }
}
