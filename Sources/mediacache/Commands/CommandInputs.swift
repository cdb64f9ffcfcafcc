import Foundation
import ArgumentParser
import MediaCacheKit

/// Checks every command makes the same way, with one message and the documented exit
/// code: 3 when the cache cannot be used, 2 when a named bundle cannot be opened.
enum CommandInputs {
    /// For commands that only read the cache: whether it exists (a cache not created
    /// yet is empty). A path that cannot be a cache (a regular file, no permission) is
    /// exit 3, never an empty cache.
    static func cacheExists(_ directory: CacheDirectory) throws -> Bool {
        try usingCache(directory) { try directory.existsForReading() }
    }

    /// "The cache is empty", or, when its folder does not exist (a mistyped --cache-dir,
    /// MEDIACACHE_DIR), that there is no cache there at all.
    static func emptyCache(_ directory: CacheDirectory) -> String {
        !FileManager.default.fileExists(atPath: directory.root)
            ? "there is no cache at \(directory.root) (no such folder; check --cache-dir or MEDIACACHE_DIR)"
            : "the cache at \(directory.root) is empty"
    }

    /// What `open` makes of the cache at `directory` (its index, a store, an importer);
    /// when it fails, the one "cannot use the cache" message and exit 3.
    static func usingCache<T>(_ directory: CacheDirectory, _ open: () throws -> T) throws -> T {
        do {
            return try open()
        } catch {
            throw cacheUnusable(directory, error)
        }
    }

    /// Says that the cache at `directory` cannot be used, and why; the exit status to throw.
    static func cacheUnusable(_ directory: CacheDirectory, _ error: any Error) -> ExitCode {
        Terminal.err("mediacache: cannot use the cache at \(directory.root): \(error)")
        return ExitStatus.cacheError
    }

    /// Why the bundle file `path` cannot be opened at all, or nil.
    static func unreadableBundleReason(_ path: String) -> String? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return "no such file" }
        if isDirectory.boolValue { return "it is a directory" }
        return FileManager.default.isReadableFile(atPath: path) ? nil : "permission denied"
    }
}
