import ArgumentParser
import MediaCacheKit

struct Resume: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Finish interrupted runs, no list needed.",
        discussion: """
            Uses each job's saved URLs, headers, user agent and referer (the first run's \
            --user-agent and --referer win over this command's); no list is needed. Proxy, cookies and netrc logins are never saved: they come from this command line (and the \
            environment). A title whose pull from the tier stopped goes on when a tier is \
            named (--tier or MEDIACACHE_TIER). Nothing to resume exits 0.
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
        requests += try stoppedPulls(exists ? PartialJobs.pulls(in: directory) : [], requested: seen, in: directory)
        if requests.isEmpty {
            RunQueue.remove(saved.files)
            if !download.quiet && !download.json { Terminal.err("nothing to resume in \(directory.root)") }
            SummaryPrinter.printNothingToDo(json: download.json)
            return
        }
        try run.run(requests, inputErrors: 0, savedQueues: saved.files)
    }

    /// Titles whose pull from the tier stopped with no saved entry (`kill -9`, or a
    /// `pull`), named again by the tier's records, so the run goes on from what they
    /// kept. Without a tier named, or without a record now, each is a line saying what
    /// happens instead; so is a stopped pull whose entry was saved (it goes to the origin).
    private func stoppedPulls(
        _ pulls: [PartialJobs.Pull], requested: Set<CacheKey>, in directory: CacheDirectory
    ) throws -> [JobRequest] {
        guard !pulls.isEmpty else { return [] }
        func stopped(_ pull: PartialJobs.Pull) -> String {
            "mediacache: \(Printable.url(URLCredentials.masked(pull.url))): its pull from the tier stopped at "
                + "\(ByteCount.format(pull.bytesHeld)) of \(ByteCount.format(pull.length))"
        }
        guard tier.location.locationText != nil else {
            for pull in pulls {
                Terminal.err(
                    stopped(pull)
                        + (requested.contains(pull.key)
                            ? "; with no tier named it is fetched from the origin (--tier or MEDIACACHE_TIER goes on from what it kept)"
                            : "; name the tier (--tier or MEDIACACHE_TIER) to go on"))
            }
            return []
        }
        let unrequested = pulls.filter { !requested.contains($0.key) }
        guard !unrequested.isEmpty else { return [] }
        let store = try tier.location.store(for: directory, verifyTLS: !download.insecure)
        return unrequested.compactMap { pull in
            do {
                if let entry = try store.record(for: pull.key)?.listEntry() { return JobRequest(entry: entry) }
                Terminal.err(stopped(pull) + ", and the tier has no record of it now; `mediacache rm` removes what it kept")
            } catch {
                Terminal.err(stopped(pull) + ", and the tier cannot be read: \(error)")
            }
            return nil
        }
    }
}
