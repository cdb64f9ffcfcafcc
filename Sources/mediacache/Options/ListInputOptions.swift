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

    /// A word that is neither a URL nor a file stops the command here, before anything runs.
    func validate() throws {
        _ = try classified()
    }

    func classified() throws -> ListInputs {
        try ListInputs(arguments: inputs, inputFiles: inputFiles)
    }
}
