import Foundation
import Synchronization

/// Unnamed data files (`O_TMPFILE`) made ahead on a background queue. Allocating an inode
/// can take a millisecond on an ext4 that recently freed many, and a list of small files
/// starts a job every few hundred microseconds: the transfer thread should not wait for
/// it. Files never taken vanish with the process (they have no name).
final class SpareDataFiles: Sendable {
    private let directory: String
    private let target: Int
    private let queue = DispatchQueue(label: "mediacache.spare-data-files", qos: .userInitiated)
    private let state = Mutex(State())

    private struct State {
        var ready: [DataFile] = []
        var refilling = false
        /// The file system cannot make unnamed files: stop trying.
        var unsupported = false
    }

    /// Keeps up to `target` files ready in `directory`.
    init(directory: String, target: Int) {
        self.directory = directory
        self.target = target
        refill()
    }

    /// A file made ahead, to be named `path` when it is linked; nil when none is ready
    /// (the caller makes its own).
    func take(path: String) -> DataFile? {
        let file = state.withLock { $0.ready.popLast() }
        refill()
        file?.willBeNamed(path)
        return file
    }

    /// Starts making files once no more than half the target is left: a refill per
    /// file taken would wake a thread per file.
    private func refill() {
        let target = target
        let start = state.withLock { state in
            guard !state.refilling, !state.unsupported, state.ready.count <= target / 2 else { return false }
            state.refilling = true
            return true
        }
        guard start else { return }
        queue.async { [self] in
            while state.withLock({ $0.ready.count < target }) {
                guard let file = DataFile.unnamed(in: directory, path: directory) else {
                    state.withLock { $0.unsupported = true }
                    break
                }
                state.withLock { $0.ready.append(file) }
            }
            state.withLock { $0.refilling = false }
        }
    }
}
