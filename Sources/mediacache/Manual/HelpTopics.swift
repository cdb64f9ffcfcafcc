/// `mediacache --help` fits one screen: what the tool is, how to start, the options
/// used most and where the rest is. The long text is `mediacache help TOPIC`, one
/// section of mediacache(1) each.
enum HelpTopics {
    struct Topic {
        let name: String
        let aliases: [String]
        let section: ManualSection
    }

    static let topics = [
        Topic(name: "list-format", aliases: ["list", "lists"], section: ManualText.listFormat),
        Topic(name: "titles", aliases: ["hls", "streaming"], section: ManualText.streamingTitles),
        Topic(name: "cache-layout", aliases: ["cache", "layout"], section: ManualText.cacheLayout),
        Topic(name: "json", aliases: ["json-output"], section: ManualText.jsonOutput),
        Topic(name: "environment", aliases: ["env"], section: ManualText.environment),
        Topic(name: "files", aliases: [], section: ManualText.files),
        Topic(name: "exit-status", aliases: ["exit", "exit-codes"], section: ManualText.exitStatus),
        Topic(name: "examples", aliases: [], section: ManualText.examples),
    ]

    /// The text of the topic `name` (or one of its aliases), or nil.
    static func text(for name: String) -> String? {
        let wanted = name.lowercased()
        guard let topic = topics.first(where: { $0.name == wanted || $0.aliases.contains(wanted) }) else { return nil }
        return HelpText.render(topic.section)
    }

    /// The root command's discussion, shown by `mediacache`, `--help` and `help`.
    static let shortHelp = HelpText.render(
        overview: [
            """
            Survives any interruption, plays files while they download, and ships the \
            cache to other machines.
            """
        ],
        sections: [
            ManualSection(
                "START",
                [
                    .literal([
                        "mediacache prefetch URL|LIST...      download (again: resume)",
                        "mediacache path URL                  where the cached file is",
                        "mediacache serve &                   then play while it downloads:",
                        "mpv \"$(mediacache url URL)\"",
                    ])
                ]),
            ManualSection(
                "COMMON OPTIONS",
                [
                    .list([
                        .init("-j N, -x N", "Files at once (4), connections per file (8; title: 16)."),
                        .init("-H 'Name: value'", "A request header (repeatable)."),
                        .init("-q, --json", "Only errors and the summary; JSON events on stdout."),
                        .init("--cache-dir DIR", "The cache (any command, before or after its name)."),
                    ])
                ]),
            ManualSection(
                "MORE HELP",
                [
                    .text(
                        """
                        mediacache help COMMAND, or TOPIC: \
                        \(topics.map(\.name).joined(separator: ", ")), config; man mediacache.
                        """)
                ]),
        ])
}
