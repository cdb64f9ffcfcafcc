import Foundation

/// A client's hold on one download: waits for how it ends, and opens readers of its
/// bytes while it runs. Safe from any thread.
public final class DownloadHandle: @unchecked Sendable {
    public let key: CacheKey
    let download: Download
    private unowned let service: DownloadService
    private let lock = NSLock()
    private var result: DownloadResult?
    private var waiters: [CheckedContinuation<DownloadResult, Never>] = []
    private let ended = DispatchSemaphore(value: 0)

    init(key: CacheKey, download: Download, service: DownloadService) {
        self.key = key
        self.download = download
        self.service = service
    }

    /// How the download ended, once it has.
    public var finished: DownloadResult? { lock.withLock { result } }

    /// Waits for the end of the download.
    public func result() async -> DownloadResult {
        await withCheckedContinuation { continuation in
            let known: DownloadResult? = lock.withLock {
                if let result { return result }
                waiters.append(continuation)
                return nil
            }
            if let known { continuation.resume(returning: known) }
        }
    }

    /// Blocks the calling thread until the download ends (never on the transfer thread).
    public func wait() -> DownloadResult {
        ended.wait()
        ended.signal()
        return lock.withLock { result! }
    }

    /// A reader of the download's bytes, for one response to a client: it reads one
    /// version of the data from start to end, and its wants come before other work.
    public func reader() -> DownloadReader {
        DownloadReader(download: download, loop: service.loop)
    }

    func resolve(_ outcome: DownloadResult) {
        let waiting: [CheckedContinuation<DownloadResult, Never>]? = lock.withLock {
            guard result == nil else { return nil }
            result = outcome
            defer { waiters = [] }
            return waiters
        }
        guard let waiting else { return }
        ended.signal()
        for waiter in waiting { waiter.resume(returning: outcome) }
    }
}
