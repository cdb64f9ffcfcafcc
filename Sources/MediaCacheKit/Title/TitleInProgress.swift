import Foundation
import Synchronization

/// A streaming title while it downloads, as `serve` sees it: its local playlists (or
/// MPD), each of its files once held, and a file on its way as its bytes land. A file a
/// player asks for that is not held yet becomes the download's first work, and the
/// asker waits for it.
///
/// Published by the title's download once its plan is made, or by its pull from the tier
/// once `title.json` is read (`ReaderError.title`); safe from any thread. A held file
/// stays where it is until the title is committed, which renames its folder into the
/// cache: a file that cannot be opened any more is read from the committed title.
public final class TitleInProgress: Sendable {
    public let format: PresentationFormat
    /// The entry playlist's or MPD's path among the title's files.
    public let entry: String
    /// The local playlists or MPD, by path: every URI relative, as they will be
    /// committed (so their SHA-256 is the committed one). None for a title pulled from
    /// the tier, whose playlists arrive in its pack as its other files do.
    private let playlists: [String: (bytes: [UInt8], sha256: String)]
    /// The files that arrive, by path.
    private let arrivingFiles: Set<String>
    /// Rendition identity (its folder) → kind (`variant`, `audio`, `video`, `text`...).
    private let kinds: [String: String]
    private let filesDirectory: String
    /// Asks the download (on its loop) to fetch this path before anything else: from
    /// the byte at the offset, when the file arrives in pieces.
    private let jumpQueue: @Sendable (String, Int64?) -> Void
    /// Another process downloads it (`ForeignTitle`): a file asked for comes in that
    /// process's order, not first.
    public let isElsewhere: Bool
    private let state: Mutex<State>

    private struct State {
        var held: [String: Held]
        /// Files on their way (and those that were: a generation outlives its fetch).
        var arriving: [String: Arrival] = [:]
        var result: DownloadResult?
        /// Another process's title this process took over: its readers read on from this
        /// process's view of it (`ForeignTitle`).
        var replacedBy: TitleInProgress?
        var waiters: [Int: Waiter] = [:]
        var nextID = 0
        var generations = 0
    }

    /// What a file on its way holds: the bytes `held` (its first ones, unless it arrives
    /// in pieces), of `length` when known; `accepted` once a response with its bytes
    /// began (or its pieces were planned). A generation lasts as long as the bytes in the
    /// file stay the same ones: a fetch that starts the file over begins a new one.
    struct Arrival {
        var held = RangeSet()
        var length: Int64?
        var accepted = false
        /// It arrives in pieces: a reader waiting at an offset asks for a piece from there.
        var pieced = false
        var generation = 0
    }

    /// What the fetch of a file says of its bytes, on the thread that writes them. `from`
    /// comes before the file is cut to that many bytes, `wrote` after the bytes are written.
    enum ArrivalNote {
        /// A new request: the file keeps its first bytes, this many, and nothing more.
        case from(Int64)
        /// The response carries the file's bytes; `length`: the whole file's, if known.
        case accepted(length: Int64?)
        /// Its first bytes, this many, are written.
        case wrote(upTo: Int64)
        /// The file arrives in pieces (`PiecedFile`), `length` bytes, of which it holds
        /// `held`: what a reader may read, however far ahead of the rest.
        case pieces(length: Int64, held: RangeSet)
        case wrotePiece(ByteRange)
    }

    /// A waiter's question: nil while it must wait, else its answer.
    private typealias Waiter = (check: @Sendable (State) -> Result<Int64, Error>?, continuation: CheckedContinuation<Int64, Error>)

    /// A held resource: its size and SHA-256 (what `title.json` will say of it).
    public struct Held: Sendable, Equatable {
        public var size: Int64
        public var sha256: String
    }

    /// A file of the title, ready to send.
    public enum Member: Sendable {
        /// A local playlist or MPD.
        case playlist([UInt8], sha256: String)
        /// A resource as the origin sent it: its absolute path while the title downloads.
        case file(path: String, Held)
        /// A resource on its way, to be sent as its bytes land (asked for `streaming`).
        case arriving(ArrivingFile)
    }

    convenience init(
        plan: any TitlePlan, filesDirectory: String, held: [String: Held],
        jumpQueue: @escaping @Sendable (String, Int64?) -> Void
    ) {
        let entry = TitleLayout.entry(for: plan.format)
        self.init(
            format: plan.format, entry: entry,
            playlists: Dictionary(
                plan.localFiles(entry: entry).map { file in
                    let bytes = Array(file.text.utf8)
                    return (file.path, (bytes, Digest.sha256Hex(bytes)))
                }, uniquingKeysWith: { first, _ in first }),
            arrivingFiles: Set(plan.resources.map(\.path)),
            kinds: plan.manifestRenditions(entry: entry).map { ($0.identity, $0.kind) },
            filesDirectory: filesDirectory, held: held, jumpQueue: jumpQueue)
    }

