/// One rate limit: tokens (bytes) flow in at `bytesPerSecond` and are spent by the bytes
/// received. A class, because every transfer under the limit spends from the same bucket.
///
/// Bytes are charged after they arrived, so the bucket may go into debt by what one
/// receive delivered; transfers under it wait until the debt is paid. Over any stretch
/// of time the bytes taken are then at most the rate times that time, plus `capacity`
/// saved up while nothing was taken, plus the debt of one round of receives.
final class TokenBucket {
    let bytesPerSecond: Int64
    /// The most saved up while idle: an eighth of a second, so a pause in demand is not
    /// made up later by a burst.
    let capacity: Double
    private var tokens: Double
    private var updatedAt: Double
    /// Bytes taken in the second that began at `start` (so far), and in the one before.
    private var second: (start: Double, taken: Double, previous: Double)
    private let createdAt: Double
    /// When a take last emptied the bucket.
    private var lastDryAt = -Double.infinity

    init(bytesPerSecond: Int64, now: Double) {
        precondition(bytesPerSecond > 0, "a token bucket needs a positive rate")
        self.bytesPerSecond = bytesPerSecond
        capacity = max(Double(bytesPerSecond) / 8, Double(ReceiveBuffers(bytesPerSecond: bytesPerSecond).chunkBytes))
        tokens = capacity
        updatedAt = now
        second = (now, 0, 0)
        createdAt = now
    }

    /// Spends `bytes` received at `now` (the balance may go below zero).
    func take(_ bytes: Int, now: Double) {
        refill(now: now)
        tokens -= Double(bytes)
        if tokens <= 0 { lastDryAt = now }
        roll(now)
        second.taken += Double(bytes)
    }

    /// Whether the limit, not the origin, set the pace over the last second: it ran dry,
    /// and close to its rate was taken. Running dry alone is no sign of it: an origin that
    /// sends a second's worth at a time (nginx's `limit_rate`) empties a bucket of an
    /// eighth of a second at every burst, however far below the limit it stays.
    func setsThePace(now: Double) -> Bool {
        guard lastDryAt >= now - 1 else { return false }
        roll(now)
        let into = now - second.start
        // The last second's bytes: this one's so far and the rest of the one before; in
        // the first second of all, the rate so far.
        let rate = second.start > createdAt
            ? second.taken + second.previous * (1 - into) : second.taken / max(into, 0.1)
        return rate >= 0.85 * Double(bytesPerSecond)
    }

    private func roll(_ now: Double) {
        let elapsed = now - second.start
        if elapsed >= 2 {
            second = (now, 0, 0)
        } else if elapsed >= 1 {
            second = (second.start + 1, 0, second.taken)
        }
    }

    /// Whether transfers under this limit may receive now.
    func hasTokens(now: Double) -> Bool {
        refill(now: now)
        return tokens > 0
    }

    /// Seconds until `hasTokens` holds again; 0 when it holds now.
    func secondsUntilTokens(now: Double) -> Double {
        refill(now: now)
        return tokens > 0 ? 0 : (-tokens + 1) / Double(bytesPerSecond)
    }

    private func refill(now: Double) {
        guard now > updatedAt else { return }
        tokens = min(capacity, tokens + (now - updatedAt) * Double(bytesPerSecond))
        updatedAt = now
    }
}
