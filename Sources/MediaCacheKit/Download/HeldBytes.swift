import Foundation
import Synchronization

/// What of one download's data readers may read, published by the transfer thread as
/// writes land and waited on by readers on their own threads (woken by the writes, never
/// by polling).
///
/// Each version of the data is a generation: when the download starts its data over (the
/// origin changed, or mishandled Range), the generation moves on before a byte is
/// overwritten, and a reader of the old one is told so instead of reading a splice.
final class HeldBytes: Sendable {
    /// One version of the data, as a reader sees it.
    struct Snapshot: Sendable {
        let file: DataFile
        let generation: Int
        let length: Int64?
        let about: DownloadData
        /// Asked after every read when the file is another process's (`ForeignDownload`):
        /// whether the bytes read are still of this version.
        let stillHeld: (@Sendable () -> Bool)?
    }

    private let state = Mutex(State())

    private struct State {
        var file: DataFile?
        var generation = 0
        var held = RangeSet()
        var length: Int64?
        var about = DownloadData(length: nil, contentType: nil, originVersion: nil)
        var stillHeld: (@Sendable () -> Bool)?
        /// Tells this download's bytes from another download's of the same URL.
        let nonce = UniqueNumber.next()
        /// Set once, when the download ends: readers of its bytes can still read them.
        var result: DownloadResult?
        /// Set when the download turned out to be a streaming title and planned it:
        /// readers read its files instead.
        var title: TitleInProgress?
        var waiters: [Waiter] = []
        var nextWaiterID = 0
        /// A reader was given bytes (of this version or an earlier one): whoever read the
        /// origin's layout (an MP4's moov where it put it) may ask for more of the same
        /// after the commit.
        var readersServed = false
        /// The commit chose a layout no reader has seen (`sealLayout`): new readers wait
        /// for the object instead of starting on the data file.
        var sealed = false
        /// The origin said to come back later (503, 429) before any data was published:
        /// readers hear so at once, rather than wait out the backoff.
        var refusal: OriginBusy?

        /// Removes and answers every waiter that can be answered.
        mutating func takeSatisfiedWaiters() -> [(Waiter, Result<Availability, Error>)] {
            var woken: [(Waiter, Result<Availability, Error>)] = []
            var waiting: [Waiter] = []
            for waiter in waiters {
                if let answer = answer(waiter) { woken.append((waiter, answer)) } else { waiting.append(waiter) }
            }
            waiters = waiting
            if woken.contains(where: { Self.servesBytes($0.0, $0.1) }) { readersServed = true }
            return woken
        }

        /// Whether `answer` gives `waiter` bytes (a wait with a negative offset asks only
        /// what the data is, as a HEAD does).
        static func servesBytes(_ waiter: Waiter, _ answer: Result<Availability, Error>) -> Bool {
            if case .success = answer { waiter.offset >= 0 } else { false }
        }

        /// Nil while the waiter must wait.
        func answer(_ waiter: Waiter) -> Result<Availability, Error>? {
            if let title { return .failure(ReaderError.title(title)) }
            if let reading = waiter.reading, reading.generation != generation {
                return .failure(ReaderError.dataStartedOver)
            }
            // After the end, a reader of the data keeps reading its own open file; once
            // the layout is sealed, only a reader already reading it.
            if let file = sealed ? waiter.reading?.file : file ?? waiter.reading?.file {
                var known = about
                known.length = length
                known.dataVersion = "\(nonce).\(generation)"
                let snapshot = Snapshot(file: file, generation: generation, length: length, about: known, stillHeld: stillHeld)
                if waiter.offset < 0 { return .success(Availability(snapshot: snapshot, range: ByteRange(0, 0))) }
                if let length, waiter.offset >= length {
                    return .success(Availability(snapshot: snapshot, range: ByteRange(length, length)))
                }
                if let run = held.ranges.first(where: { $0.start <= waiter.offset && waiter.offset < $0.end }) {
                    return .success(Availability(snapshot: snapshot, range: ByteRange(waiter.offset, run.end)))
                }
            }
            if result == nil, file == nil, waiter.reading == nil, let refusal { return .failure(ReaderError.originBusy(refusal)) }
            switch result {
            case nil: return nil
            case .failed(let failure): return .failure(failure)
            case .interrupted: return .failure(ReaderError.interrupted)
            // Committed or cached without these bytes in this run's file: read the object.
            case .committed(let object), .alreadyCached(let object): return .failure(ReaderError.cached(object))
            }
        }
    }