    /// A title coming back from the tier as `manifest` lists it: every file, its
    /// playlists too, is held once its pull has written and checked it.
    convenience init(
        manifest: TitleManifest, filesDirectory: String, held: [String: Held],
        jumpQueue: @escaping @Sendable (String, Int64?) -> Void
    ) {
        self.init(
            format: manifest.format, entry: manifest.entry, playlists: [:],
            arrivingFiles: Set(manifest.members.map(\.path)),
            kinds: manifest.renditions.map { ($0.identity, $0.kind) },
            filesDirectory: filesDirectory, held: held, jumpQueue: jumpQueue)
    }

    /// Another process's download of a title, as `outline` shows it (`ForeignTitle`):
    /// its files are held as that process's saved progress says. A file asked for cannot
    /// jump that process's queue: its reader waits for it there.
    convenience init(outline: TitleOutline, filesDirectory: String, held: [String: Held]) {
        self.init(
            format: outline.format, entry: outline.entry,
            playlists: outline.playlists.mapValues { text in
                let bytes = Array(text.utf8)
                return (bytes, Digest.sha256Hex(bytes))
            },
            arrivingFiles: Set(outline.files), kinds: outline.kinds.map { ($0.key, $0.value) },
            filesDirectory: filesDirectory, held: held, jumpQueue: { _, _ in }, isElsewhere: true)
    }

    /// What another process needs to show this title while this one downloads it.
    var outline: TitleOutline {
        TitleOutline(
            format: format, entry: entry,
            playlists: playlists.mapValues { String(decoding: $0.bytes, as: UTF8.self) },
            files: arrivingFiles.sorted(), kinds: kinds)
    }

    private init(
        format: PresentationFormat, entry: String, playlists: [String: (bytes: [UInt8], sha256: String)],
        arrivingFiles: Set<String>, kinds: [(String, String)], filesDirectory: String, held: [String: Held],
        jumpQueue: @escaping @Sendable (String, Int64?) -> Void, isElsewhere: Bool = false
    ) {
        self.isElsewhere = isElsewhere
        self.format = format
        self.entry = entry
        self.playlists = playlists
        self.arrivingFiles = arrivingFiles
        self.kinds = Dictionary(kinds, uniquingKeysWith: { first, _ in first })
        self.filesDirectory = filesDirectory
        self.jumpQueue = jumpQueue
        state = Mutex(State(held: held))
    }

    /// Whether `path` is a file of the title (a playlist or a resource).
    public func contains(_ path: String) -> Bool { playlists[path] != nil || arrivingFiles.contains(path) }

    /// The Content-Type the file at `path` is sent with, as for the committed title.
    public func contentType(of path: String) -> String {
        let folder = path.split(separator: "/", maxSplits: 1).first.map(String.init) ?? ""
        return TitleMemberType.contentType(of: path, renditionKind: kinds[folder])
    }

    /// The file at `path`, waiting for it to be held (`streaming`: or for the response
    /// that brings it to begin); nil when the title has no such file. Throws the title's
    /// failure, `ReaderError.cached` once it is committed (read the object),
    /// `ReaderError.interrupted`, or `CancellationError`.
    public func member(_ path: String, streaming: Bool = false) async throws -> Member? {
        if let playlist = playlists[path] { return .playlist(playlist.bytes, sha256: playlist.sha256) }
        guard arrivingFiles.contains(path) else { return nil }
        if state.withLock({ $0.held[path] == nil && $0.result == nil }) { jumpQueue(path, nil) }
        _ = try await wait { state in
            if state.held[path] != nil || (streaming && state.arriving[path]?.accepted == true) { return .success(0) }
            return Self.ended(state)
        }
        let absolute = filesDirectory + "/" + path
        return try state.withLock { state in
            if let held = state.held[path] { return .file(path: absolute, held) }
            guard let arrival = state.arriving[path] else { throw ReaderError.interrupted }
            return .arriving(ArrivingFile(title: self, member: path, path: absolute, length: arrival.length, generation: arrival.generation))
        }
    }

    /// Waits until the download has ended, however it ended (a file of the title that can
    /// no longer be opened has moved into the cache with the rest: once this returns, the
    /// committed title is in the index).
    public func ended() async throws {
        _ = try await wait { state in state.result == nil ? nil : .success(0) }
    }

