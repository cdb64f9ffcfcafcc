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
    /// The local playlists or MPD, by path: every URI relative, as they will be committed.
    private let playlists: [String: [UInt8]]
    private let resources: [String: TitleResource]
    private let filesDirectory: String
    /// Asks the download (on its loop) to fetch this path before anything else.
    private let jumpQueue: @Sendable (String) -> Void
    private let state: Mutex<State>

    private struct State {
        var held: [String: Int64]
        var result: DownloadResult?
        var waiters: [Int: (path: String, continuation: CheckedContinuation<Void, Error>)] = [:]
        var nextID = 0
    }

    /// A file of the title, ready to send.
    public enum Member: Sendable {
        /// A local playlist or MPD.
        case playlist([UInt8])
        /// A resource as the origin sent it: its absolute path while the title downloads.
        case file(path: String, size: Int64)
    }

    init(
        plan: any TitlePlan, filesDirectory: String, held: [String: Int64],
        jumpQueue: @escaping @Sendable (String) -> Void
    ) {
        format = plan.format
        entry = TitleLayout.entry(for: plan.format)
        playlists = Dictionary(
            plan.localFiles(entry: entry).map { ($0.path, Array($0.text.utf8)) }, uniquingKeysWith: { first, _ in first })
        resources = Dictionary(plan.resources.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        self.filesDirectory = filesDirectory
        self.jumpQueue = jumpQueue
        state = Mutex(State(held: held))
    }

    /// Whether `path` is a file of the title (a playlist or a resource).
    public func contains(_ path: String) -> Bool { playlists[path] != nil || resources[path] != nil }

    /// The file at `path`, waiting for it to be held; nil when the title has no such
    /// file. Throws the title's failure, `ReaderError.cached` once it is committed (read
    /// the object), `ReaderError.interrupted`, or `CancellationError`.
    public func member(_ path: String) async throws -> Member? {
        if let playlist = playlists[path] { return .playlist(playlist) }
        guard resources[path] != nil else { return nil }
        if state.withLock({ $0.held[path] == nil && $0.result == nil }) { jumpQueue(path) }
        try await wait(for: path)
        guard let size = state.withLock({ $0.held[path] }) else { throw ReaderError.interrupted }
        return .file(path: filesDirectory + "/" + path, size: size)
    }

    // MARK: The transfer thread

    func didHold(_ path: String, size: Int64) {
        changing { $0.held[path] = size }
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
