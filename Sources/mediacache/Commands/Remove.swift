import ArgumentParser
import MediaCacheKit

struct Remove: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Remove objects (and any partial download of them) from the cache.")

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
                let freed = try maintenance.remove(url)
                Terminal.err("removed  \(url) (\(ByteCount.format(freed)))")
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
        abstract: "Clean orphans and evict least-recently-used objects down to a size.",
        discussion: """
            Removes files in objects/ without an index row, rows without a file and partial \
            jobs whose state cannot be read; then, with --max-size, evicts the objects used \
            longest ago (`path` counts as a use) until the cache fits.
            """)

    @Option(help: ArgumentHelp("Largest total size of the objects to keep (e.g. 20G).", valueName: "size"))
    var maxSize: String?

    @OptionGroup var cache: CacheOptions

    func validate() throws {
        if let maxSize, ByteCount.parse(maxSize) == nil {
            throw ValidationError("--max-size must be a size like 500M or 20G, got '\(maxSize)'")
        }
    }

    func run() throws {
        let maintenance = try CacheMaintenance.open(cache.directory)
        let report = try maintenance.collectGarbage(maxSize: maxSize.flatMap(ByteCount.parse))
        for url in report.evicted { Terminal.err("evicted  \(url)") }
        Terminal.err(
            "\(report.evicted.count) evicted, \(report.orphanFiles) orphan files, \(report.rowsWithoutFile) rows without a file, "
                + "\(report.unreadablePartialJobs) unreadable partial jobs removed; \(ByteCount.format(report.bytesFreed)) freed, "
                + "\(ByteCount.format(report.remainingBytes)) kept")
    }
}

struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show how many objects and bytes the cache holds.")

    @OptionGroup var cache: CacheOptions

    @Flag(help: "Print one JSON object on stdout.")
    var json = false

    func run() throws {
        let stats = try CacheMaintenance.open(cache.directory).statistics()
        if json {
            Terminal.out(
                JSONEvent.encode([
                    "objects": stats.objects, "bytes": stats.bytes, "relocated": stats.relocated,
                    "partial_jobs": stats.partialJobs, "partial_bytes": stats.partialBytes,
                ]))
        } else {
            Terminal.out("objects       \(stats.objects) (\(ByteCount.format(stats.bytes)), \(stats.relocated) relocated)")
            Terminal.out("partial jobs  \(stats.partialJobs) (\(ByteCount.format(stats.partialBytes)) held)")
            Terminal.out("cache         \(cache.directory.root)")
        }
    }
}

extension CacheMaintenance {
    /// Opens the cache for maintenance, turning failures into exit code 3.
    static func open(_ directory: CacheDirectory) throws -> CacheMaintenance {
        do {
            return try CacheMaintenance(directory: directory)
        } catch {
            Terminal.err("mediacache: cannot use the cache at \(directory.root): \(error)")
            throw ExitStatus.cacheError
        }
    }
}
