import Foundation

/// The engine's blocking calls (`PrefetchBatch.run`, `DownloadService.shutdown`) awaited
/// from async code: each gets a thread of its own, since Swift's cooperative pool has one
/// thread per core, and one blocked there for minutes would stall what `serve` answers.
enum OwnThread {
    static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: body()) }
        }
    }
}
