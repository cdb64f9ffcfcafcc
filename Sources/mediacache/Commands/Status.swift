import ArgumentParser
import MediaCacheKit

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List interrupted or partial downloads: URL, bytes done / total.")

    @OptionGroup var cache: CacheOptions

    @Flag(help: "Print one JSON object per job on stdout (JSON lines; nothing when no job is left).")
    var json = false

    func run() throws {
        guard try CommandInputs.cacheExists(cache.directory) else {
            if !json { Terminal.err("no interrupted downloads in \(cache.directory.root)") }
            return
        }
        let (jobs, problems) = PartialJobs.list(in: cache.directory)
        for problem in problems { Terminal.err("mediacache: \(problem)") }
        for job in jobs {
            let state = job.state
            if json {
                var fields: [String: Any] = ["url": URLCredentials.masked(state.entry.url), "key": job.key.hex, "bytes_done": state.bytesDone]
                if let length = state.length { fields["length"] = length }
                Terminal.out(JSONEvent.encode(fields))
            } else {
                let total = state.length.map { ByteCount.format($0) } ?? "?"
                let percent = state.length.map { $0 > 0 ? " (\(state.bytesDone * 100 / $0)%)" : "" } ?? ""
                Terminal.out("\(Printable.url(state.entry.url))  \(ByteCount.format(state.bytesDone)) / \(total)\(percent)")
            }
        }
        if jobs.isEmpty && !json { Terminal.err("no interrupted downloads in \(cache.directory.root)") }
    }
}
