import Foundation
import Synchronization

/// A streaming title while it downloads, as `serve` sees it: its local playlists (or
/// MPD), and each of its files once held. A file a player asks for that is not held yet
/// becomes the download's first work, and the asker waits for it.
///
/// Published by the title's download once its plan is made (`ReaderError.title`); safe
/// from any thread. A held file stays where it is until the title is committed, which
/// renames its folder into the cache: a file that cannot be opened any more is read
/// from the committed title.
public final class TitleInProgress: Sendable {
    public let format: PresentationFormat
    /// The entry playlist's or MPD's path among the title's files.
    public let entry: String
    /// The local playlists or MPD, by path: every URI relative, as they will be
    /// committed (so their SHA-256 is the committed one).
    private let playlists: [String: (bytes: [UInt8], sha256: String)]
    private let resources: [String: TitleResource]
    /// Rendition identity (its folder) → kind (`variant`, `audio`, `video`, `text`...).
    private let kinds: [String: String]
    private let filesDirectory: String
    /// Asks the download (on its loop) to fetch this path before anything else.
    private let jumpQueue: @Sendable (String) -> Void
    private let state: Mutex<State>

    private struct State {
        var held: [String: Held]
        var result: DownloadResult?
        var waiters: [Int: (path: String, continuation: CheckedContinuation<Void, Error>)] = [:]
        var nextID = 0
    }

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
    }

    init(
        plan: any TitlePlan, filesDirectory: String, held: [String: Held],
        jumpQueue: @escaping @Sendable (String) -> Void
    ) {
        format = plan.format
        entry = TitleLayout.entry(for: plan.format)
        playlists = Dictionary(
            plan.localFiles(entry: entry).map { file in
                let bytes = Array(file.text.utf8)
                return (file.path, (bytes, Digest.sha256Hex(bytes)))
            }, uniquingKeysWith: { first, _ in first })
        kinds = Dictionary(
            plan.manifestRenditions(entry: entry).map { ($0.identity, $0.kind) }, uniquingKeysWith: { first, _ in first })
        resources = Dictionary(plan.resources.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        self.filesDirectory = filesDirectory
        self.jumpQueue = jumpQueue
        state = Mutex(State(held: held))
    }

    /// Whether `path` is a file of the title (a playlist or a resource).
    public func contains(_ path: String) -> Bool { playlists[path] != nil || resources[path] != nil }

    /// The Content-Type the file at `path` is sent with, as for the committed title.
    public func contentType(of path: String) -> String {
        let folder = path.split(separator: "/", maxSplits: 1).first.map(String.init) ?? ""
        return TitleMemberType.contentType(of: path, renditionKind: kinds[folder])
    }

    /// The file at `path`, waiting for it to be held; nil when the title has no such
    /// file. Throws the title's failure, `ReaderError.cached` once it is committed (read
    /// the object), `ReaderError.interrupted`, or `CancellationError`.
    public func member(_ path: String) async throws -> Member? {
        if let playlist = playlists[path] { return .playlist(playlist.bytes, sha256: playlist.sha256) }
        guard resources[path] != nil else { return nil }
        if state.withLock({ $0.held[path] == nil && $0.result == nil }) { jumpQueue(path) }
        try await wait(for: path)
        guard let held = state.withLock({ $0.held[path] }) else { throw ReaderError.interrupted }
        return .file(path: filesDirectory + "/" + path, held)
    }

    // MARK: The transfer thread

    func didHold(_ path: String, _ held: Held) {
        changing { $0.held[path] = held }
    }

    func finish(_ result: DownloadResult) {
        changing { $0.result = result }
    }

    // MARK: Waiting

    private func wait(for path: String) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
                let ready: Result<Void, Error>? = state.withLock { state in
                    if let ready = Self.answer(path, state) { return ready }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters[id] = (path, continuation)
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Nil while a waiter for `path` must wait.
    private static func answer(_ path: String, _ state: State) -> Result<Void, Error>? {
        if state.held[path] != nil { return .success(()) }
        switch state.result {
        case nil: return nil
        case .failed(let failure): return .failure(failure)
        case .interrupted: return .failure(ReaderError.interrupted)
        case .committed(let object), .alreadyCached(let object): return .failure(ReaderError.cached(object))
        }
    }

    private func changing(_ change: (inout State) -> Void) {
        let woken: [(CheckedContinuation<Void, Error>, Result<Void, Error>)] = state.withLock { state in
            change(&state)
            var woken: [(CheckedContinuation<Void, Error>, Result<Void, Error>)] = []
            for (id, waiter) in state.waiters {
                guard let answer = Self.answer(waiter.path, state) else { continue }
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
