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

    init(bytesPerSecond: Int64) {
        let rate = Int(clamping: bytesPerSecond)
        chunkBytes = min(max(rate / 64, 1024), 256 * 1024)
        socketBytes = min(max(rate / 8, 4096), 4 << 20)
    }
}