    private struct Waiter {
        let id: Int
        let offset: Int64
        let reading: Snapshot?
        let continuation: CheckedContinuation<Availability, Error>
    }

    /// Bytes readable at once from an offset.
    struct Availability: Sendable {
        let snapshot: Snapshot
        /// From the offset to the end of what is held there; empty at the end of the file.
        let range: ByteRange
    }

    private typealias Woken = [(Waiter, Result<Availability, Error>)]

    // MARK: The transfer thread

    /// The download holds `completed` of `file` for data of `length` bytes (nil: unknown
    /// until the stream ends). Called when a response is accepted, before any write.
    /// `stillHeld`: for another process's file, whether bytes read from it are still
    /// this version's (asked after each read).
    func publish(file: DataFile, completed: RangeSet, about: DownloadData, stillHeld: (@Sendable () -> Bool)? = nil) {
        changing { state in
            state.refusal = nil
            state.file = file
            state.stillHeld = stillHeld
            state.sealed = false
            state.about = about
            state.length = about.length
            state.held = completed
        }
    }

    /// The data is about to be started over: readers of the current version stop, and
    /// the new version is one no reader has read (its layout may still be relocated).
    func startOver() {
        changing { state in
            state.refusal = nil
            state.readersServed = false
            state.generation += 1
            state.sealed = false
            state.held = RangeSet()
            state.length = nil
            state.file = nil
            state.stillHeld = nil
        }
    }

    /// The download is a streaming title, not a file: what was published of the
    /// playlist's bytes is withdrawn, and readers wait for the title's plan.
    func becomeTitle() {
        changing { state in
            state.held = RangeSet()
            state.length = nil
            state.file = nil
        }
    }

    /// The title is planned: readers now read its files.
    func publish(title: TitleInProgress) {
        let shown = state.withLock { $0.title }
        changing { $0.title = title }
        // Taken over from another process: its view's readers read on from this one.
        if let shown, shown !== title, shown.isElsewhere { shown.replace(with: title) }
    }

    /// `title` will not be completed by this download (the tier's copy failed a check,
    /// and the origin takes over): its readers are let go, and new ones wait for what
    /// comes next.
    func withdraw(title: TitleInProgress) {
        let withdrawn = state.withLock { state in
            guard state.title === title else { return false }
            state.title = nil
            return true
        }
        if withdrawn { title.finish(.interrupted) }
    }

    /// The origin answered `refusal` before any data: readers waiting for the data hear
    /// it (until data is published); the download waits out its backoff and goes on.
    func noteBusy(_ refusal: OriginBusy) {
        changing { $0.refusal = refusal }
    }

    func didWrite(_ range: ByteRange) {
        changing { $0.held.insert(range) }
    }

    /// A stream of unknown length ended: its length is what it held.
    func didLearnLength(_ length: Int64) {
        changing { $0.length = length }
    }

    /// The download ended: the data file is let go (readers that read it keep it open).
    func finish(_ result: DownloadResult) {
        let title = state.withLock { $0.title }
        title?.finish(result)
        changing { state in
            state.result = result
            state.file = nil
            state.title = nil
        }
    }

    /// Applies `change`, then answers (outside the lock) every waiter it satisfied.
    private func changing(_ change: (inout State) -> Void) {
        let woken: Woken = state.withLock { state in
            change(&state)
            return state.waiters.isEmpty ? [] : state.takeSatisfiedWaiters()
        }
        for (waiter, result) in woken { waiter.continuation.resume(with: result) }
    }

