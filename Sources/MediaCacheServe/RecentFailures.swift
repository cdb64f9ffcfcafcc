import MediaCacheKit
import Synchronization

/// Downloads that failed a moment ago. A player retries a failed request at once (hls.js
/// three times, ffmpeg on every reconnect, a browser on each seek); each retry would
/// start the download again, and for a title read its playlists again, asking the
/// origin the same thing that just failed. For `hold` after a failure, a request for the
/// same source gets the same answer at once, with `Retry-After`. A streaming title that
/// failed keeps what it holds for the next run, and its view of them: its playlists and
/// the files it holds are still answered from there, only the rest with the failure.
final class RecentFailures: Sendable {
    struct Recent {
        var failure: JobFailure
        /// Whole seconds until the download may be tried again.
        var retryAfter: Int
        /// The title's view when the download was a streaming title's.
        var title: TitleInProgress?

        var answer: (JobFailure, retryAfter: Int) { (failure, retryAfter) }
    }

    static let hold: Duration = .seconds(10)
    /// More failures than any player session makes in `hold`; beyond it the oldest go.
    private static let capacity = 1_000

    private let failures = Mutex<[CacheKey: (failure: JobFailure, title: TitleInProgress?, at: ContinuousClock.Instant)]>([:])

    /// The failure of `key`'s download; nil when it did not fail within `hold`.
    func failure(of key: CacheKey, now: ContinuousClock.Instant = .now) -> Recent? {
        failures.withLock { failures in
            guard let recent = failures[key] else { return nil }
            let left = recent.at + Self.hold - now
            guard left > .zero else {
                failures[key] = nil
                return nil
            }
            return Recent(failure: recent.failure, retryAfter: Int(left.components.seconds) + 1, title: recent.title)
        }
    }

    /// `title`: the failed download's view, when it was a streaming title's.
    func record(_ failure: JobFailure, of key: CacheKey, title: TitleInProgress? = nil, now: ContinuousClock.Instant = .now) {
        failures.withLock { failures in
            if failures.count >= Self.capacity {
                failures = failures.filter { now - $0.value.at < Self.hold }
                while failures.count >= Self.capacity, let oldest = failures.min(by: { $0.value.at < $1.value.at }) {
                    failures[oldest.key] = nil
                }
            }
            failures[key] = (failure, title, now)
        }
    }
}
