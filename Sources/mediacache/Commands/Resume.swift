import ArgumentParser
import MediaCacheKit

struct Resume: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Finish interrupted runs, no list needed.",
        discussion: """
            Uses each job's saved URLs and headers; no list is needed. Proxy, cookies and \
            netrc logins are never saved: they come from this command line (and the \
            environment). Nothing to resume exits 0.
            """)

    @OptionGroup var cache: CacheOptions
    @OptionGroup var download: DownloadOptions
    @OptionGroup(title: "Network options") var network: NetworkOptions
    @OptionGroup(title: "Fleet tier") var tier: TierOptions
    @OptionGroup(title: "Streaming titles") var titles: TitleOptions

    func run() throws {
        let directory = cache.directory
        let run = DownloadRun(cache: directory, options: download, network: network, tier: tier, titles: titles)
        let exists: Bool
        do { exists = try directory.existsForReading() } catch { throw run.cacheUnusable(error) }
        let (jobs, problems) = exists ? PartialJobs.list(in: directory) : ([], [])
        let saved = exists ? RunQueue.load(in: directory) : RunQueue.Saved()
        for problem in problems + saved.problems { Terminal.err("mediacache: \(problem)") }
        // Interrupted downloads first, then what the interrupted runs never started
        // (each once: a saved entry may have started since, in another run).
        var requests = jobs.map { JobRequest(entry: $0.state.entry, commandHeaders: $0.state.commandHeaders) }
        var seen = Set(jobs.map(\.key))
        for request in saved.requests where seen.insert(request.key).inserted {
            requests.append(request)
        }
        if requests.isEmpty {
            RunQueue.remove(saved.files)
            if !download.quiet && !download.json { Terminal.err("nothing to resume in \(directory.root)") }
            SummaryPrinter.printNothingToDo(json: download.json)
            return
        }
        try run.run(requests, inputErrors: 0, savedQueues: saved.files)
    }
}
