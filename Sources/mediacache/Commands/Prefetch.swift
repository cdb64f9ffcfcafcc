import ArgumentParser
import Foundation
import MediaCacheKit

struct Prefetch: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prefetch",
        abstract: "Download URLs and lists into the cache.",
        discussion: """
            Each argument is a URL (http:// or https://) or a list file; -i FILE names a \
            list too, as in aria2. With -d DIR (or dir= in a list) each finished file also \
            appears as DIR/NAME (with one URL, -o FILE names it): a hard link to the cached object on the same file system \
            (read-only: copy it to change it), else a copy, never a partial file; a name already taken becomes NAME.1.ext. A \
            streaming title appears as a folder DIR/NAME/ that plays offline. \
            A list is a file in aria2's input-file format (a URL line, then indented key=value \
            options: out=, dir=, header=, checksum=, cache-key=, user-agent=, referer=, \
            all-proxy=) or - for standard input. Running the same command again resumes \
            where the last run stopped. With --shard K/N, N machines (or runs) each take \
            a disjoint part of the same lists.

            Defaults for these options can be set in the config file (see `mediacache help \
            config`); the command line wins.
            """)

    @OptionGroup var lists: ListInputOptions

    @Option(
        name: [.short, .customLong("dir")],
        help: ArgumentHelp(
            "Also put each finished file in this folder, named by out=, the origin's name for it, or the URL (a list's dir= wins); the cache keeps it too.",
            valueName: "dir"),
        completion: .directory)
    var dir: String?

    @Option(
        name: [.short, .customLong("output"), .customLong("out")],
        help: ArgumentHelp(
            "Also put the file of the one URL given at this path, replacing a file there, as curl's -o does (relative to -d when given); the cache keeps it too.",
            valueName: "file"),
        completion: .file())
    var output: String?

    @Option(
        help: ArgumentHelp(
            "Take only shard K of N of the entries (by cache key), so N machines split one catalogue; e.g. 0/4.",
            valueName: "K/N"))
    var shard: String?

    @OptionGroup var cache: CacheOptions
    @OptionGroup var download: DownloadOptions
    @OptionGroup(title: "Network options") var network: NetworkOptions
    @OptionGroup(title: "Fleet tier") var tier: TierOptions
    @OptionGroup(title: "Streaming titles") var titles: TitleOptions

    func validate() throws {
        _ = try parsedShard()
    }

    /// The entry as its saved state keeps it for `resume`, which takes no list and may run
    /// without this command's options: its folder (`dir=`, else `-d`) made absolute (a
    /// resumed run may start elsewhere), and `--user-agent` and `--referer` unless it
    /// names its own (an origin that checks them refused the resumed requests).
    private func placed(_ entry: ListEntry, at output: OutputPath?) -> ListEntry {
        var entry = entry
        entry.userAgent = entry.userAgent ?? network.userAgent
        entry.referer = entry.referer ?? network.referer
        if let output {
            entry.directory = output.folder
            entry.outName = output.name
            entry.replacesFile = true
            return entry
        }
        guard let folder = entry.directory ?? dir else { return entry }
        entry.directory = folder.hasPrefix("/")
            ? folder : FileManager.default.currentDirectoryPath + "/" + folder
        return entry
    }

    private func parsedShard() throws -> Shard? {
        guard let shard else { return nil }
        do {
            return try Shard(parsing: shard)
        } catch {
            throw ValidationError("--shard: \(error)")
        }
    }

    func run() throws {
        // Not in `validate`: ArgumentParser validates before it reports an unknown option,
        // and `prefetch --bogus` would be "give at least one URL".
        if lists.isEmpty {
            throw ValidationError("give at least one URL or list file (or - for standard input)")
        }
        // Entries are parsed as jobs are started.
        let inputs = try lists.classified()
        let output = try output.map {
            try OutputPath($0, inputs: inputs, directory: dir, workingDirectory: FileManager.default.currentDirectoryPath)
        }
        // Found out before anything is fetched, not after (a list's dir= is its entry's).
        if let output, let problem = ObjectPlacement.problem(placingIn: output.folder) {
            throw ValidationError("-o \(self.output ?? ""): \(problem)")
        } else if output == nil, let dir, let problem = ObjectPlacement.problem(placingIn: dir) {
            throw ValidationError("-d \(dir): \(problem)")
        }
        let texts: [ListText]
        do {
            texts = try inputs.texts()
        } catch {
            SummaryPrinter.printRunFailure(error.message, code: "bad-list", json: download.json)
            throw ExitStatus.usage
        }
        let shard = try parsedShard()
        let entryLines = ListParser.entryLineCount(texts)
        let entries = ListEntries(texts, shard: shard, expectedEntries: entryLines)
        let streams = texts.compactMap(\.stream)
        // A stream's first entry may be long in coming: it is waited for in the run, where
        // Ctrl-C stops the reading and the run still ends with its summary.
        // What reading the first entry found is reported with the run's events.
        var early: [ListDiagnostic] = []
        var pending = streams.isEmpty ? entries.next { early.append($0) } : nil
        if streams.isEmpty && pending == nil && entries.errorCount == 0 {
            for problem in early { Terminal.err(problem.description) }
            if let shard {
                Terminal.err("mediacache: none of the \(entries.otherShardCount) entries is in shard \(shard); nothing to do")
            } else {
                Terminal.err("mediacache: the list has no URLs; nothing to do")
            }
            SummaryPrinter.printNothingToDo(json: download.json)
            return
        }
        defer {
            if let shard, !download.json, !download.quiet {
                Terminal.err("mediacache: shard \(shard): \(entries.otherShardCount) entries left to the other shards")
            }
        }
        let headers = download.headers
        try DownloadRun(cache: cache.directory, options: download, network: network, tier: tier, titles: titles).run(
            next: { report in
                early.forEach(report)
                early = []
                let entry = pending ?? entries.next { report($0) }
                pending = nil
                return entry.map { JobRequest(entry: placed($0, at: output), commandHeaders: headers) }
            },
            inputErrors: { entries.errorCount },
            // Without a shard or a stream, an estimate the run corrects once the lists are read.
            expectedFiles: shard == nil && streams.isEmpty ? entryLines : nil,
            stopReading: { streams.forEach { $0.stop() } })
    }
}
