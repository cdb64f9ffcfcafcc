import Foundation
import Synchronization

/// Where a title resource's body goes: its file and its SHA-256, both off the loop
/// thread. The loop gathers what libcurl hands it into one block per pass (`append`,
/// flushed before the loop next waits) and a queue of the resource's own writes and
/// hashes it in order, so the file is never read back to be hashed and the loop thread
/// pays only for a copy. A player reading the file as it lands is told what is on disk
/// (`ArrivalNote`) from that queue, after each write.
///
/// On the loop thread but for what the queue runs (`ResourceWriter`).
final class ResourceSink {
    private let writer: ResourceWriter
    private let queue: DispatchQueue
    private let blocks: WriteBlocks
    private unowned let loop: TransferLoop
    private var block: [UInt8] = []
    /// Where the next block goes in the file.
    private var end: Int64
    private var flushScheduled = false
    /// Restarts asked for; the writer's count is this version's once it has caught up.
    private var version = 0

    /// `held`: the file's first bytes are the resource's already (a resume); they are
    /// hashed before anything written after them.
    init(file: DataFile, held: Int64, blocks: WriteBlocks, on loop: TransferLoop,
         notes: (@Sendable (TitleInProgress.ArrivalNote) -> Void)?) {
        writer = ResourceWriter(file: file, held: held, notes: notes)
        // Serial for the resource; the shared pool (not one thread per queue) runs it.
        queue = DispatchQueue(label: "mediacache.resource-writer", target: .global(qos: .utility))
        self.blocks = blocks
        self.loop = loop
        end = held
        if held > 0 { queue.async { [writer] in writer.hashHeld(held) } }
    }

    /// Bytes written and hashed: what a checkpoint may say the file holds. None while a
    /// restart is on its way, whose old bytes are not the new version's.
    var bytesOnDisk: Int64 { writer.bytesOnDisk(version: version) }

    /// A write failed: the transfer should stop (`finish` reports the error).
    var hasFailed: Bool { writer.hasFailed }

    /// The response carries the whole resource again: the file and the hash start over.
    func restart() {
        block = []
        end = 0
        version += 1
        queue.async { [writer, version] in writer.restart(version: version) }
    }

    /// Tells a player of the file, in order with the writes.
    func note(_ note: TitleInProgress.ArrivalNote) {
        queue.async { [writer] in writer.tell(note) }
    }

    /// Takes a copy of `bytes`, which follow those appended before.
    func append(_ bytes: UnsafeRawBufferPointer) {
        if block.count + bytes.count > WriteBlocks.size { flush() }
        if block.capacity == 0 { block = blocks.take() }
        block.append(contentsOf: bytes)
        if !flushScheduled {
            flushScheduled = true
            loop.beforeWaiting { [weak self] in
                self?.flushScheduled = false
                self?.flush()
            }
        }
    }

    /// Hands what was appended to the queue (waiting while the title has too many
    /// blocks on their way: `WriteBlocks`).
    private func flush() {
        guard !block.isEmpty else { return }
        let (bytes, offset) = (block, end)
        block = []
        end += Int64(bytes.count)
        blocks.send()
        queue.async { [writer, blocks] in
            writer.write(bytes, at: offset)
            blocks.written(bytes)
        }
    }

    /// After the last byte: `completion` gets the SHA-256 of the whole file (or the
    /// error that stopped a write), on the loop.
    func finish(_ completion: @escaping (Result<String, SystemError>) -> Void) {
        flush()
        let (loop, completion) = (loop, LoopBound(completion, loop: loop))
        queue.async { [writer] in
            let result = writer.finish()
            loop.post { completion.value(result) }
        }
    }
}

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

/// The queue's side of a `ResourceSink`: the file's writes and the running hash.
final class ResourceWriter: Sendable {
    private struct State {
        var digest = Digest(.sha256)
        var failure: SystemError?
    }

    private let file: DataFile
    private let notes: (@Sendable (TitleInProgress.ArrivalNote) -> Void)?
    private let state = Mutex(State())
    private let written: Atomic<Int64>
    /// The last restart done (`ResourceSink.version`).
    private let version = Atomic<Int>(0)
    private let failed = Atomic<Bool>(false)

    init(file: DataFile, held: Int64, notes: (@Sendable (TitleInProgress.ArrivalNote) -> Void)?) {
        self.file = file
        self.notes = notes
        written = Atomic(held)
    }

    func bytesOnDisk(version wanted: Int) -> Int64 {
        // The version first: a count read after it is that version's or a later write's.
        version.load(ordering: .acquiring) == wanted ? written.load(ordering: .acquiring) : 0
    }
    var hasFailed: Bool { failed.load(ordering: .relaxed) }

    func hashHeld(_ count: Int64) {
        LoopThreads.preconditionOff("hashing the held bytes of \(file.path)")
        state.withLock { state in
            do {
                try file.forEachBlock(length: count) { state.digest.update($0) }
            } catch {
                fail(&state, error as? SystemError ?? SystemError("read", path: file.path, code: EIO))
            }
        }
    }

    func restart(version next: Int) {
        notes?(.from(0))
        state.withLock { state in
            guard state.failure == nil else { return }
            do throws(SystemError) {
                try file.truncate(length: 0)
                state.digest = Digest(.sha256)
                written.store(0, ordering: .releasing)
                version.store(next, ordering: .releasing)
            } catch {
                fail(&state, error)
            }
        }
    }

    func tell(_ note: TitleInProgress.ArrivalNote) { notes?(note) }

    func write(_ bytes: [UInt8], at offset: Int64) {
        let upTo = state.withLock { state -> Int64? in
            guard state.failure == nil else { return nil }
            do throws(SystemError) {
                try file.write(bytes, at: offset)
            } catch {
                fail(&state, error)
                return nil
            }
            state.digest.update(bytes)
            written.store(offset + Int64(bytes.count), ordering: .releasing)
            return offset + Int64(bytes.count)
        }
        if let upTo { notes?(.wrote(upTo: upTo)) }
    }

    func finish() -> Result<String, SystemError> {
        state.withLock { state in
            if let failure = state.failure { return .failure(failure) }
            return .success(state.digest.finalizeHex())
        }
    }

    private func fail(_ state: inout State, _ error: SystemError) {
        state.failure = error
        failed.store(true, ordering: .relaxed)
    }
}
