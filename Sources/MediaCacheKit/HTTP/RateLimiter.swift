import CCurl
import CShims  // also declares curl.h: which module owns its constants depends on build order

/// Holds transfers to their rate limits: the run's (`--limit-rate`: one bucket that
/// every transfer of every file spends from) and each file's own. Confined to the
/// transfer loop's thread.
///
/// A transfer whose bucket ran dry with its last receive is paused (`curl_easy_pause`),
/// so libcurl stops reading its socket, and its small receive buffers (`ReceiveBuffers`)
/// keep the kernel from reading far ahead. As the buckets refill, a timer lets held
/// transfers go on, longest held first, so the files under one limit share it. Held is
/// not stalled: libcurl leaves paused transfers out of its low-speed check and restarts
/// that check on release, and `Fragment.secondsIdle` does not count the time held.
final class RateLimiter {
    /// The whole run's limit, if any.
    var overall: TokenBucket?
    private unowned let loop: TransferLoop
    /// Paused transfers, longest held first.
    private var held: [HTTPTransfer] = []
    private var releaseTimer: (id: Int, deadline: Double)?

    init(loop: TransferLoop) {
        self.loop = loop
    }

    /// The limits for a transfer of a file with its own limit `file`; nil when none applies.
    func limits(file: TokenBucket?) -> RateLimits? {
        let buckets = [overall, file].compactMap { $0 }
        guard let slowest = buckets.map(\.bytesPerSecond).min() else { return nil }
        return RateLimits(limiter: self, buckets: buckets, buffers: ReceiveBuffers(bytesPerSecond: slowest))
    }

    /// `bytes` came off `transfer`'s connection: spends them, and holds the transfer
    /// when one of its buckets is empty now.
    func received(_ bytes: Int, by transfer: HTTPTransfer, limits: RateLimits) {
        let now = TransferLoop.now()
        for bucket in limits.buckets { bucket.take(bytes, now: now) }
        guard !transfer.isHeld, !limits.buckets.allSatisfy({ $0.hasTokens(now: now) }) else { return }
        loop.hold(transfer)
        held.append(transfer)
        scheduleRelease(now: now)
    }

    /// The loop no longer runs `transfer` (done or cancelled).
    func forget(_ transfer: HTTPTransfer) {
        guard transfer.isHeld else { return }
        held.removeAll { $0 === transfer }
    }

    /// Lets every held transfer whose buckets have tokens receive again. Releasing may
    /// deliver bytes libcurl kept for it at once, which may hold it (or another) again.
    private func releaseDue() {
        let now = TransferLoop.now()
        let waiting = held
        held = []
        var stillWaiting: [HTTPTransfer] = []
        var refused: [(HTTPTransfer, CURLcode)] = []
        loop.insideCurl {
            for transfer in waiting {
                guard let limits = transfer.rateLimits, limits.buckets.allSatisfy({ $0.hasTokens(now: now) }) else {
                    stillWaiting.append(transfer)
                    continue
                }
                let code = loop.release(transfer, now: now)
                // The bytes libcurl kept were refused (the job stopped the transfer).
                if code != CURLE_OK { refused.append((transfer, code)) }
            }
            // Before the removals the round asked for, which `forget` the transfers they end.
            held = stillWaiting + held
        }
        for (transfer, code) in refused { loop.end(transfer, code: code) }
        if !held.isEmpty { scheduleRelease(now: TransferLoop.now()) }
    }

    /// Wakes the loop when the first held transfer may go on.
    private func scheduleRelease(now: Double) {
        let waits = held.compactMap { transfer in
            transfer.rateLimits?.buckets.map { $0.secondsUntilTokens(now: now) }.max()
        }
        guard let wait = waits.min() else { return }
        if let releaseTimer {
            if releaseTimer.deadline <= now + wait { return }
            loop.cancelTimer(releaseTimer.id)
        }
        let id = loop.after(wait) { [weak self] in
            guard let self else { return }
            self.releaseTimer = nil
            self.releaseDue()
        }
        releaseTimer = (id, now + wait)
    }
}

/// The limits one transfer is held to, and the buffer sizes its slowest limit calls for.
struct RateLimits {
    unowned let limiter: RateLimiter
    let buckets: [TokenBucket]
    let buffers: ReceiveBuffers
}
