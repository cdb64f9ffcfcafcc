import Foundation
import Synchronization

/// Publishes verified objects in groups: every object that becomes ready while a group
/// is being published joins the next one, which renames them all, fsyncs each directory
/// once and records them in one index transaction. Many small files then cost a few
/// fsyncs per group instead of several per file; a lone object is published at once.
final class CommitBatcher: Sendable {
    /// One object ready to appear: its verified bytes at `source`.
    struct Publication: Sendable {
        var source: String
        /// Set when the bytes are in a file with no name yet: it is linked, not renamed.
        var unnamed: DataFile?
        /// False when the bytes may still be only in the page cache: the group flushes
        /// the file system once before any of them is renamed.
        var durable: Bool
        var destination: String
        var object: CachedObject
        var aliases: [String]
        /// Removed once the object is recorded: the download it came from.
        var jobDirectory: String
    }

    private struct Waiting: Sendable {
        var publication: Publication
        var done: @Sendable (Result<Void, CacheError>) -> Void
    }

    private let index: CacheIndex
    private let queue = DispatchQueue(label: "mediacache.commits")
    /// Publications for the next group, and whether the queue is draining them.
    private let state = Mutex<(waiting: [Waiting], draining: Bool)>(([], false))

    init(index: CacheIndex) {
        self.index = index
    }

    /// Renames `publication` into place and records it; `done` runs (on the batcher's
    /// queue) once it is durable in both the file system and the index, or failed.
    func publish(_ publication: Publication, then done: @escaping @Sendable (Result<Void, CacheError>) -> Void) {
        let startDrain = state.withLock { state in
            state.waiting.append(Waiting(publication: publication, done: done))
            defer { state.draining = true }
            return !state.draining
        }
        if startDrain { queue.async { self.drain() } }
    }

    private func drain() {
        while true {
            let group = state.withLock { state in
                defer { state.waiting = [] }
                if state.waiting.isEmpty { state.draining = false }
                return state.waiting
            }
            if group.isEmpty { return }
            publishGroup(group)
        }
    }

    private func publishGroup(_ group: [Waiting]) {
        LoopThreads.preconditionOff("publishing objects")
        if let unsynced = group.first(where: { !$0.publication.durable }) {
            do throws(SystemError) {
                // partial/ always exists (a job's own directory may not).
                let partial = FileSystem.parent(of: unsynced.publication.jobDirectory)
                try FileSystem.syncFileSystem(containing: partial)
            } catch {
                for item in group { item.done(.failure(.io(error))) }
                return
            }
        }
        var renamed: [Waiting] = []
        var directories = Set<String>()
        for item in group {
            let directory = FileSystem.parent(of: item.publication.destination)
            do throws(SystemError) {
                // Many of a group's objects share a directory: it is made (or checked) once.
                if !directories.contains(directory) { try FileSystem.makeDirectory(directory, replacingLink: true) }
                if let file = item.publication.unnamed, !file.isNamed {
                    try file.link(as: item.publication.destination)
                } else {
                    try FileSystem.rename(item.publication.source, to: item.publication.destination)
                }
                directories.insert(directory)
                renamed.append(item)
            } catch {
                item.done(.failure(.io(error)))
            }
        }
        do throws(CacheError) {
            try syncDirectories(directories)
            try index.insert(renamed.map { ($0.publication.object, $0.publication.aliases) })
        } catch {
            for item in renamed { item.done(.failure(error)) }
            return
        }
        for item in renamed {
            if FileSystem.exists(item.publication.jobDirectory) { FileSystem.removeTree(item.publication.jobDirectory) }
            item.done(.success(()))
        }
    }

    /// Makes the renames into `directories` durable: one `syncfs` when they are many.
    private func syncDirectories(_ directories: Set<String>) throws(CacheError) {
        do throws(SystemError) {
            if directories.count > 2, let any = directories.first {
                try FileSystem.syncFileSystem(containing: any)
            } else {
                for directory in directories.sorted() { try FileSystem.syncDirectory(directory) }
            }
        } catch {
            throw .io(error)
        }
    }
}
