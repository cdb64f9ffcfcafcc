import Foundation

/// Unnamed data files (`O_TMPFILE`) made ahead on a background queue. Allocating an inode
/// can take a millisecond on an ext4 that recently freed many, and a list of small files
/// starts a job every few hundred microseconds: the transfer thread should not wait for
/// it. Files never taken vanish with the process (they have no name).
final class SpareDataFiles: @unchecked Sendable {
    private let directory: String
    private let target: Int
    private let queue = DispatchQueue(label: "mediacache.spare-data-files", qos: .userInitiated)
    private let lock = NSLock()
    private var ready: [DataFile] = []
    private var refilling = false
    /// The file system cannot make unnamed files: stop trying.
    private var unsupported = false

    /// Keeps up to `target` files ready in `directory`.
    init(directory: String, target: Int) {
        self.directory = directory
        self.target = target
        refill()
    }

    /// A file made ahead, to be named `path` when it is linked; nil when none is ready
    /// (the caller makes its own).
    func take(path: String) -> DataFile? {
        let file = lock.withLock { ready.popLast() }
        refill()
        file?.willBeNamed(path)
        return file
    }

    private func refill() {
        let start = lock.withLock {
            guard !refilling, !unsupported, ready.count < target else { return false }
            refilling = true
            return true
        }
        guard start else { return }
        queue.async { [self] in
            while lock.withLock({ ready.count < target }) {
                guard let file = DataFile.unnamed(in: directory, path: directory) else {
                    lock.withLock { unsupported = true }
                    break
                }
                lock.withLock { ready.append(file) }
            }
            lock.withLock { refilling = false }
        }
    }
}
