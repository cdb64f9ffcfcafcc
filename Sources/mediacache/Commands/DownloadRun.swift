import ArgumentParser
import Foundation
import MediaCacheKit

/// Runs the engine for `prefetch` and `resume`: Ctrl-C, SIGTERM, SIGHUP and a closed
/// stdout save progress and stop, a summary is always printed, and the exit code says
/// how it went.
struct DownloadRun {
    let cache: CacheDirectory
    let engineOptions: PrefetchOptions
    let json: Bool
    let quiet: Bool
    let tier: TierUse

    init(cache: CacheDirectory, engineOptions: PrefetchOptions, json: Bool, quiet: Bool, tier: TierUse) {
        self.cache = cache
        self.engineOptions = engineOptions
        self.json = json
        self.quiet = quiet
        self.tier = tier
    }

    /// `prefetch` and `resume`.
    init(cache: CacheDirectory, options: DownloadOptions) {
        self.init(
            cache: cache, engineOptions: options.engineOptions, json: options.json, quiet: options.quiet,
            tier: options.tier.use(insecure: options.insecure))
    }

    /// `inputErrors`: bad list lines already reported; they make the exit code 1.
    func run(_ requests: [JobRequest], inputErrors: Int) throws {
        var remaining = requests[...]
        try run(next: { _ in remaining.popFirst() }, countRest: nil, inputErrors: { inputErrors })
    }

    /// Takes requests from `next` as job slots free up; `next` reports problems it meets
    /// (bad list lines) through the function it is given, which prints them above the
    /// progress lines. `countRest` says how many are left if the run is interrupted;
    /// `inputErrors` counts the problems once the run is over.
    func run(
        next: @escaping (_ report: @escaping (String) -> Void) -> JobRequest?, countRest: (() -> Int)?,
        inputErrors: () -> Int
    ) throws {
        let style: EventPrinter.Style = json ? .json : quiet ? .quiet : .human
        let printer = EventPrinter(style: style)
        let tierPrinter = TierPrinter(json: json, quiet: quiet, reads: true, pushes: tier.push)
        let service: DownloadService
        let pusher: TierPusher?
        do {
            let (source, tierPusher) = try tier.prepare(for: cache, json: json, printer: tierPrinter)
            pusher = tierPusher
            var committed: (@Sendable (CachedObject) -> Void)?
            if let pusher { committed = { pusher.push($0) } }
            service = try DownloadService(
                cache: cache, options: engineOptions, events: printer.handle, committed: committed, tier: source)
        } catch let error as ValidationError {
            throw error
        } catch let exit as ExitCode {
            throw exit
        } catch {
            throw cacheUnusable(error)
        }
        pusher?.pushNoted()
        if !quiet, !json, let warning = service.descriptorBudget.warning(limit: FileDescriptorLimit.current) {
            printer.note("mediacache: warning: \(warning)")
        }
        let batch = PrefetchBatch(service: service)
        let trap = SignalTrap(message: "stopping, saving progress") {
            batch.cancel()
            pusher?.cancel()
        }
        let summary = batch.run(next: { next(printer.note) }, countRest: countRest)
        // Waits for the last checkpoints and lock releases.
        service.shutdown()
        printer.finish()
        if let pusher {
            // Uploads run behind the downloads; the run ends when they do.
            pusher.finish()
            if !quiet || tierPrinter.hadFailures {
                tierPrinter.summary(interrupted: trap.isSet)
            }
        }
        let errors = inputErrors()
        SummaryPrinter.print(summary, inputErrors: errors, json: json)
        if summary.interrupted || trap.isSet {
            throw trap.exitStatus
        }
        let tierFailed = tier.isRequired && tierPrinter.hadFailures
        if !summary.failed.isEmpty || errors > 0 || tierFailed { throw ExitStatus.someFailed }
    }
}

extension DownloadRun {
    /// Says why the cache cannot be used (with `--json`, as a `failed` event and an
    /// empty summary) and returns the exit status for it.
    func cacheUnusable(_ error: Error) -> ExitCode {
        SummaryPrinter.printRunFailure(
            "cannot use the cache at \(cache.root): \(error)", code: "cache-unusable", json: json)
        return ExitStatus.cacheError
    }
}

/// `prefetch` and `resume`: with `--json`, their event stream always ends with a summary.
protocol DownloadCommand {
    var download: DownloadOptions { get }
}

extension Prefetch: DownloadCommand {}
extension Resume: DownloadCommand {}
