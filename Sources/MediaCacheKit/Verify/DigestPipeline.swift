import Foundation
import Synchronization

/// Hashes a stream of blocks on a second thread while the caller goes on with each block
/// (writes it out, hands it to the compressor). On two cores SHA-256 then stops costing
/// wall time in `export` and `import`, where it used to be 40 % of the work on one thread.
///
/// One producer: `feed` must not be called from two threads at once. A block stays valid
/// for the hashing thread until it is hashed; the caller only ever reads it.
// @unchecked: one producer and the hashing thread share the buffers, handed over through `free`.
final class DigestPipeline: @unchecked Sendable {
    private let queue = DispatchQueue(label: "mediacache.digest-pipeline")
    private let buffers: [UnsafeMutableRawBufferPointer]
    private let available: DispatchSemaphore
    /// Slots of `buffers` the producer may fill.
    private let free: Mutex<[Int]>
    // Confined to `queue`.
    private var digests: [(DigestAlgorithm, Digest)] = []

    /// `depth` blocks of `blockSize` bytes: the caller can be that far ahead of hashing.
    init(blockSize: Int = 1 << 20, depth: Int = 4) {
        buffers = (0..<depth).map { _ in UnsafeMutableRawBufferPointer.allocate(byteCount: blockSize, alignment: 64) }
        available = DispatchSemaphore(value: depth)
        free = Mutex(Array(0..<depth))
    }

    // Blocks still being hashed hold the pipeline, so none is left when this runs.
    deinit {
        for buffer in buffers { buffer.deallocate() }
    }

    /// Starts a new stream, hashed with each of `algorithms`.
    func start(_ algorithms: Set<DigestAlgorithm>) {
        queue.sync { digests = algorithms.map { ($0, Digest($0)) } }
    }

    /// One block: `fill` puts up to a buffer's worth of bytes into the buffer it is given
    /// and returns how many (0: the stream has ended, and `feed` returns false). Those
    /// bytes are hashed on the pipeline's thread while `use` reads them on this one.
    func feed(
        fill: (UnsafeMutableRawBufferPointer) throws -> Int, use: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> Bool {
        available.wait()
        let slot = free.withLock { $0.removeLast() }
        let count: Int
        do {
            count = try fill(buffers[slot])
        } catch {
            release(slot)
            throw error
        }
        guard count > 0 else {
            release(slot)
            return false
        }
        let block = Block(bytes: UnsafeRawBufferPointer(rebasing: buffers[slot][0..<count]))
        queue.async { [self] in
            for (_, digest) in digests { digest.update(block.bytes) }
            release(slot)
        }
        try use(block.bytes)
        return true
    }

    /// Waits for every block fed so far and returns the stream's digests (lowercase hex).
    func finish() -> [DigestAlgorithm: String] {
        queue.sync {
            let result = Dictionary(uniqueKeysWithValues: digests.map { ($0.0, $0.1.finalizeHex()) })
            digests = []
            return result
        }
    }

    private func release(_ slot: Int) {
        free.withLock { $0.append(slot) }
        available.signal()
    }

    /// A filled buffer handed to the hashing thread; the producer does not write to it
    /// until the thread has released its slot.
    // @unchecked: written by the producer before the hand-over, read by the hasher after it.
    private struct Block: @unchecked Sendable {
        let bytes: UnsafeRawBufferPointer
    }
}
