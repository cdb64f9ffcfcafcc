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
        let trap = SignalTrap { signal in
            engine.cancel()
            return signal
        }
        let summary = engine.run(requests)
        printer.finish()
        SummaryPrinter.print(summary, inputErrors: inputErrors, json: options.json)
        if summary.interrupted {
            throw trap.caughtSignal == SIGTERM ? ExitStatus.interruptedByTERM : ExitStatus.interruptedByINT
        }
        if !summary.failed.isEmpty || inputErrors > 0 { throw ExitStatus.someFailed }
    }
}

/// Turns SIGINT and SIGTERM into a call, once; a second Ctrl-C exits at once.
final class SignalTrap: @unchecked Sendable {
    private var sources: [DispatchSourceSignal] = []
    private let lock = NSLock()
    private var caught: Int32?

    var caughtSignal: Int32? { lock.withLock { caught } }

    init(_ handler: @escaping @Sendable (Int32) -> Int32) {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [self] in
                let first = lock.withLock {
                    defer { caught = caught ?? number }
                    return caught == nil
                }
                if first {
                    Terminal.err("\nmediacache: stopping, saving progress (press Ctrl-C again to quit at once)")
                    _ = handler(number)
                } else {
                    exit(number == SIGTERM ? 143 : 130)
                }
            }
            source.resume()
            sources.append(source)
        }
    }
}
