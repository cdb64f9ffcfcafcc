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
///
/// The run's limit goes to the most urgent transfers first: while one that a player
/// waits on has received within `urgencyLasts`, less urgent ones spending the run's limit
/// are held (`serve --limit-rate` plays first; its background list takes what is left).
final class RateLimiter {
    /// The whole run's limit, if any.
    var overall: TokenBucket?
    /// The most urgent priority spending the run's limit lately, and until when it counts.
    private var urgent: (priority: Int, until: Double)?
    static let urgencyLasts = 0.5
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
        let spendsOverall = overall.map { overall in limits.buckets.contains { $0 === overall } } ?? false
        if spendsOverall, transfer.priority >= (urgentPriority(now: now) ?? Int.min) {
            urgent = (transfer.priority, now + Self.urgencyLasts)
        }
        guard !transfer.isHeld, !limits.buckets.allSatisfy({ $0.hasTokens(now: now) }) || givesWay(transfer, now: now)
        else { return }
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
                guard let limits = transfer.rateLimits, limits.buckets.allSatisfy({ $0.hasTokens(now: now) }),
                    !givesWay(transfer, now: now)
                else {
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

    /// The priority of the most urgent transfer spending the run's limit lately, if any.
    private func urgentPriority(now: Double) -> Int? {
        guard let urgent, urgent.until > now else { return nil }
        return urgent.priority
    }

    /// Whether `transfer` spends the run's limit while a more urgent one does.
    private func givesWay(_ transfer: HTTPTransfer, now: Double) -> Bool {
        guard let overall, let urgent = urgentPriority(now: now), transfer.priority < urgent else { return false }
        return transfer.rateLimits?.buckets.contains { $0 === overall } ?? false
    }

    /// Wakes the loop when the first held transfer may go on.
    private func scheduleRelease(now: Double) {
        let waits = held.compactMap { transfer -> Double? in
            guard let buckets = transfer.rateLimits?.buckets else { return nil }
            let tokens = buckets.map { $0.secondsUntilTokens(now: now) }.max() ?? 0
            // One giving way waits until the urgent one has been quiet a while.
            return givesWay(transfer, now: now) ? max(tokens, (urgent?.until ?? now) - now) : tokens
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
