import ArgumentParser
import Foundation
import MediaCacheKit

@main
struct MediaCacheCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mediacache",
        abstract: "Prefetch media into a verified, resumable local cache.",
        discussion: ManualText.discussion,
        version: VersionText.full,
        subcommands: [
            Prefetch.self, Resume.self, Status.self, PathCommand.self, Info.self, List.self, Remove.self, CollectGarbage.self,
            Stats.self, Verify.self, Export.self, Import.self, BundleInfo.self,
        ]
    )

    /// Like ArgumentParser's, but usage errors exit 2 (the documented code) instead of 64.
    static func main() {
        // A closed reader of stdout then shows as EPIPE (Terminal), so a run can save its
        // progress instead of dying silently.
        signal(SIGPIPE, SIG_IGN)
        MemoryTuning.limitMallocArenas()
        IndexNotices.observe { Terminal.err("mediacache: warning: \($0)") }
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            if exitCode(for: error) == .validationFailure {
                Terminal.err(fullMessage(for: error))
                Foundation.exit(ExitStatus.usage.rawValue)
            }
            exit(withError: error)
        }
    }
}
