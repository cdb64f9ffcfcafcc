import ArgumentParser
import MediaCacheKit

/// What `prefetch`, `resume` and `serve` run on: the download service on the cache,
/// looking in the tier first and, with `--tier-push`, uploading what it commits.
struct Engine: Sendable {
    let service: DownloadService
    /// Uploads behind the downloads; nil without `--tier-push`.
    let pusher: TierPusher?

    /// Opens the cache (its index and store) and the tier, then starts pushing what
    /// earlier runs left noted. A tier the run requires but cannot use ends it as
    /// `TierUse.prepare` says; any other reason the cache cannot be opened is reported
    /// by `unusable`, whose exit status is thrown.
    static func open(
        cache: CacheDirectory, options: PrefetchOptions, tier: TierUse, json: Bool, tierPrinter: TierPrinter,
        events: @escaping @Sendable (PrefetchEvent) -> Void,
        shows: @escaping @Sendable (PrefetchEvent) -> Bool = { _ in true }, unusable: (any Error) -> ExitCode
    ) throws -> Engine {
        let engine: Engine
        do {
            let (source, pusher) = try tier.prepare(for: cache, json: json, printer: tierPrinter)
            var committed: (@Sendable (CachedObject) -> Void)?
            if let pusher { committed = { pusher.push($0) } }
            let service = try DownloadService(
                cache: cache, options: options, events: events, shows: shows, committed: committed, tier: source)
            engine = Engine(service: service, pusher: pusher)
        } catch let exit as ExitCode {
            throw exit
        } catch let error as ValidationError {
            throw error
        } catch {
            throw unusable(error)
        }
        engine.pusher?.pushNoted()
        return engine
    }
}
