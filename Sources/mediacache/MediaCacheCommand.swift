import ArgumentParser
import MediaCacheKit

@main
struct MediaCacheCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mediacache",
        abstract: "Prefetch media into a verified, resumable local cache.",
        discussion: """
            Downloads every URL of a list in parallel HTTP Range fragments, survives any
            interruption (run the same command again to resume), verifies each file and
            files it into a permanent cache. See mediacache(1) for the list format.
            """,
        version: VersionText.full,
        subcommands: [Prefetch.self, Resume.self, Status.self, PathCommand.self]
    )
}
