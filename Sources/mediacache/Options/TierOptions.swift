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

/// How `prefetch`, `resume` and `serve` use the tier.
struct TierOptions: ParsableArguments {
    @OptionGroup var location: TierLocationOptions

    @Flag(
        name: .customLong("tier-push"),
        help: "Upload every object this run commits to the tier, behind the downloads.")
    var push = false

    @Flag(
        name: .customLong("tier-required"),
        help: "Fail the run (exit 1) when the tier cannot be used, instead of warning and going on.")
    var required = false

    func validate() throws {
        guard location.locationText != nil else {
            if push || required {
                throw ValidationError("--tier-push and --tier-required need a tier: --tier s3://BUCKET/PREFIX")
            }
            return
        }
        // Reading from the tier comes with the download path's tier source; until then
        // `--tier` without --tier-push would do nothing. MEDIACACHE_TIER alone is meant for
        // every command, so it is not an error here.
        if location.tier != nil && !push {
            throw ValidationError(
                "--tier on this command only uploads for now: add --tier-push to push what the run commits (reading from the tier is not built yet)")
        }
        if push { _ = try location.configuration() }
    }

    /// The uploader behind the downloads, with `--tier-push`. A tier that cannot be
    /// used is one warning and the run goes on, noting what it commits for a later push;
    /// with `--tier-required` it stops the run before it starts (exit 1).
    func pusher(for cache: CacheDirectory, insecure: Bool, json: Bool, printer: TierPushPrinter) throws -> TierPusher? {
        guard push else { return nil }
        let store = try location.store(for: cache, verifyTLS: !insecure)
        try cache.prepare()
        let pusher = TierPusher(store: store, objects: try ObjectStore(directory: cache), events: printer.handle)
        do {
            try store.client.checkBucket()
            try store.uploader.abortAbandonedUploads(under: store.layout.objectsPrefix)
        } catch {
            if required {
                SummaryPrinter.printRunFailure("the tier cannot be used: \(error)", code: "tier-unusable", json: json)
                throw ExitStatus.someFailed
            }
            pusher.stop(because: error)
        }
        return pusher
    }
}
