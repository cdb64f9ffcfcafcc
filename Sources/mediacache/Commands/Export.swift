import ArgumentParser
import Foundation
import MediaCacheKit
import Synchronization

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write cached objects into a bundle.",
        discussion: """
            A bundle is a pax tar compressed with zstd: manifest.json (each object's URL, \
            cache key, size, SHA-256, type, validators) first, then the objects. It never \
            holds request headers; URLs of objects cached under a cache-key lose their query \
            (expiring tokens) unless --keep-query is given. The bundle is written under a \
            temporary name and renamed when complete; a file already at that name is \
            replaced only if it is a bundle. Every object is re-hashed on the way: \
            a damaged one stops the export. Incremental bundles: --since and \
            --exclude-manifest.
            """)

    @Argument(help: ArgumentHelp("The bundle file to write.", valueName: "bundle"), completion: .file())
    var bundle: String

    @Argument(help: ArgumentHelp("URLs, mirrors or cache keys to export (default: every object).", valueName: "url"))
    var urls: [String] = []

    @Option(help: ArgumentHelp(
        "Only objects added at or after this date (2026-03-01, 2026-03-01T14:30, …T14:30:00Z; local time unless a zone is given).",
        valueName: "date"))
    var since: String?

    @Option(
        name: .customLong("exclude-manifest"),
        help: ArgumentHelp("Leave out objects this bundle already holds with the same bytes (repeatable).", valueName: "bundle"),
        completion: .file())
    var excludeManifest: [String] = []

    @Option(help: ArgumentHelp(
        "zstd compression level, 1 (fastest) to 19; media is already compressed, so higher levels rarely pay.",
        valueName: "n"))
    var level = 1

    @Option(help: ArgumentHelp("zstd compression threads (default: one per core).", valueName: "n"))
    var threads: Int?

    @Flag(help: "Keep the query of URLs of objects cached under a cache-key (it may hold expiring tokens).")
    var keepQuery = false

    @Flag(name: [.short, .long], help: "Print no progress, only errors.")
    var quiet = false

    @OptionGroup var cache: CacheOptions

    func validate() throws {
        if !(1...19).contains(level) { throw ValidationError("--level must be between 1 and 19") }
        if let threads, !(1...64).contains(threads) { throw ValidationError("--threads must be between 1 and 64") }
        if let since, ExportSelection.parseDate(since) == nil {
            throw ValidationError("--since expects a date like 2026-03-01 or 2026-03-01T14:30:00Z, not '\(since)'")
        }
    }

    /// Why writing the bundle at `path` would destroy a file that is no bundle (a typo, or
    /// the arguments swapped) or replace what is not a file; nil when nothing is there,
    /// an earlier bundle (its manifest reads), an empty file, or a folder (the exporter
    /// names it).
    static func wouldReplaceSomethingElse(_ path: String) -> String? {
        if path == "-" { return "is standard output, which export does not write to (a bundle is renamed into place)" }
        // Not followed, and not opened: a FIFO would block the open, a device or a link
        // would be replaced by the rename.
        guard let type = (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType else {
            return nil
        }
        if type == .typeSymbolicLink { return "is a symbolic link, which export would replace, not write through" }
        if type == .typeDirectory { return nil }  // The exporter says so, naming the folder.
        guard type == .typeRegular else { return "is not a regular file (a device, a FIFO or a socket)" }
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let start = try? handle.read(upToCount: 4), !start.isEmpty else { return nil }
        guard Array(start) == [0x28, 0xB5, 0x2F, 0xFD] else { return "exists and is not a mediacache bundle (not zstd data)" }
        // Other zstd data (a .tar.zst backup) is no bundle either: a bundle's manifest comes first.
        return (try? BundleManifest.read(bundleAt: path)) == nil
            ? "exists and is not a mediacache bundle (zstd data without a bundle's manifest)" : nil
    }

    func run() throws {
        let directory = cache.directory
        guard try CommandInputs.cacheExists(directory), directory.hasIndexOrObjects else {
            Terminal.err("mediacache: \(CommandInputs.emptyCache(directory)); nothing to export")
            throw ExitStatus.someFailed
        }
        if let reason = Self.wouldReplaceSomethingElse(bundle) {
            Terminal.err("mediacache: \(bundle) \(reason); export replaces only a bundle file: give another name, or remove it first")
            throw ExitStatus.usage
        }
        var selection = ExportSelection(names: urls, since: since.flatMap(ExportSelection.parseDate))
        for path in excludeManifest {
            guard FileManager.default.isReadableFile(atPath: path) else {
                Terminal.err("mediacache: cannot read bundle \(path) (--exclude-manifest): no such file or not readable")
                throw ExitStatus.usage
            }
            do {
                selection.excluded.append(try BundleManifest.read(bundleAt: path))
            } catch {
                Terminal.err("mediacache: --exclude-manifest: \(error)")
                throw ExitStatus.usage
            }
        }
        var options = ExportOptions(compressionLevel: level, keepQuery: keepQuery)
        if let threads { options.threads = threads }

        let exporter = try CommandInputs.usingCache(directory) { try BundleExporter(cache: directory) }
        // The compressor cannot be stopped halfway through what it holds (seconds at a high
        // level): a stop removes the unfinished bundle and ends the run at once.
        let unfinished = Mutex<String?>(nil)
        let interrupt = SignalTrap(message: "stopping and removing temporary files") { status in
            if let path = unfinished.withLock({ $0 }) { unlink(path) }
            Terminal.err("mediacache: export failed: interrupted; temporary files were removed")
            Foundation.exit(status.rawValue)
        }
        let line = ByteProgressLine(label: "exporting", enabled: Terminal.stderrIsTerminal && !quiet)
        do {
            let manifest = try exporter.manifest(for: selection, options: options)
            if manifest.entries.isEmpty && !quiet {
                Terminal.err("mediacache: no object matches; writing a bundle with 0 objects")
            }
            let summary = try exporter.export(
                manifest, to: bundle, options: options,
                progress: { line.update(done: $0.bytesDone, total: $0.bytes, detail: "\($0.objectsDone)/\($0.objects) objects") },
                isCancelled: { interrupt.isSet }, writing: { path in unfinished.withLock { $0 = path } })
            line.clear()
            if !quiet {
                let rate = summary.seconds > 0 ? Double(summary.bytes) / summary.seconds : 0
                Terminal.err(
                    "exported \(summary.objects) object\(summary.objects == 1 ? "" : "s") (\(ByteCount.format(summary.bytes))) "
                        + "to \(bundle): \(ByteCount.format(summary.bundleSize)) in \(ByteCount.formatSeconds(summary.seconds)) "
                        + "(\(ByteCount.format(Int64(rate)))/s, zstd level \(level), \(summary.compressionThreads) thread\(summary.compressionThreads == 1 ? "" : "s"))")
            }
        } catch let error as BundleError {
            line.clear()
            Terminal.err("mediacache: export failed: \(error)")
            if error == .cancelled { throw interrupt.exitStatus }
            throw ExitStatus.someFailed
        } catch {
            line.clear()
            Terminal.err("mediacache: export failed: \(error); nothing was written to \(bundle)")
            throw ExitStatus.someFailed
        }
    }
}
