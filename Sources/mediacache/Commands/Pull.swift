import ArgumentParser
import Foundation
import MediaCacheKit

struct Pull: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pull",
        abstract: "Fill the cache from the fleet's tier, not the origin.",
        discussion: """
            Fetches every object the tier has a record for, or those named by URL or cache \
            key, in parallel ranges like a prefetch: resumable after Ctrl-C or a crash, and \
            each object is cached only if its SHA-256 is the one its record names. A \
            streaming title comes back whole, every file checked against its title.json, \
            or not at all. Objects already cached are skipped. A name the tier has no \
            record for, or a copy that fails its check, makes the exit status 1. A record whose URL had a query (the \
            tier keeps URLs without one) is pulled only when named by its full URL.
            """)

    @Argument(help: ArgumentHelp("URLs or cache keys to pull (default: everything in the tier).", valueName: "url"))
    var names: [String] = []

    @OptionGroup var cache: CacheOptions
    @OptionGroup(title: "Fleet tier") var tier: TierLocationOptions

    @Option(name: [.short, .customLong("jobs")], help: "Objects fetched at once (1-64).")
    var jobs = 8

    @Option(name: [.customShort("x"), .customLong("connections")], help: "Connections per object (1-32).")
    var connections = 8

    @Flag(name: [.customShort("k"), .customLong("insecure")], help: "Do not check the S3 endpoint's TLS certificate.")
    var insecure = false

    @Flag(help: "Print events as NDJSON on stdout.")
    var json = false

    @Flag(name: [.short, .customLong("quiet")], help: "Print only errors and the final summary.")
    var quiet = false

    func validate() throws {
        try tier.validateNamed()
        guard (1...64).contains(jobs) else { throw ValidationError("--jobs must be between 1 and 64") }
        guard (1...32).contains(connections) else { throw ValidationError("--connections must be between 1 and 32") }
    }

    func run() throws {
        let directory = cache.directory
        var options = PrefetchOptions()
        options.jobs = jobs
        options.connectionsPerFile = connections
        options.verifyTLS = !insecure
        let run = DownloadRun(
            cache: directory, engineOptions: options, json: json, quiet: quiet,
            tier: TierUse(location: tier, reads: .none, push: false, insecure: insecure))
        let store = try tier.store(for: directory, verifyTLS: !insecure)
        // Records that cannot be pulled: named before the run, and the exit status is 1.
        var unpullable = 0
        var requests: [JobRequest] = []
        do {
            try store.client.checkBucket()
            requests = try names.isEmpty ? everything(in: store, unpullable: &unpullable) : named(in: store)
        } catch {
            SummaryPrinter.printRunFailure("the tier cannot be used: \(error)", code: "tier-unusable", json: json)
            throw ExitStatus.someFailed
        }
        try run.run(requests, inputErrors: 0)
        if unpullable > 0 { throw ExitStatus.someFailed }
    }

    /// A request for every record that names its key; the others are reported.
    private func everything(in store: TierStore, unpullable: inout Int) throws(TierError) -> [JobRequest] {
        var requests: [JobRequest] = []
        for (key, result) in try store.records() {
            switch result {
            case .success(let record):
                if let entry = record.listEntry() {
                    requests.append(JobRequest(entry: entry))
                } else {
                    unpullable += 1
                    Terminal.err(
                        "mediacache: record \(key.hex) (\(Printable.url(record.url))): its URL had a query, which the tier does not keep; pull it by its full URL")
                }
            case .failure(let error):
                unpullable += 1
                Terminal.err("mediacache: record \(key.hex): \(error)")
            }
        }
        return requests
    }

    /// A request for each name. A URL is its own cache key; another name is a
    /// `cache-key=`, whose record gives the URL (a name the tier does not know fails
    /// like any file the tier has no copy of).
    private func named(in store: TierStore) throws(TierError) -> [JobRequest] {
        try names.map { name throws(TierError) in
            if URLParts.problem(with: name) == nil { return JobRequest(entry: ListEntry(urls: [name])) }
            if let record = try store.record(for: CacheKey(identity: name)) {
                return JobRequest(entry: ListEntry(urls: [record.url], cacheKey: name))
            }
            return JobRequest(entry: ListEntry(urls: [name]))
        }
    }
}
