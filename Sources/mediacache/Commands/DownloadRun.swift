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
    /// Seconds between summary lines when stderr is not a terminal (0: none).
    let summaryInterval: Double

    init(
        cache: CacheDirectory, engineOptions: PrefetchOptions, json: Bool, quiet: Bool, tier: TierUse,
        summaryInterval: Double = 0
    ) {
        self.cache = cache
        self.engineOptions = engineOptions
        self.json = json
        self.quiet = quiet
        self.tier = tier
        self.summaryInterval = summaryInterval
    }

    /// `prefetch` and `resume`.
    init(cache: CacheDirectory, options: DownloadOptions, network: NetworkOptions, tier: TierOptions, titles: TitleOptions) {
        self.init(
            cache: cache, engineOptions: options.engineOptions(network: network, titles: titles), json: options.json,
            quiet: options.quiet, tier: tier.use(insecure: options.insecure), summaryInterval: Double(options.summaryInterval))
    }

    /// `inputErrors`: bad list lines already reported; they make the exit code 1.
    /// `savedQueues`: the files `requests` were loaded from (`RunQueue`), removed once
    /// what they held is done or saved again.
    func run(_ requests: [JobRequest], inputErrors: Int, savedQueues: [String] = []) throws {
        var remaining = requests[...]
        try run(
            next: { _ in remaining.popFirst() }, inputErrors: { inputErrors }, savedQueues: savedQueues,
            expectedFiles: requests.count)
    }

    /// Takes requests from `next` as job slots free up; `next` reports problems it meets
    /// (bad list lines) through the function it is given, which prints them above the
    /// progress lines. `inputErrors` counts the problems once the run is over. An
    /// interrupted run saves what it never started, for `resume`. `expectedFiles`: how
    /// many requests `next` will give, if known (an estimate is corrected at its end).
    /// `stopReading` runs on an interruption, before the rest of the lists is saved: it
    /// stops lists that arrive over time, whose writer may never end.
    func run(
        next: @escaping (_ report: @escaping (ListDiagnostic) -> Void) -> JobRequest?, inputErrors: () -> Int,
        savedQueues: [String] = [], expectedFiles: Int? = nil, stopReading: @escaping @Sendable () -> Void = {}
    ) throws {
        MemoryTuning.keepTransferBuffers()
        let style: EventPrinter.Style = json ? .json : quiet ? .quiet : .human
        let printer = EventPrinter(style: style, expectedFiles: expectedFiles, summaryInterval: summaryInterval)
        let tierPrinter = TierPrinter(json: json, quiet: quiet, reads: true, pushes: tier.push)
        let engine = try Engine.open(
            cache: cache, options: engineOptions, tier: tier, json: json, tierPrinter: tierPrinter,
            events: printer.handle, shows: printer.shows, unusable: cacheUnusable)
        let (service, pusher) = (engine.service, engine.pusher)
        if !quiet, !json, let warning = service.descriptorBudget.warning(limit: FileDescriptorLimit.current) {
            printer.note("mediacache: warning: \(warning)")
        }
        let placer = ObjectPlacer(
            cache: cache, report: PlacementPrinter.reporter(json: json, quiet: quiet, printer: printer))
        let batch = PrefetchBatch(service: service, placer: placer)
        let trap = SignalTrap(message: "stopping, saving progress") { _ in
            stopReading()
            batch.cancel()
            pusher?.cancel()
        }
        let leftOver = RunQueue.Writer(cache: cache)
        var handedOut = 0
        let summary = batch.run(
            next: {
                // Called on the list's own queue, a few ahead: its notes leave through the event queue.
                guard let request = next({ problem in service.deliver { printer.listProblem(problem) } }) else {
                    printer.expectFiles(handedOut)
                    return nil
                }
                handedOut += 1
                return request
            }, leftOver: leftOver)
        // Waits for the last checkpoints and lock releases.
        service.shutdown()
        printer.finish()
        keepForNextRun(summary, leftOver: leftOver, savedQueues: savedQueues, objects: service.objects)
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
        if placer.failureCount > 0 {
            Terminal.err("\(placer.failureCount) cached file\(placer.failureCount == 1 ? "" : "s") could not be put where asked (see FAILED above)")
        }
        let tierFailed = tier.isRequired && tierPrinter.hadFailures
        if !summary.failed.isEmpty || errors > 0 || tierFailed || placer.failureCount > 0 { throw ExitStatus.someFailed }
    }
}

extension DownloadRun {
    /// Saves what the run never started (then forgets the saved runs it was given: what
    /// they held is now done, under `partial/`, or saved again) and records its failures.
    private func keepForNextRun(
        _ summary: PrefetchSummary, leftOver: RunQueue.Writer, savedQueues: [String], objects: ObjectStore
    ) {
        // An interrupted run's entries that this one (the same command again) has cached
        // are done: `status` no longer lists them as not started.
        if !RunQueue.isEmpty(in: cache) {
            _ = try? RunQueue.forget(in: cache) { objects.openIntact(key: $0.key) != nil }
        }
        do {
            try leftOver.save()
            RunQueue.remove(savedQueues)
        } catch {
            Terminal.err(
                "mediacache: warning: cannot save the \(leftOver.count) entries this run did not start (\(error)); "
                    + "`mediacache resume` will not know them: run the same command again")
        }
        do {
            try LastRunFailures.record(summary.failed, in: cache)
        } catch {
            Terminal.err("mediacache: warning: cannot record this run's failures for `mediacache status`: \(error)")
        }
    }

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
