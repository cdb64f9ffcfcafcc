extension DownloadJob {
    /// Whether a rate limit this file is under held bytes back in the last second. More
    /// connections would not fetch it sooner then, and each range cut for a new one
    /// throws away what the kernel had already buffered for the old one, which crossed
    /// the wire all the same: no range is split while this holds.
    func heldBackByRateLimit(now: Double) -> Bool {
        [fileRateLimit, loop.rateLimiter.overall].contains { $0?.ranDry(since: now - 1) ?? false }
    }
}
