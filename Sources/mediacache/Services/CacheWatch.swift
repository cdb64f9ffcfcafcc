import MediaCacheKit
import ServiceLifecycle

/// Stops `serve` when its cache directory is removed or replaced under it: the index and
/// files it would write on into are gone from every other command's view, so what it
/// fetched would be lost. Looked at once a second (a `stat`), which also sees a parent
/// directory renamed or the cache replaced on a network file system.
struct CacheWatch: Service {
    let directory: CacheDirectory
    /// The cache's identity once the engine opened it.
    let identity: FileIdentity?

    struct Replaced: Error, CustomStringConvertible {
        let root: String
        var description: String { "the cache directory \(root) was removed or replaced while serving" }
    }

    func run() async throws {
        try await cancelWhenGracefulShutdown { [directory, identity] in
            while true {
                // Cancelled: the group stops, with nothing to say here.
                do { try await Task.sleep(for: .seconds(1)) } catch { return }
                if directory.identity() != identity {
                    let replaced = Replaced(root: directory.root)
                    Terminal.err("mediacache: \(replaced); stopping (start serve again to use the cache there now)")
                    throw replaced
                }
            }
        }
    }
}
