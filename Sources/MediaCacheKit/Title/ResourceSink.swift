import Foundation

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

    /// A new file at `path`, or an old one emptied, on the queue: creating a file costs
    /// the file system a journal entry, which is not the loop thread's to wait for.
    convenience init(creating path: String, blocks: WriteBlocks, on loop: TransferLoop,
                     notes: (@Sendable (TitleInProgress.ArrivalNote) -> Void)?) {
        self.init(writer: ResourceWriter(path: path, file: nil, held: 0, notes: notes), blocks: blocks, on: loop)
        queue.async { [writer] in writer.create() }
    }

    /// `held`: the first bytes of `file` are the resource's already (a resume); they are
    /// hashed before anything written after them.
    convenience init(continuing file: DataFile, held: Int64, blocks: WriteBlocks, on loop: TransferLoop,
                     notes: (@Sendable (TitleInProgress.ArrivalNote) -> Void)?) {
        self.init(writer: ResourceWriter(path: file.path, file: file, held: held, notes: notes), blocks: blocks, on: loop)
        end = held
        queue.async { [writer] in writer.hashHeld(held) }
    }

    /// A piece of the file at `path` from `offset` on: written where it belongs, beside
    /// the other pieces, and not hashed.
    convenience init(pieceOf path: String, at offset: Int64, blocks: WriteBlocks, on loop: TransferLoop,
                     notes: (@Sendable (TitleInProgress.ArrivalNote) -> Void)?) {
        self.init(
            writer: ResourceWriter(path: path, file: nil, held: offset, isPiece: true, notes: notes), blocks: blocks, on: loop)
        end = offset
        queue.async { [writer] in writer.open() }
    }

    private init(writer: ResourceWriter, blocks: WriteBlocks, on loop: TransferLoop) {
        self.writer = writer
        // Serial for the resource; the shared pool (not one thread per queue) runs it.
        queue = DispatchQueue(label: "mediacache.resource-writer", target: .global(qos: .utility))
        self.blocks = blocks
        self.loop = loop
        end = 0
    }

    /// Where the bytes written (and hashed) end: what a checkpoint may say the file holds
    /// (a piece's: from its start). None while a restart is on its way, whose old bytes
    /// are not the new version's.
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

    /// The response carries the whole resource again, maybe of another version: its
    /// bytes are compared with those on disk, and the file changes only from where they
    /// differ (`ResourceWriter.recompare`).
    func restartComparing() {
        block = []
        end = 0
        version += 1
        queue.async { [writer, version] in writer.recompare(version: version) }
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

    /// After the last byte: `completion` gets the SHA-256 of the whole file (nil for a
    /// piece), or the error that stopped a write, on the loop.
    func finish(_ completion: @escaping (Result<String?, SystemError>) -> Void) {
        flush()
        let (loop, completion) = (loop, LoopBound(completion, loop: loop))
        queue.async { [writer] in
            let result = writer.finish()
            loop.post { completion.value(result) }
        }
    }
}
