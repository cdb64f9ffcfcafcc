import ArgumentParser
import Foundation
import MediaCacheKit

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Verify and add the objects of bundles.",
        discussion: """
            Reads each bundle entry by entry, hashes every object while writing it to a \
            temporary file inside the cache, and commits it only when its size and SHA-256 \
            match the manifest. Objects already cached with the same bytes are skipped, so \
            importing a bundle twice changes nothing. Unsafe or tampered entries (absolute \
            paths, '..', links, devices, entries not in the manifest, oversized or \
            truncated objects) are rejected and named; nothing is ever written outside the \
            cache directory. Exit 1 when any entry was rejected, or skipped for another reason \
            than being cached with the same bytes already. Exit 2 when a \
            bundle cannot be used at all: a missing file or a directory stops the command \
            before anything is imported; a file that is not a bundle (or has no or a \
            malformed manifest) is reported and the others named are still imported.
            """)

    @Argument(help: ArgumentHelp("Bundle files made by `mediacache export`.", valueName: "bundle"), completion: .file())
    var bundles: [String]

    @Flag(help: "Read and verify every object, change nothing.")
    var dryRun = false

    @Flag(help: "Take the bundle's version of an object the cache holds with different bytes.")
    var replace = false

    @Flag(help: "Print one JSON object per event on stdout.")
    var json = false

    @Flag(name: [.short, .long], help: "Print only problems.")
    var quiet = false

    @OptionGroup var cache: CacheOptions

    func validate() throws {
        if bundles.isEmpty { throw ValidationError("give at least one bundle file") }
    }

    func run() throws {
        for bundle in bundles {
            guard let reason = CommandInputs.unreadableBundleReason(bundle) else { continue }
            Terminal.err("mediacache: cannot read bundle \(bundle): \(reason)")
            throw ExitStatus.usage
        }
        let interrupt = SignalTrap(message: "stopping and removing temporary files")
        let line = ByteProgressLine(
            label: dryRun ? "checking" : "importing", enabled: Terminal.stderrIsTerminal && !quiet && !json)
        let importer: BundleImporter
        do {
            importer = try BundleImporter(
                cache: cache.directory, options: ImportOptions(dryRun: dryRun, replace: replace),
                events: { report($0, line: line) }, isCancelled: { interrupt.isSet })
        } catch {
            throw CommandInputs.cacheUnusable(cache.directory, error)
        }
        var failed = false
        var unusable = false
        for bundle in bundles {
            let started = Date()
            let opened: OpenedBundle
            do {
                opened = try OpenedBundle(path: bundle, name: bundle)
            } catch {
                // Not a bundle at all: an input error; the other bundles still count.
                Terminal.err("mediacache: \(error)")
                if json { Terminal.out(JSONEvent.encode(["event": "failed", "bundle": bundle, "reason": error.description])) }
                unusable = true
                continue
            }
            do {
                let summary = try importer.importBundle(opened)
                line.clear()
                if let damage = summary.damage { Terminal.err("mediacache: \(damage)") }
                printSummary(summary, seconds: Date().timeIntervalSince(started))
                if !summary.isComplete { failed = true }
            } catch let error as BundleError {
                line.clear()
                if error == .cancelled {
                    Terminal.err("mediacache: import of \(bundle) interrupted; objects committed so far are kept, the rest was removed")
                    throw interrupt.exitStatus
                }
                Terminal.err("mediacache: \(error)")
                if json { Terminal.out(JSONEvent.encode(["event": "failed", "bundle": bundle, "reason": error.description])) }
                failed = true
            } catch {
                line.clear()
                Terminal.err("mediacache: import of \(bundle) stopped: \(error); the cache is consistent, run the import again")
                throw ExitStatus.cacheError
            }
        }
        if unusable { throw ExitStatus.usage }
        if failed { throw ExitStatus.someFailed }
    }

    private func report(_ event: ImportEvent, line: ByteProgressLine) {
        switch event {
        case .progress(let done, let total):
            line.update(done: done, total: total)
        case .rejected(let rejection):
            line.printAbove("mediacache: \(rejection)")
            if json {
                var fields: [String: Any] = [
                    "event": "rejected", "bundle": rejection.bundle, "entry": rejection.entry,
                    "reason": rejection.reason.description,
                ]
                if let url = rejection.url { fields["url"] = url }
                Terminal.out(JSONEvent.encode(fields))
            }
        case .skipped(let entry, let reason):
            line.printAbove("mediacache: skipped \(Printable.name(entry.url)): \(reason)")
            if json { Terminal.out(JSONEvent.encode(fields("skipped", entry).merging(["reason": reason]) { $1 })) }
        case .imported(let entry):
            if json { Terminal.out(JSONEvent.encode(fields("imported", entry))) }
        case .verified(let entry):
            if json { Terminal.out(JSONEvent.encode(fields("verified", entry))) }
        case .alreadyCached(let entry):
            if json { Terminal.out(JSONEvent.encode(fields("already-cached", entry))) }
        }
    }

    private func fields(_ event: String, _ entry: BundleManifest.Entry) -> [String: Any] {
        ["event": event, "url": entry.url, "cache_key": entry.cacheKey, "key": entry.key, "size": entry.size]
    }

    private func printSummary(_ summary: ImportSummary, seconds: Double) {
        let rate = seconds > 0 ? Double(summary.bytes) / seconds : 0
        if json {
            Terminal.out(
                JSONEvent.encode([
                    "event": "summary", "bundle": summary.bundle, "objects": summary.objects,
                    dryRun ? "verified" : "imported": summary.imported, "already_cached": summary.alreadyCached,
                    "skipped": summary.skipped, "rejected": summary.rejected.count, "bytes": summary.bytes,
                    "seconds": (seconds * 1000).rounded() / 1000,
                ]))
        }
        guard !quiet || !summary.isComplete else { return }
        var parts = [
            dryRun ? "\(summary.imported) would be imported (verified)" : "\(summary.imported) imported",
            "\(summary.alreadyCached) already cached",
        ]
        if summary.skipped > 0 { parts.append("\(summary.skipped) skipped") }
        parts.append("\(summary.rejected.count) rejected")
        Terminal.err(
            "\(summary.bundle): \(parts.joined(separator: ", ")); \(ByteCount.format(summary.bytes)) in "
                + "\(ByteCount.formatSeconds(seconds)) (\(ByteCount.format(Int64(rate)))/s)")
    }
}
