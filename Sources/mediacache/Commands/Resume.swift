import ArgumentParser
import MediaCacheKit

struct Resume: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Continue every interrupted download recorded in the cache.",
        discussion: "Uses each job's saved URLs and headers; no list is needed. Nothing to resume exits 0.")

    @OptionGroup var cache: CacheOptions
    @OptionGroup var download: DownloadOptions

    func run() throws {
        let directory = cache.directory
        let (jobs, problems) = try CommandInputs.cacheExists(directory) ? PartialJobs.list(in: directory) : ([], [])
        for problem in problems { Terminal.err("mediacache: \(problem)") }
        if jobs.isEmpty {
            if !download.quiet && !download.json { Terminal.err("nothing to resume in \(directory.root)") }
            SummaryPrinter.printNothingToDo(json: download.json)
            return
        }
        let requests = jobs.map { JobRequest(entry: $0.state.entry, commandHeaders: $0.state.commandHeaders) }
        try DownloadRun(cache: directory, options: download).run(requests, inputErrors: 0)
    }
}