    /// Waits until `path` holds bytes beyond `offset` in `generation`: the end of what it
    /// holds, or `offset` once it has no more to come. Throws
    /// `ReaderError.dataStartedOver` once the file started over.
    func available(_ path: String, beyond offset: Int64, generation: Int) async throws -> Int64 {
        // A file in pieces holds what a reader seeks to only once a piece from there is asked for.
        let mustAsk = state.withLock { state in
            state.held[path] == nil && state.result == nil
                && state.arriving[path].map { $0.pieced && $0.held.range(containing: offset) == nil } == true
        }
        if mustAsk { jumpQueue(path, offset) }
        return try await wait { state in
            if let arrival = state.arriving[path], arrival.generation != generation {
                return .failure(ReaderError.dataStartedOver)
            }
            if let held = state.held[path] { return .success(max(offset, held.size)) }
            if let arrival = state.arriving[path] {
                if let run = arrival.held.range(containing: offset) { return .success(run.end) }
                if let length = arrival.length, offset >= length { return .success(offset) }
            }
            return Self.ended(state)
        }
    }

    /// Throws unless `path`'s bytes are still those of `generation`: bytes read before
    /// this call are the file's, not a newer version's.
    func check(_ path: String, generation: Int) throws {
        if state.withLock({ $0.arriving[path].map { $0.generation != generation } ?? false }) {
            throw ReaderError.dataStartedOver
        }
    }

    // MARK: The fetching threads (a resource's writer, the loop, or a tier pull's queue)

    func didHold(_ path: String, _ held: Held) {
        changing { $0.held[path] = held }
    }

    /// Files another process's download holds now (`ForeignTitle`).
    func hold(_ files: [String: Held]) {
        changing { state in
            for (path, held) in files where arrivingFiles.contains(path) { state.held[path] = held }
        }
    }

    /// The paths held now.
    var heldPaths: Set<String> { state.withLock { Set($0.held.keys) } }

    /// What the fetch of `path` did to its file.
    func note(_ path: String, _ note: ArrivalNote) {
        changing { state in
            var arrival = state.arriving[path] ?? Arrival()
            switch note {
            case .from(let bytes):
                let kept = bytes > 0 ? RangeSet([ByteRange(0, bytes)]) : RangeSet()
                if !kept.contains(arrival.held) { Self.startOver(&arrival, in: &state) }
                arrival = Arrival(held: kept, generation: arrival.generation)
            case .accepted(let length):
                arrival.accepted = true
                arrival.length = length
            case .wrote(let bytes):
                arrival.held.insert(ByteRange(0, bytes))
            case .pieces(let length, let held):
                if !held.contains(arrival.held) { Self.startOver(&arrival, in: &state) }
                arrival.held = held
                arrival.length = length
                arrival.accepted = true
                arrival.pieced = true
            case .wrotePiece(let range):
                arrival.held.insert(range)
            }
            state.arriving[path] = arrival
        }
    }

    /// The file's bytes are no longer the ones readers were given: they stop.
    private static func startOver(_ arrival: inout Arrival, in state: inout State) {
        state.generations += 1
        arrival.generation = state.generations
    }

    func finish(_ result: DownloadResult) {
        changing { $0.result = result }
    }

    /// This process took the title over from the one this view showed: readers waiting
    /// here are sent to `next` (`ReaderError.title`).
    func replace(with next: TitleInProgress) {
        changing { $0.replacedBy = next }
    }

    // MARK: Waiting

    /// Waits until `check` answers, which it is asked at once and after every change.
    private func wait(until check: @escaping @Sendable (State) -> Result<Int64, Error>?) async throws -> Int64 {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int64, Error>) in
                let ready: Result<Int64, Error>? = state.withLock { state in
                    if let ready = check(state) { return ready }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters[id] = (check, continuation)
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Nil while the download goes on; else why a waiter waits in vain.
    private static func ended(_ state: State) -> Result<Int64, Error>? {
        if let next = state.replacedBy { return .failure(ReaderError.title(next)) }
        switch state.result {
        case nil: return nil
        case .failed(let failure): return .failure(failure)
        case .interrupted: return .failure(ReaderError.interrupted)
        case .committed(let object), .alreadyCached(let object): return .failure(ReaderError.cached(object))
        }
    }

    private func changing(_ change: (inout State) -> Void) {
        let woken: [(CheckedContinuation<Int64, Error>, Result<Int64, Error>)] = state.withLock { state in
            change(&state)
            guard !state.waiters.isEmpty else { return [] }
            var woken: [(CheckedContinuation<Int64, Error>, Result<Int64, Error>)] = []
            for (id, waiter) in state.waiters {
                guard let answer = waiter.check(state) else { continue }
                woken.append((waiter.continuation, answer))
                state.waiters[id] = nil
            }
            return woken
        }
        for (continuation, result) in woken { continuation.resume(with: result) }
    }
}

extension DownloadService {
    /// Whether a streaming title of `key` is partly fetched (its staging folder is
    /// there): a player may ask for one of its files before its entry (a server that
    /// restarted mid-title), and only then does such a request start the download.
    /// May touch the disk: not on the loop thread.
    public func hasPartialTitle(key: CacheKey) -> Bool {
        LoopThreads.preconditionOff("looking for a partial title")
        return FileSystem.exists(TitleLayout.staging(key: key, in: cache))
    }
}
