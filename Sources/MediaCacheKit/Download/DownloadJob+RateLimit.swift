extension DownloadJob {
    /// Whether a rate limit this file is under set the pace over the last second. More
    /// connections would not fetch it sooner then, and each range cut for a new one
    /// throws away what the kernel had already buffered for the old one, which crossed
    /// the wire all the same: no range is split while this holds. Below the limit (an
    /// origin that holds each connection to less), ranges are split as without one.
    func heldBackByRateLimit(now: Double) -> Bool {
        [fileRateLimit, loop.rateLimiter.overall].contains { $0?.setsThePace(now: now) ?? false }
    }
}
