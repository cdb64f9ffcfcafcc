import ArgumentParser
import Foundation
import MediaCacheKit

/// Runs the engine for `prefetch` and `resume`: Ctrl-C/SIGTERM save progress and stop,
/// a summary is always printed, and the exit code says how it went.
struct DownloadRun {
    let cache: CacheDirectory
    let options: DownloadOptions

    /// `inputErrors`: bad list lines already reported; they make the exit code 1.
    func run(_ requests: [JobRequest], inputErrors: Int) throws {
        let style: EventPrinter.Style = options.json ? .json : options.quiet ? .quiet : .human
        let printer = EventPrinter(style: style)
        let engine: PrefetchEngine
        do {
            engine = try PrefetchEngine(cache: cache, options: options.engineOptions, events: printer.handle)
        } catch {
            Terminal.err("mediacache: cannot use the cache at \(cache.root): \(error)")
            throw ExitStatus.cacheError
        }
        let trap = SignalTrap(message: "stopping, saving progress") { engine.cancel() }
        let summary = engine.run(requests)
        printer.finish()
        SummaryPrinter.print(summary, inputErrors: inputErrors, json: options.json)
        if summary.interrupted {
            throw trap.exitStatus
        }
        if !summary.failed.isEmpty || inputErrors > 0 { throw ExitStatus.someFailed }
    }
}
