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
    /// When a take last emptied the bucket.
    private var lastDryAt = -Double.infinity

    init(bytesPerSecond: Int64, now: Double) {
        precondition(bytesPerSecond > 0, "a token bucket needs a positive rate")
        self.bytesPerSecond = bytesPerSecond
        capacity = max(Double(bytesPerSecond) / 8, Double(ReceiveBuffers(bytesPerSecond: bytesPerSecond).chunkBytes))
        tokens = capacity
        updatedAt = now
    }

    /// Spends `bytes` received at `now` (the balance may go below zero).
    func take(_ bytes: Int, now: Double) {
        refill(now: now)
        tokens -= Double(bytes)
        if tokens <= 0 { lastDryAt = now }
    }

    /// Whether the limit held something back at or after `time`: the limit, not the
    /// origin, is what sets the pace then.
    func ranDry(since time: Double) -> Bool { lastDryAt >= time }

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
