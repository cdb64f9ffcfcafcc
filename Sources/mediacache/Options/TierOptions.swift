import ArgumentParser
import Foundation
import MediaCacheKit

/// Where the fleet's shared tier is: an S3 location and the store's endpoint.
/// Credentials come only from the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
/// AWS_SESSION_TOKEN), never from options, so they stay out of `ps`, shell history and
/// the config file.
struct TierLocationOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The shared tier, s3://BUCKET/PREFIX (default: $MEDIACACHE_TIER).", valueName: "s3-url"))
    var tier: String?

    @Option(
        name: .customLong("s3-endpoint"),
        help: ArgumentHelp(
            "URL of the S3-compatible store holding the tier (default: $AWS_ENDPOINT_URL).", valueName: "url"))
    var s3Endpoint: String?

    /// `--tier`, else a non-empty `MEDIACACHE_TIER`.
    var locationText: String? {
        tier ?? ProcessInfo.processInfo.environment["MEDIACACHE_TIER"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The store's configuration, or nil when no tier is named; a tier named but not
    /// usable as given (location, endpoint, credentials) is a usage error.
    func configuration(verifyTLS: Bool = true) throws -> S3Configuration? {
        guard let text = locationText else { return nil }
        do {
            var configuration = try S3Configuration.fromEnvironment(
                location: try TierLocation(parsing: text), endpoint: s3Endpoint)
            configuration.verifyTLS = verifyTLS
            return configuration
        } catch {
            throw ValidationError("\(error)")
        }
    }

    /// For the commands that work on the tier itself: one must be named, usable as given.
    func validateNamed() throws {
        guard locationText != nil else { throw Self.unnamed }
        _ = try configuration()
    }

    private static let unnamed = ValidationError("name the tier: --tier s3://BUCKET/PREFIX, or set MEDIACACHE_TIER")

    /// The tier of a cache, for commands that need one.
    func store(for cache: CacheDirectory, verifyTLS: Bool = true) throws -> TierStore {
        guard let configuration = try configuration(verifyTLS: verifyTLS) else { throw Self.unnamed }
        return TierStore(client: S3Client(configuration: configuration), cacheRoot: cache.root)
    }
}

/// How `prefetch`, `resume` and `serve` use the tier: with a tier named (`--tier`,
/// `MEDIACACHE_TIER`), each file is looked up there first and fetched from its copy;
/// `--tier-push` also uploads what the run commits.
struct TierOptions: ParsableArguments {
    @OptionGroup var location: TierLocationOptions

    @Flag(
        name: .customLong("tier-push"), inversion: .prefixedNo,
        help: "Upload every object this run commits to the tier, behind the downloads.")
    var push = false

    @Flag(
        name: .customLong("tier-required"), inversion: .prefixedNo,
        help: "Fail (exit 1) when the tier cannot be used, instead of warning and fetching from the origin.")
    var required = false

    func validate() throws {
        guard location.locationText != nil else {
            if push || required {
                throw ValidationError("--tier-push and --tier-required need a tier: --tier s3://BUCKET/PREFIX")
            }
            return
        }
        _ = try location.configuration()
    }

    /// How this run uses the tier, for `DownloadRun`.
    func use(insecure: Bool) -> TierUse {
        TierUse(location: location, reads: .origin(required: required), push: push, insecure: insecure)
    }
}

/// The tier as one run uses it: where it is, whether files are read from it (and what
/// to fall back on), and whether commits are pushed to it.
struct TierUse {
    var location: TierLocationOptions
    var reads: TierSource.Fallback
    var push: Bool
    var insecure: Bool

    var isRequired: Bool { reads != .origin(required: false) }

    /// The tier's reading and pushing sides, ready for a run (nil each when not used).
    /// The bucket is checked first: a tier that cannot be used is one warning and the
    /// run reads from the origin and notes what it commits for a later push; when the
    /// tier is required, it stops the run before it starts (exit 1).
    func prepare(for cache: CacheDirectory, json: Bool, printer: TierPrinter) throws -> (
        source: TierSource?, pusher: TierPusher?
    ) {
        guard var configuration = try location.configuration(verifyTLS: !insecure) else { return (nil, nil) }
        try cache.prepare()
        let store = TierStore(client: S3Client(configuration: configuration), cacheRoot: cache.root)
        // Each download waits for its lookup: a store that does not answer soon is not used.
        configuration.timeout = 5
        configuration.attempts = 2
        let source = TierSource(
            store: TierStore(client: S3Client(configuration: configuration), cacheRoot: cache.root), fallback: reads,
            trouble: printer.stopped)
        let pusher = push ? TierPusher(store: store, objects: try ObjectStore(directory: cache), events: printer.handle) : nil
        do {
            try store.client.checkBucket()
            if push { try store.uploader.abortAbandonedUploads(under: store.layout.objectsPrefix) }
        } catch {
            if isRequired {
                SummaryPrinter.printRunFailure("the tier cannot be used: \(error)", code: "tier-unusable", json: json)
                throw ExitStatus.someFailed
            }
            source.markUnusable(error)
            pusher?.stop(because: error)
        }
        return (source, pusher)
    }
}