    // MARK: Readers

    /// Waits until bytes from `offset` are on disk, or the end of the file is reached
    /// there: of the version `reading` (nil: whichever comes). A negative offset waits
    /// only for the data to be published (its length known, if the origin gave one).
    func available(from offset: Int64, reading: Snapshot?) async throws -> Availability {
        let id = state.withLock { state in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ready: Result<Availability, Error>? = state.withLock { state in
                    let waiter = Waiter(id: id, offset: offset, reading: reading, continuation: continuation)
                    if let ready = state.answer(waiter) {
                        if State.servesBytes(waiter, ready) { state.readersServed = true }
                        return ready
                    }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters.append(waiter)
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let cancelled = state.withLock { state in
                let index = state.waiters.firstIndex { $0.id == id }
                return index.map { state.waiters.remove(at: $0) }
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    /// The commit would store another layout than the origin's (a faststart relocation):
    /// true, and new readers wait for the object, when no reader was given bytes of this
    /// version; false when one was, and may ask for more of the layout it read (players
    /// seek without If-Range), so the origin's layout is kept. Off the transfer thread.
    func sealLayout() -> Bool {
        state.withLock { state in
            if state.readersServed { return false }
            state.sealed = true
            return true
        }
    }

    /// Whether `generation` is still the data on disk: a read is checked after it ran, so
    /// bytes overwritten during the read are never handed on.
    func isCurrent(_ generation: Int) -> Bool {
        state.withLock { $0.generation == generation }
    }

    /// Bytes held now, and the length if known.
    var progress: (held: Int64, length: Int64?) { state.withLock { ($0.held.byteCount, $0.length) } }

    /// What is held, as ranges, with the type the origin named.
    var heldRanges: (ranges: [ByteRange], contentType: String?) { state.withLock { ($0.held.ranges, $0.about.contentType) } }

    /// Whether the bytes at `offset` are held now (no wait needed).
    func holds(_ offset: Int64) -> Bool {
        state.withLock { $0.held.contains(ByteRange(offset, offset + 1)) }
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
    /// Names the bytes readers get now, whatever the origin says: another download of
    /// the same URL, or this one started over, has another.
    public var dataVersion: String? = nil
}

/// One download as a status page shows it.
public struct DownloadProgress: Sendable {
    /// What `DownloadService.stop(key:)` takes.
    public var key: CacheKey
    public var url: String
    /// The entry's `cache-key=`, when it has one (a local URL for it needs it).
    public var cacheKey: String?
    /// As events and `ls` show it: `out=`, else the URL without its password.
    public var name: String
    public var bytesHeld: Int64
    public var length: Int64?
    /// Which bytes are held, as at most `DownloadProgress.rangeLimit` ranges (the closest
    /// ones merged): what a person watching a seek wants to see.
    public var heldRanges: [ByteRange]
    public var contentType: String?
    /// As of the download's last progress event (twice a second while it runs).
    public var bytesPerSecond: Double
    public var connections: Int
    /// The bytes are another mediacache process's download of the key (`serve` beside a
    /// `prefetch`): its connections are its own.
    public var inAnotherProcess = false

    public static let rangeLimit = 64
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
    /// The download is a streaming title: read its files from it.
    case title(TitleInProgress)
    /// The origin said to come back later; the download asks again when it said.
    case originBusy(OriginBusy)

    public var description: String {
        switch self {
        case .dataStartedOver: "the file changed on the origin while it was being read"
        case .interrupted: "the download was stopped before these bytes arrived"
        case .cached(let object): "the file is cached at \(object.path)"
        case .title: "the URL is a streaming title, not a file"
        case .originBusy(let busy): busy.reason
        }
    }
}

/// An origin's "come back later" (503, 429) before the first byte.
public struct OriginBusy: Sendable, Equatable {
    /// What it answered, with the URL.
    public var reason: String
    /// Its status, 429 or 503: the player hears the same.
    public var status: Int = 503
    /// When the download asks again.
    public var retryAt: Date
}
