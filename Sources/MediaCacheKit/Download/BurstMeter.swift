/// How a connection delivers: a throttling server (nginx's `limit_rate`) sends a
/// second's worth at once, then nothing. A cut between two bursts wastes nothing; a cut
/// inside one has the burst's rest, already sent, thrown away (`FragmentPlanner.burstAligned`).
struct BurstMeter {
    /// A connection silent this long between deliveries paused: what came before was a
    /// burst.
    static let pause = 0.1

    /// When body bytes last arrived.
    private(set) var lastByteAt: Double?
    /// Bytes since the connection's last pause.
    private var current: Int64 = 0
    /// The largest run that a pause ended; nil while it has not paused.
    private var largest: Int64?

    mutating func note(_ count: Int, now: Double) {
        if let lastByteAt, now - lastByteAt >= Self.pause {
            largest = max(largest ?? 0, current)
            current = 0
        }
        current += Int64(count)
        lastByteAt = now
    }

    /// The most it delivered between two pauses, counting the run before a pause under
    /// way; nil while it never paused (a steady connection).
    func burst(now: Double) -> Int64? {
        let pausing = lastByteAt.map { now - $0 >= Self.pause } ?? false
        guard pausing || largest != nil else { return nil }
        return max(largest ?? 0, current)
    }
}
