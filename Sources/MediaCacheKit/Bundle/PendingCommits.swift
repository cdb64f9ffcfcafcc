import Foundation

/// An imported object on its way into the cache: its temporary file (or a title's
/// folder) and job lock are kept until the batcher has published it (or failed to).
struct PendingCommit {
    let entry: BundleManifest.Entry
    /// The object's temporary file, or the title's staging folder.
    let staged: StagedObject?
    var stagedTitle: StagedTitle? = nil
    let lock: KeyLock?
    let relativePath: String
    /// The file of the version `--replace` took out of the index.
    let replacedPath: String?
}

/// Objects handed to the `CommitBatcher` and not yet reported; the importing thread
/// picks up the finished ones between entries, so events stay on that thread. Only the
/// list of finished ids is shared with the batcher's queue.
final class PendingCommits {
    private let outstanding = DispatchGroup()
    private let finished = LockedValue<[(Int, Result<Void, CacheError>)]>([])
    private var waiting: [Int: PendingCommit] = [:]
    private var nextID = 0

    func submit(_ commit: PendingCommit, _ publication: CommitBatcher.Publication, to batcher: CommitBatcher) {
        nextID += 1
        let id = nextID
        waiting[id] = commit
        outstanding.enter()
        batcher.publish(publication) { [finished, outstanding] result in
            finished.withLock { $0.append((id, result)) }
            outstanding.leave()
        }
    }

    /// The commits finished so far, without waiting.
    func takeFinished() -> [(PendingCommit, Result<Void, CacheError>)] {
        let done = finished.withLock { finished in
            defer { finished = [] }
            return finished
        }
        return done.compactMap { id, result in waiting.removeValue(forKey: id).map { ($0, result) } }
    }

    /// Waits until every submitted commit has finished, and returns those not taken yet.
    func waitForAll() -> [(PendingCommit, Result<Void, CacheError>)] {
        outstanding.wait()
        return takeFinished()
    }
}
