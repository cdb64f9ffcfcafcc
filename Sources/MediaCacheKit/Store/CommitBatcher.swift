import Foundation
import Synchronization

/// Publishes verified objects in groups: every object that becomes ready while a group
/// is being published joins the next one, which names them all and records them in one
/// index transaction. Many small files then cost a few flushes per group instead of
/// several per file; a lone object is published at once.
///
/// Power loss must never leave a name without its bytes, nor a row without its name: a
/// group's data is flushed before it is named, and its names before its rows are
/// written. One flush does both for consecutive groups: the flush before group k is
/// named also makes group k-1's names durable, whose rows are written next. A stream of
/// groups then costs one flush each, not two; the last group's names get a flush of
/// their own when nothing follows.
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

    /// Named objects whose rows wait for the flush that makes their names durable.
    private struct Named {
        var items: [Waiting] = []
        /// Where names were made: the objects' folders, and the folders holding any folder made.
        var directories = Set<String>()
    }

    private func drain() {
        var named = Named()
        while true {
            let group = state.withLock { state in
                defer { state.waiting = [] }
                if state.waiting.isEmpty && named.items.isEmpty { state.draining = false }
                return state.waiting
            }
            if group.isEmpty && named.items.isEmpty { return }
            let unsynced = group.contains { !$0.publication.durable }
            do throws(CacheError) {
                // One flush: this group's data, and the names of the group before it.
                if unsynced || named.directories.count > 2, let any = group.first ?? named.items.first {
                    try flushFileSystem(holding: any.publication.jobDirectory)
                } else {
                    try syncDirectories(named.directories)
                }
            } catch {
                for item in named.items + group { item.done(.failure(error)) }
                named = Named()
                continue
            }
            record(named.items)
            named = self.name(group)
        }
    }

    /// Names each object of `group` (its data is durable); what failed is told so.
    private func name(_ group: [Waiting]) -> Named {
        LoopThreads.preconditionOff("publishing objects")
        var named = Named()
        var made = Set<String>()
        for item in group {
            let directory = FileSystem.parent(of: item.publication.destination)
            do throws(SystemError) {
                // Many of a group's objects share a directory: it is made (or checked) once,
                // and its own name made durable with the rest (no fsync of its parent now).
                if made.insert(directory).inserted,
                    try FileSystem.makeDirectory(directory, durable: false, replacingLink: true)
                {
                    named.directories.insert(FileSystem.parent(of: directory))
                }
                if let file = item.publication.unnamed, !file.isNamed {
                    try file.link(as: item.publication.destination)
                } else {
                    try FileSystem.rename(item.publication.source, to: item.publication.destination)
                }
                named.directories.insert(directory)
                named.items.append(item)
            } catch {
                item.done(.failure(.io(error)))
            }
        }
        return named
    }

    /// Writes the rows of `items`, whose names are durable, and tells each it is done.
    private func record(_ items: [Waiting]) {
        guard !items.isEmpty else { return }
        do throws(CacheError) {
            try index.insert(items.map { ($0.publication.object, $0.publication.aliases) })
        } catch {
            for item in items { item.done(.failure(error)) }
            return
        }
        for item in items {
            if FileSystem.exists(item.publication.jobDirectory) { FileSystem.removeTree(item.publication.jobDirectory) }
            item.done(.success(()))
        }
    }

    /// Flushes the file system holding `jobDirectory`: the data written to it, and every
    /// name made on it.
    private func flushFileSystem(holding jobDirectory: String) throws(CacheError) {
        do throws(SystemError) {
            // partial/ always exists (a job's own directory may not).
            try FileSystem.syncFileSystem(containing: FileSystem.parent(of: jobDirectory))
        } catch {
            throw .io(error)
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
