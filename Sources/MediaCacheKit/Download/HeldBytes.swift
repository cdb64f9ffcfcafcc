import Foundation

/// What of one download's data readers may read, published by the transfer thread as
/// writes land and waited on by readers on their own threads (woken by the writes, never
/// by polling).
///
/// Each version of the data is a generation: when the download starts its data over (the
/// origin changed, or mishandled Range), the generation moves on before a byte is
/// overwritten, and a reader of the old one is told so instead of reading a splice.
final class HeldBytes: @unchecked Sendable {
    /// One version of the data, as a reader sees it.
    struct Snapshot {
        let file: DataFile
        let generation: Int
        let length: Int64?
        let about: DownloadData
    }

    private let lock = NSLock()
    private var file: DataFile?
    private var generation = 0
    private var held = RangeSet()
    private var length: Int64?
    private var about = DownloadData(length: nil, contentType: nil, originVersion: nil)
    /// Set once, when the download ends: readers of its bytes can still read them.
    private var result: DownloadResult?
    private var waiters: [Waiter] = []
    private var nextWaiterID = 0

    private struct Waiter {
        let id: Int
        let offset: Int64
        let reading: Snapshot?
        let continuation: CheckedContinuation<Availability, Error>
    }

    /// Bytes readable at once from an offset.
    struct Availability {
        let snapshot: Snapshot
        /// From the offset to the end of what is held there; empty at the end of the file.
        let range: ByteRange
    }

    // MARK: The transfer thread

    /// The download holds `completed` of `file` for data of `length` bytes (nil: unknown
    /// until the stream ends). Called when a response is accepted, before any write.
    func publish(file: DataFile, completed: RangeSet, about: DownloadData) {
        let woken = lock.withLock {
            self.file = file
            self.about = about
            length = about.length
            held = completed
            return takeSatisfiedWaiters()
        }
        resume(woken)
    }

    /// The data is about to be started over: readers of the current version stop.
    func startOver() {
        let woken = lock.withLock {
            generation += 1
            held = RangeSet()
            length = nil
            file = nil
            return takeSatisfiedWaiters()
        }
        resume(woken)
    }

    func didWrite(_ range: ByteRange) {
        let woken: [(Waiter, Result<Availability, Error>)] = lock.withLock {
            held.insert(range)
            guard !waiters.isEmpty else { return [] }
            return takeSatisfiedWaiters()
        }
        resume(woken)
    }

    /// A stream of unknown length ended: its length is what it held.
    func didLearnLength(_ length: Int64) {
        let woken = lock.withLock {
            self.length = length
            return takeSatisfiedWaiters()
        }
        resume(woken)
    }

    /// The download ended: the data file is let go (readers that read it keep it open).
    func finish(_ result: DownloadResult) {
        let woken = lock.withLock {
            self.result = result
            file = nil
            return takeSatisfiedWaiters()
        }
        resume(woken)
    }

    // MARK: Readers

    /// Waits until bytes from `offset` are on disk, or the end of the file is reached
    /// there: of the version `reading` (nil: whichever comes). A negative offset waits
    /// only for the data to be published (its length known, if the origin gave one).
    func available(from offset: Int64, reading: Snapshot?) async throws -> Availability {
        let id = lock.withLock {
            nextWaiterID += 1
            return nextWaiterID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ready: Result<Availability, Error>? = lock.withLock {
                    let waiter = Waiter(id: id, offset: offset, reading: reading, continuation: continuation)
                    if let ready = answer(waiter) { return ready }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    waiters.append(waiter)
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let cancelled = lock.withLock {
                let index = waiters.firstIndex { $0.id == id }
                return index.map { waiters.remove(at: $0) }
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Whether `generation` is still the data on disk: a read is checked after it ran, so
    /// bytes overwritten during the read are never handed on.
    func isCurrent(_ generation: Int) -> Bool {
        lock.withLock { self.generation == generation }
    }

    /// Bytes held now, and the length if known.
    var progress: (held: Int64, length: Int64?) { lock.withLock { (held.byteCount, length) } }

    /// Whether the bytes at `offset` are held now (no wait needed).
    func holds(_ offset: Int64) -> Bool {
        lock.withLock { held.contains(ByteRange(offset, offset + 1)) }
    }

    // MARK: Waking

    /// Called with the lock held: removes and answers every waiter that can be answered.
    private func takeSatisfiedWaiters() -> [(Waiter, Result<Availability, Error>)] {
        var woken: [(Waiter, Result<Availability, Error>)] = []
        waiters.removeAll { waiter in
            guard let answer = answer(waiter) else { return false }
            woken.append((waiter, answer))
            return true
        }
        return woken
    }

    /// Called with the lock held: nil while the waiter must wait.
    private func answer(_ waiter: Waiter) -> Result<Availability, Error>? {
        if let reading = waiter.reading, reading.generation != generation {
            return .failure(ReaderError.dataStartedOver)
        }
        // After the end, a reader of the data keeps reading its own open file.
        if let file = file ?? waiter.reading?.file {
            var known = about
            known.length = length
            let snapshot = Snapshot(file: file, generation: generation, length: length, about: known)
            if waiter.offset < 0 { return .success(Availability(snapshot: snapshot, range: ByteRange(0, 0))) }
            if let length, waiter.offset >= length {
                return .success(Availability(snapshot: snapshot, range: ByteRange(length, length)))
            }
            if let run = held.ranges.first(where: { $0.start <= waiter.offset && waiter.offset < $0.end }) {
                return .success(Availability(snapshot: snapshot, range: ByteRange(waiter.offset, run.end)))
            }
        }
        switch result {
        case nil: return nil
        case .failed(let failure): return .failure(failure)
        case .interrupted: return .failure(ReaderError.interrupted)
        // Committed or cached without these bytes in this run's file: read the object.
        case .committed(let object), .alreadyCached(let object): return .failure(ReaderError.cached(object))
        }
    }

    private func resume(_ woken: [(Waiter, Result<Availability, Error>)]) {
        for (waiter, result) in woken { waiter.continuation.resume(with: result) }
    }
}

/// What a reader knows of the data it reads, once the download has it.
public struct DownloadData: Sendable, Equatable {
    /// Nil while unknown (a stream without a length, until it ends).
    public var length: Int64?
    /// The origin's Content-Type.
    public var contentType: String?
    /// The origin's ETag, else its Last-Modified: names this version of the bytes.
    public var originVersion: String?
    /// The SHA-256 the bytes will be stored under, when known before they are all held
    /// (a copy from the tier, checked against it).
    public var storedSHA256: String? = nil
}

/// One download as a status page shows it.
public struct DownloadProgress: Sendable {
    public var url: String
    public var bytesHeld: Int64
    public var length: Int64?
}

/// Why a reader's wait ended without bytes (besides the download's own failure).
public enum ReaderError: Error, CustomStringConvertible {
    /// The download started its data over (a new version): bytes already read would not
    /// match what follows.
    case dataStartedOver
    /// The download stopped (shutdown) before these bytes arrived.
    case interrupted
    /// The object is in the cache; read it there.
    case cached(CachedObject)

    public var description: String {
        switch self {
        case .dataStartedOver: "the file changed on the origin while it was being read"
        case .interrupted: "the download was stopped before these bytes arrived"
        case .cached(let object): "the file is cached at \(object.path)"
        }
    }
}
