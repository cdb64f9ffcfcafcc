import Foundation
import Synchronization

/// A client's hold on one download: waits for how it ends, and opens readers of its
/// bytes while it runs. Safe from any thread.
public final class DownloadHandle: Sendable {
    public let key: CacheKey
    let download: Download
    private let loop: TransferLoop
    /// How the download ended, once it has; who waits for it until then.
    private let state = Mutex<(result: DownloadResult?, waiters: [CheckedContinuation<DownloadResult, Never>])>((nil, []))
    private let ended = DispatchSemaphore(value: 0)

    init(key: CacheKey, download: Download, loop: TransferLoop) {
        self.key = key
        self.download = download
        self.loop = loop
    }

    /// How the download ended, once it has.
    public var finished: DownloadResult? { state.withLock { $0.result } }

    /// Waits for the end of the download.
    public func result() async -> DownloadResult {
        await withCheckedContinuation { continuation in
            let known: DownloadResult? = state.withLock { state in
                if let result = state.result { return result }
                state.waiters.append(continuation)
                return nil
            }
            if let known { continuation.resume(returning: known) }
        }
    }

    /// Blocks the calling thread until the download ends (never on the transfer thread).
    public func wait() -> DownloadResult {
        ended.wait()
        ended.signal()
        return state.withLock { $0.result! }
    }

    /// A reader of the download's bytes, for one response to a client: it reads one
    /// version of the data from start to end, and its wants come before other work.
    public func reader() -> DownloadReader {
        DownloadReader(download: download, loop: loop)
    }

    func resolve(_ outcome: DownloadResult) {
        let waiting: [CheckedContinuation<DownloadResult, Never>]? = state.withLock { state in
            guard state.result == nil else { return nil }
            state.result = outcome
            defer { state.waiters = [] }
            return state.waiters
        }
        guard let waiting else { return }
        ended.signal()
        for waiter in waiting { waiter.resume(returning: outcome) }
    }
}
