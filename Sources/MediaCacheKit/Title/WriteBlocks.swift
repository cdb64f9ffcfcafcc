import Foundation
import Synchronization

/// A title's write blocks. At most 32 (8 MiB) are on their way to the queues: past
/// that the loop thread waits for the disk, as it did when it wrote itself. Written
/// blocks are kept for reuse: a 256 KiB allocation on the loop thread and its release
/// on a writer's contend for malloc's arena lock, which the loop was found waiting on
/// more often than on its sockets.
final class WriteBlocks: Sendable {
    /// A block is handed over at this size even within one pass of the loop.
    static let size = 256 << 10
    private static let kept = 40
    private let onTheirWay = DispatchSemaphore(value: 32)
    private let spare = Mutex<[[UInt8]]>([])

    /// An empty block with room for `size` bytes.
    func take() -> [UInt8] {
        var block = spare.withLock { $0.popLast() } ?? []
        block.removeAll(keepingCapacity: true)
        block.reserveCapacity(Self.size)
        return block
    }

    /// Before a block goes to a queue: waits while too many are on their way.
    func send() { onTheirWay.wait() }

    /// `block` is written (on its queue): it may be reused.
    func written(_ block: [UInt8]) {
        spare.withLock { spare in
            if spare.count < Self.kept { spare.append(block) }
        }
        onTheirWay.signal()
    }
}
