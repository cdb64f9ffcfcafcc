import Foundation
import MediaCacheKit
import Synchronization

/// What the tier's side of a run prints: for `push` and `--tier-push` a line per object
/// (`pushed`, `in tier`, `FAILED`) on stderr, or NDJSON events on stdout, and a summary;
/// for every command that uses the tier, the one warning that it cannot be used.
final class TierPrinter: Sendable {
    private let json: Bool
    private let quiet: Bool
    /// What the run does with the tier, for the warning that it cannot be used.
    private let reads: Bool
    private let pushes: Bool
    private let counts = Mutex(Counts())

    private struct Counts {
        var uploaded = 0
        var uploadedBytes: Int64 = 0
        var alreadyThere = 0
        var failed = 0
        var stoppedReason: String?
    }

    init(json: Bool, quiet: Bool, reads: Bool = false, pushes: Bool = true) {
        self.json = json
        self.quiet = quiet
        self.reads = reads
        self.pushes = pushes
    }

    /// Some object was not pushed: it failed, was not cached, or the tier stopped.
    var hadFailures: Bool { counts.withLock { $0.failed > 0 || $0.stoppedReason != nil } }

    @Sendable func handle(_ event: TierPusher.Event) {
        switch event {
        case .pushed(let object, let sent):
            counts.withLock { counts in
                if sent {
                    counts.uploaded += 1
                    counts.uploadedBytes += object.size
                } else {
                    counts.alreadyThere += 1
                }
            }
            if json {
                Terminal.out(
                    JSONEvent.encode([
                        "event": "pushed", "url": object.url, "key": object.key, "sha256": object.sha256,
                        "size": object.size, "uploaded": sent,
                    ]))
            } else if !quiet {
                Terminal.err(sent ? "pushed   \(Self.name(object)) (\(ByteCount.format(object.size)))" : "in tier  \(Self.name(object))")
            }
        case .failed(let object, let error):
            counts.withLock { $0.failed += 1 }
            if json {
                Terminal.out(JSONEvent.encode(["event": "push-failed", "url": object.url, "key": object.key, "reason": "\(error)"]))
            } else {
                Terminal.err("FAILED   push of \(Self.name(object)): \(error)")
            }
        case .stopped(let error):
            stopped(error)
        }
    }

    /// The tier cannot be used at all: said once, whoever finds it first (a lookup, a
    /// download, an upload).
    @Sendable func stopped(_ error: Error) {
        let first = counts.withLock { counts in
            defer { if counts.stoppedReason == nil { counts.stoppedReason = "\(error)" } }
            return counts.stoppedReason == nil
        }
        guard first else { return }
        if json {
            Terminal.out(JSONEvent.encode(["event": "tier-unusable", "reason": "\(error)"]))
        } else {
            var consequences: [String] = []
            if reads { consequences.append("files come from the origin") }
            if pushes { consequences.append("what was not pushed is pushed by the next push") }
            Terminal.err((["mediacache: the tier cannot be used: \(error)"] + consequences).joined(separator: "; "))
        }
    }

    func notCached(_ name: String) {
        counts.withLock { $0.failed += 1 }
        if json {
            Terminal.out(JSONEvent.encode(["event": "push-failed", "url": name, "reason": "not cached"]))
        } else {
            Terminal.err("mediacache: not cached: \(Printable.url(name))")
        }
    }

    func summary(interrupted: Bool) {
        let (uploaded, bytes, already, failed, stopped) = counts.withLock {
            ($0.uploaded, $0.uploadedBytes, $0.alreadyThere, $0.failed, $0.stoppedReason != nil)
        }
        if json {
            Terminal.out(
                JSONEvent.encode([
                    "event": "push-summary", "uploaded": uploaded, "bytes_uploaded": bytes, "already_in_tier": already,
                    "failed": failed, "tier_unusable": stopped, "interrupted": interrupted,
                ]))
            return
        }
        var line = "pushed \(uploaded) object\(uploaded == 1 ? "" : "s") (\(ByteCount.format(bytes))), \(already) already in the tier"
        if failed > 0 { line += ", \(failed) failed" }
        if interrupted { line += "; interrupted, the rest is pushed by the next push" }
        Terminal.err(line)
    }

    private static func name(_ object: CachedObject) -> String {
        Printable.url(object.name ?? (object.url.isEmpty ? object.key : object.url))
    }
}
