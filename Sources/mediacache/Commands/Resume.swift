import ArgumentParser
import MediaCacheKit

struct Resume: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Continue every interrupted download recorded in the cache.",
        discussion: """
            Uses each job's saved URLs and headers; no list is needed. Proxy, cookies and \
            netrc logins are never saved: they come from this command line (and the \
            environment). Nothing to resume exits 0.
            """)

    @OptionGroup var cache: CacheOptions
    @OptionGroup var download: DownloadOptions

    func run() throws {
        let directory = cache.directory
        let run = DownloadRun(cache: directory, options: download)
        let exists: Bool
        do { exists = try directory.existsForReading() } catch { throw run.cacheUnusable(error) }
        let (jobs, problems) = exists ? PartialJobs.list(in: directory) : ([], [])
        for problem in problems { Terminal.err("mediacache: \(problem)") }
        if jobs.isEmpty {
            if !download.quiet && !download.json { Terminal.err("nothing to resume in \(directory.root)") }
            SummaryPrinter.printNothingToDo(json: download.json)
            return
        }
        let requests = jobs.map { JobRequest(entry: $0.state.entry, commandHeaders: $0.state.commandHeaders) }
        try run.run(requests, inputErrors: 0)
    }
}
