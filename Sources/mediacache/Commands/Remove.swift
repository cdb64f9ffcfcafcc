import ArgumentParser
import MediaCacheKit

struct Remove: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Remove objects and unfinished downloads.",
        discussion: "Also removes any partial download of the object, and the entry from those an interrupted run never started.")

    @Argument(help: ArgumentHelp("URLs, mirrors or cache keys of the objects.", valueName: "url"))
    var urls: [String]

    @OptionGroup var cache: CacheOptions

    func validate() throws {
        if urls.isEmpty { throw ValidationError("name at least one URL or cache key") }
    }

    func run() throws {
        let maintenance = try CacheMaintenance.open(cache.directory)
        var failed = false
        for url in urls {
            do {
                let removal = try maintenance.remove(url)
                if let bytes = removal.objectBytes { Terminal.err("removed  \(Printable.url(url)) (\(ByteCount.format(bytes)))") }
                if let bytes = removal.partialBytes {
                    Terminal.err("removed partial download of \(Printable.url(url)) (\(ByteCount.format(bytes)) on disk)")
                }
                if removal.queuedEntries > 0 {
                    Terminal.err("removed \(Printable.url(url)) from the entries `resume` would start")
                }
            } catch let error as CacheError {
                // The cache, not the name: nothing else can be removed either.
                Terminal.err("mediacache: cannot remove \(Printable.url(url)): \(error)")
                throw ExitStatus.cacheError
            } catch {
                Terminal.err("mediacache: \(error)")
                failed = true
            }
        }
        if failed { throw ExitStatus.someFailed }
    }
}

struct CollectGarbage: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gc",
        abstract: "Remove orphans; evict the least used down to a size.",
        discussion: """
            Removes files in objects/ without an index row, rows without a file, partial \
            jobs whose state cannot be read and temporary files of imports that were killed; \
            with --partial-older-than, partial downloads nothing has written to for that long; \
            then, with --max-size, evicts the objects used longest ago (`path` counts as a \
            use) until the cache fits. Anything another mediacache process is working on is \
            left alone.
            """)

    @Option(help: ArgumentHelp("Largest total size of the objects to keep (e.g. 20G).", valueName: "size"))
    var maxSize: String?

    @Option(
        help: ArgumentHelp(
            "Also remove partial downloads untouched for longer than this (e.g. 30m, 12h, 7d).", valueName: "duration"))
    var partialOlderThan: String?

    @OptionGroup var cache: CacheOptions

    func validate() throws {
        if let maxSize, ByteCount.parse(maxSize) == nil {
            throw ValidationError("--max-size must be a size like 500M or 20G, got '\(maxSize)'")
        }
        if let partialOlderThan, TimeSpan.parse(partialOlderThan) == nil {
            throw ValidationError(
                "--partial-older-than must be a duration like 30m, 12h or 7d, got '\(partialOlderThan)' "
                    + "(units: s, m, h, d, w)")
        }
    }

    func run() throws {
        // A cache not made yet (a mistyped --cache-dir) has nothing to collect: not made by it.
        guard try CommandInputs.cacheExists(cache.directory) else {
            Terminal.err("\(CommandInputs.emptyCache(cache.directory)); nothing to remove")
            return
        }
        let maintenance = try CacheMaintenance.open(cache.directory)
        let report = try maintenance.collectGarbage(
            maxSize: maxSize.flatMap(ByteCount.parse), partialOlderThan: partialOlderThan.flatMap(TimeSpan.parse))
        for url in report.evicted { Terminal.err("evicted  \(Printable.url(url))") }
        var removed = [
            "\(report.evicted.count) evicted", "\(report.orphanFiles) orphan files",
            "\(report.rowsWithoutFile) rows without a file", "\(report.unreadablePartialJobs) unreadable partial jobs",
            "\(report.stagedImportFiles) staged import file\(report.stagedImportFiles == 1 ? "" : "s")",
        ]
        if let partialOlderThan {
            removed.append("\(report.oldPartialJobs) partial download\(report.oldPartialJobs == 1 ? "" : "s") older than \(partialOlderThan)")
        }
        Terminal.err(
            removed.joined(separator: ", ") + " removed; \(ByteCount.format(report.bytesFreed)) freed, "
                + "\(ByteCount.format(report.remainingBytes)) kept")
        for problem in report.unreachable {
            Terminal.err("mediacache: \(problem); left alone, with its index rows: fix the permissions or the disk and run gc again")
        }
        if !report.unreachable.isEmpty { throw ExitStatus.someFailed }
    }
}

struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stats", abstract: "Show how many objects and bytes the cache holds.")

    @OptionGroup var cache: CacheOptions

    @Flag(help: "Print one JSON object on stdout.")
    var json = false

    func run() throws {
        // A cache not made yet (a mistyped --cache-dir) is empty: not made by asking.
        let exists = try CommandInputs.cacheExists(cache.directory)
        let stats = exists ? try CacheMaintenance.open(cache.directory).statistics() : CacheMaintenance.Statistics()
        if !exists && !json { Terminal.err("mediacache: \(CommandInputs.emptyCache(cache.directory))") }
        if json {
            Terminal.out(
                JSONEvent.encode([
                    "objects": stats.objects, "bytes": stats.bytes, "relocated": stats.relocated,
                    "partial_jobs": stats.partialJobs, "partial_bytes": stats.partialBytes,
                    "partial_disk_bytes": stats.partialDiskBytes,
                    "staged_imports": stats.stagedImports, "staged_import_bytes": stats.stagedImportBytes,
                ]))
        } else {
            Terminal.out("objects       \(stats.objects) (\(ByteCount.format(stats.bytes)), \(stats.relocated) relocated)")
            Terminal.out(
                "partial jobs  \(stats.partialJobs) (\(ByteCount.format(stats.partialBytes)) held, "
                    + "\(ByteCount.format(stats.partialDiskBytes)) on disk)")
            Terminal.out("imports       \(stats.stagedImports) staged file\(stats.stagedImports == 1 ? "" : "s") (\(ByteCount.format(stats.stagedImportBytes)))")
            Terminal.out("cache         \(cache.directory.root)")
        }
    }
}

extension CacheMaintenance {
    /// Opens the cache for maintenance, turning failures into exit code 3.
    static func open(_ directory: CacheDirectory) throws -> CacheMaintenance {
        try CommandInputs.usingCache(directory) { try CacheMaintenance(directory: directory) }
    }
}
