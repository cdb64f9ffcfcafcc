import ArgumentParser
import Foundation
import MediaCacheKit

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "What `resume` would do; the last run's failures.",
        discussion: """
            Partial downloads show bytes done / total (a title's stopped pull from the tier \
            too); entries an interrupted run never started are listed as queued; failures \
            of the last prefetch or resume that had any are listed with their reason and \
            whether resume tries them again.
            """)

    @OptionGroup var cache: CacheOptions

    @Flag(
        help: """
            Print one JSON object per item on stdout (JSON lines), each with "state": \
            "partial", "queued" or "failed".
            """)
    var json = false

    func run() throws {
        let directory = cache.directory
        guard try CommandInputs.cacheExists(directory) else {
            if !json { Terminal.err("no interrupted downloads in \(directory.root)") }
            return
        }
        let (jobs, problems) = PartialJobs.list(in: directory)
        let pulls = PartialJobs.pulls(in: directory).filter { pull in !jobs.contains { $0.key == pull.key } }
        let saved = RunQueue.load(in: directory)
        for problem in problems + saved.problems { Terminal.err("mediacache: \(problem)") }
        let partialKeys = Set(jobs.map(\.key) + pulls.map(\.key))
        var queuedKeys = Set<CacheKey>()
        let queued = saved.requests.filter { !partialKeys.contains($0.key) && queuedKeys.insert($0.key).inserted }
        let failures = LastRunFailures.load(in: directory)
        for job in jobs {
            let state = job.state
            if json {
                var fields: [String: Any] = [
                    "state": "partial", "url": URLCredentials.masked(state.entry.url), "key": job.key.hex,
                    "name": state.entry.displayName, "bytes_done": state.bytesDone,
                ]
                if let length = state.length { fields["length"] = length }
                Terminal.out(JSONEvent.encode(fields))
            } else {
                let total = state.length.map { ByteCount.format($0) } ?? "?"
                let percent = state.length.map { $0 > 0 ? " (\(state.bytesDone * 100 / $0)%)" : "" } ?? ""
                Terminal.out("\(Printable.url(state.entry.displayName))  \(ByteCount.format(state.bytesDone)) / \(total)\(percent)")
            }
        }
        for pull in pulls {
            if json {
                Terminal.out(
                    JSONEvent.encode([
                        "state": "partial", "url": URLCredentials.masked(pull.url), "key": pull.key.hex,
                        "name": URLCredentials.masked(pull.url),
                        "bytes_done": pull.bytesHeld, "length": pull.length, "source": "tier",
                    ]))
            } else {
                let percent = pull.length > 0 ? " (\(pull.bytesHeld * 100 / pull.length)%)" : ""
                Terminal.out(
                    "\(Printable.url(URLCredentials.masked(pull.url)))  \(ByteCount.format(pull.bytesHeld)) / \(ByteCount.format(pull.length))\(percent) from the tier")
            }
        }
        for request in queued {
            if json {
                Terminal.out(
                    JSONEvent.encode([
                        "state": "queued", "url": URLCredentials.masked(request.entry.url), "key": request.key.hex,
                        "name": request.entry.displayName, "bytes_done": 0,
                    ]))
            } else {
                Terminal.out("\(Printable.url(request.entry.displayName))  not started")
            }
        }
        if let failures {
            if !json {
                Terminal.out("failed in the last run (\(Printable.name(failures.finishedAt)) UTC):")
            }
            for failure in failures.failures {
                // What was kept may be gone since (`rm`, `gc`, or nothing could be saved).
                let kept = failure.keptForResume
                    && (partialKeys.contains(CacheKey(identity: failure.url))
                        || jobs.contains { $0.state.entry.urls.map(URLCredentials.withoutPassword).contains(failure.url) })
                if json {
                    Terminal.out(
                        JSONEvent.encode([
                            "state": "failed", "url": failure.url, "code": failure.code, "reason": failure.message,
                            "kept_for_resume": kept,
                        ]))
                } else {
                    let next = kept ? "resume tries it again" : failure.keptForResume ? "no longer kept" : "not kept for resume"
                    Terminal.out("  \(Printable.url(failure.url)): \(Printable.name(failure.message, limit: 2000)) (\(next))")
                }
            }
        }
        if jobs.isEmpty && pulls.isEmpty && queued.isEmpty && !json {
            Terminal.err("no interrupted downloads in \(directory.root)")
        } else if !queued.isEmpty && !json {
            Terminal.err("\(queued.count) entr\(queued.count == 1 ? "y" : "ies") not started; `mediacache resume` fetches them")
        }
    }
}
