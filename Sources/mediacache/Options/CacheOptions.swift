import ArgumentParser
import Foundation
import MediaCacheKit

/// `--cache-dir` (and `--config`/`--no-config`), shared by every subcommand.
struct CacheOptions: ParsableArguments {
    @Option(
        name: .customLong("cache-dir"),
        help: ArgumentHelp(
            "The cache directory (default: $MEDIACACHE_DIR, else ${XDG_CACHE_HOME:-~/.cache}/mediacache).",
            valueName: "dir"),
        completion: .directory)
    var cacheDir: String?

    // Here because every command that reads the config file has CacheOptions.
    @OptionGroup var config: ConfigOptions

    private var location: Result<CacheDirectory, CacheLocation.Problem> {
        CacheLocation.resolve(explicit: cacheDir, environment: ProcessInfo.processInfo.environment)
    }

    /// No usable default (HOME empty or unset) is an input error, before any command runs.
    func validate() throws {
        if case .failure(let problem) = location {
            Terminal.err("mediacache: \(problem)")
            throw ExitStatus.usage
        }
    }

    var directory: CacheDirectory {
        guard case .success(let directory) = location else {
            preconditionFailure("validate() rejects a cache directory that cannot be resolved")
        }
        return directory
    }
}
