import ArgumentParser
import Foundation
import MediaCacheKit

/// `--cache-dir`, shared by every subcommand.
struct CacheOptions: ParsableArguments {
    @Option(
        name: .customLong("cache-dir"),
        help: ArgumentHelp(
            "The cache directory (default: $MEDIACACHE_DIR, else ${XDG_CACHE_HOME:-~/.cache}/mediacache).",
            valueName: "dir"),
        completion: .directory)
    var cacheDir: String?

    var directory: CacheDirectory {
        CacheDirectory.resolve(explicit: cacheDir, environment: ProcessInfo.processInfo.environment)
    }
}
