import ArgumentParser
import Foundation
import MediaCacheKit

struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Re-hash cached objects against the index.",
        discussion: """
            Checks that each object's file exists and has the size and SHA-256 the index \
            records: every object, or the ones named. Exit 1 naming each bad object (missing \
            file, wrong size, wrong hash) or unknown name, also when --repair removed it (as \
            fsck says it corrected errors: a cron job hears that objects were lost); exit 0 \
            when all are intact.
            """)

    @Argument(help: ArgumentHelp("URLs, mirrors or cache keys (default: every object).", valueName: "url"))
    var urls: [String] = []

    @Flag(name: [.short, .long], help: "Print only problems.")
    var quiet = false

    @Flag(help: "Remove every bad object (index row and file) so the next prefetch fetches it again.")
    var repair = false

    @OptionGroup var cache: CacheOptions

    func run() throws {
        let verifier = try CommandInputs.usingCache(cache.directory) { try ObjectVerifier(directory: cache.directory) }
        let interrupt = SignalTrap(message: "stopping and removing temporary files")
        let line = ByteProgressLine(label: "verifying", enabled: Terminal.stderrIsTerminal && !quiet)
        let report: ObjectVerifier.Report
        do {
            report = try verifier.verify(
                names: urls, progress: { line.update(done: $0, total: $1) }, isCancelled: { interrupt.isSet })
        } catch is CancellationError {
            line.clear()
            Terminal.err("mediacache: verify interrupted")
            throw interrupt.exitStatus
        } catch {
            line.clear()
            Terminal.err("mediacache: cannot read the cache index at \(cache.directory.indexPath): \(error)")
            throw ExitStatus.cacheError
        }
        line.clear()
        var repaired = 0
        for finding in report.bad {
            if repair && finding.problem.isDamage {
                do {
                    try CacheMaintenance.open(cache.directory).remove(finding.name)
                    repaired += 1
                    Terminal.err("mediacache: removed bad object \(finding); prefetch it again to restore it")
                    continue
                } catch {
                    Terminal.err("mediacache: bad object \(finding); could not remove it: \(error)")
                    continue
                }
            }
            switch finding.problem {
            case .notCached: Terminal.err("mediacache: bad object \(finding)")
            case .unreadable:
                Terminal.err("mediacache: cannot check \(finding); left alone: fix the permissions or the disk and verify again")
            default:
                Terminal.err("mediacache: bad object \(finding); `mediacache verify --repair` removes it, then prefetch (or import) it again")
            }
        }
        if urls.isEmpty {
            let orphans: [String]
            do {
                orphans = try verifier.orphans()
            } catch {
                Terminal.err("mediacache: cannot read the cache index at \(cache.directory.indexPath): \(error)")
                throw ExitStatus.cacheError
            }
            for path in orphans {
                Terminal.err("mediacache: orphan \(cache.directory.absolute(path)) (not in the index; `mediacache gc` removes it)")
            }
        }
        if repair && repaired == report.bad.count && !report.bad.isEmpty {
            if !quiet { Terminal.out("\(report.verified) object\(report.verified == 1 ? "" : "s") verified, \(repaired) bad removed") }
            throw ExitStatus.someFailed
        }
        if report.bad.isEmpty {
            if !quiet {
                Terminal.out("\(report.verified) object\(report.verified == 1 ? "" : "s") verified (\(ByteCount.format(report.bytes)))")
            }
        } else {
            let unreadable = report.bad.filter { if case .unreadable = $0.problem { true } else { false } }.count
            let bad = report.bad.count - unreadable
            Terminal.err("\(report.verified) verified, \(bad) bad" + (unreadable > 0 ? ", \(unreadable) unreadable" : ""))
            throw ExitStatus.someFailed
        }
    }
}
