/// How much a transfer held to `bytesPerSecond` lets the kernel and libcurl hold for it.
/// Pausing reads alone does not limit what crosses the wire while a socket's receive
/// buffer keeps filling (autotuned, it grows to megabytes): both stay a fraction of a
/// second of the rate.
struct ReceiveBuffers: Equatable {
    /// libcurl's receive buffer (`CURLOPT_BUFFERSIZE`): about 1/64 s of the rate, within
    /// libcurl's bounds (1 KiB) and its usual size (256 KiB).
    let chunkBytes: Int
    /// The socket's `SO_RCVBUF`: about 1/8 s of the rate. Enough for one connection to
    /// reach the rate over a 100 ms round trip; the kernel doubles it for bookkeeping.
    let socketBytes: Int

    /// What the transfers without a limit may hold in libcurl's receive buffers, together,
    /// so the process does not grow with `-j` and `-x` (each handle keeps its buffer for
    /// its life, and on a fast link libcurl fills it on every read). A few transfers keep
    /// 256 KiB each (one 1 GiB file on four: the same speed and CPU as before); many share
    /// the budget, down to 64 KiB each (W3 at `-j 16`: peak RSS 55 -> 47 MiB, for about
    /// 5 % more CPU).
    static let unlimitedBudget = 1 << 20

    /// libcurl's receive buffer for a transfer without a limit, started while `transfers`
    /// (itself included) run.
    static func unlimitedChunkBytes(transfers: Int) -> Int {
        min(256 << 10, max(64 << 10, unlimitedBudget / max(1, transfers)))
    }

    init(bytesPerSecond: Int64) {
        let rate = Int(clamping: bytesPerSecond)
        chunkBytes = min(max(rate / 64, 1024), 256 * 1024)
        socketBytes = min(max(rate / 8, 4096), 4 << 20)
    }
}
