import CCurl
import CShims  // also declares curl.h: which module owns its constants depends on build order

/// Receives one transfer's response. Called on the transfer loop's thread only.
protocol HTTPTransferDelegate: AnyObject {
    /// The final (non-1xx) head arrived. Return false to abort the transfer.
    func transfer(_ transfer: HTTPTransfer, didReceive head: HTTPResponseHead) -> Bool
    /// Body bytes arrived. Return how many were consumed; fewer than `chunk.count`
    /// aborts the transfer (used to stop at a fragment's end).
    func transfer(_ transfer: HTTPTransfer, didReceive chunk: BodyChunk) -> Int
    /// The transfer ended: `nil` when the whole response arrived.
    func transfer(_ transfer: HTTPTransfer, didCompleteWith error: TransferError?)
    /// A more urgent transfer to the same host waits for this one's connection: cancel
    /// it (`TransferLoop.cancel`) and fetch what it had not received later. Asked only
    /// of a transfer marked `isPreemptible`.
    func transferPreempted(_ transfer: HTTPTransfer)
}

extension HTTPTransferDelegate {
    func transferPreempted(_ transfer: HTTPTransfer) {}
}

/// One GET in flight on the transfer loop, confined to the loop's thread.
final class HTTPTransfer {
    let request: HTTPRequest
    weak var delegate: HTTPTransferDelegate?
    private(set) var head: HTTPResponseHead?
    /// Set when the delegate stopped the transfer, so its failure is not an error.
    private(set) var stoppedByDelegate = false
    private var headLines: [(name: String, value: String)] = []
    private var headStatus: Int?
    private(set) var easy: CurlEasy!
    /// The rate limits this transfer is held to, if any.
    let rateLimits: RateLimits?
    /// Paused (by the rate limiter until its buckets refill, or by its job until the disk
    /// is ready for its bytes): waiting, not stalled.
    private(set) var isHeld = false
    /// When the rate limiter last let it receive again.
    private(set) var releasedAt: Double?
    /// When it started, received its last byte or was last let go on: what `--timeout`
    /// counts from (`TransferLoop` ends one silent that long).
    private(set) var lastActivity = 0.0
    /// For `HostGate`: more urgent transfers wait less (a player's range before a
    /// background one); one marked preemptible gives way to a more urgent one.
    var priority = 0
    var isPreemptible = false
    var admittedOrder = 0
    /// The host (scheme, name and port) whose connections it counts against.
    private(set) lazy var hostKey: String = request.origin ?? URLParts(request.url)?.origin ?? request.url

    init(request: HTTPRequest, userAgent: String, delegate: HTTPTransferDelegate, rateLimits: RateLimits? = nil) {
        self.request = request
        self.delegate = delegate
        self.rateLimits = rateLimits
        easy = CurlEasy(request: request, userAgent: userAgent, owner: self, receiveBuffers: rateLimits?.buffers)
    }

    /// Bytes of the response already in this connection's socket, not delivered yet.
    var bytesWaiting: Int64 { easy.queuedBytes ?? 0 }

    /// Paused by `TransferLoop.hold` (until `release`).
    func noteHeld() { isHeld = true }

    func noteReleased(at now: Double) {
        isHeld = false
        releasedAt = now
        lastActivity = now
    }

    func noteStarted(at now: Double) { lastActivity = now }

    /// Whether it has received nothing for its `stallTimeout` while free to (not held).
    /// A request with a body is left to libcurl's own check: it is busy sending.
    func isSilent(now: Double) -> Bool {
        !isHeld && request.body == nil && now - lastActivity >= Double(request.stallTimeout)
    }

    func receiveHeaderLine(_ line: String) -> Bool {
        lastActivity = TransferLoop.now()
        let trimmed = HTTPResponseHead.trimmingWhitespace(line[...])
        if trimmed.hasPrefix("HTTP/") {
            // A reused connection keeps the receive buffer it was made with.
            if let rateLimits, head == nil { easy.resizeReceiveBuffer(rateLimits.buffers.socketBytes) }
            // A new head (after 1xx, or a proxy's) replaces what came before.
            let fields = trimmed.split(separator: " ", maxSplits: 2)
            headStatus = fields.count > 1 ? Int(fields[1]) : nil
            headLines = []
            return headStatus != nil
        }
        if trimmed.isEmpty {
            guard let status = headStatus, status >= 200 else { return true }
            let head = HTTPResponseHead(status: status, headers: headLines)
            self.head = head
            let keep = delegate?.transfer(self, didReceive: head) ?? false
            if !keep { stoppedByDelegate = true }
            return keep
        }
        if let colon = trimmed.utf8.firstIndex(of: UInt8(ascii: ":")) {
            let name = trimmed[..<colon].lowercased()
            let value = String(HTTPResponseHead.trimmingWhitespace(trimmed[trimmed.index(after: colon)...]))
            headLines.append((name, value))
        }
        return true
    }

    func receiveBody(_ chunk: BodyChunk) -> Int {
        lastActivity = TransferLoop.now()
        let consumed = delegate?.transfer(self, didReceive: chunk) ?? 0
        if consumed < chunk.count {
            stoppedByDelegate = true
        } else if let rateLimits {
            // Every byte off the connection counts, file data or not.
            rateLimits.limiter.received(chunk.count, by: self, limits: rateLimits)
        }
        return consumed
    }

    func complete(code: CURLcode) {
        let error: TransferError?
        if code == CURLE_OK {
            error = nil
        } else if stoppedByDelegate {
            error = TransferError(kind: .aborted, message: "stopped")
        } else if code == CURLE_OPERATION_TIMEDOUT {
            let what = request.lowSpeedLimit > 1
                ? "slower than \(ByteCount.format(Int64(request.lowSpeedLimit)))/s for \(request.stallTimeout) s"
                : "no data for \(request.stallTimeout) s"
            error = TransferError(kind: .timedOut, message: "\(what) (\(easy.errorMessage(for: code)))")
        } else if let refusal = proxyRefusal(code) {
            error = TransferError(kind: .proxyRefused, message: refusal)
        } else if code == CURLE_PEER_FAILED_VERIFICATION {
            error = TransferError(
                kind: .untrustedCertificate,
                message: "the TLS certificate is not trusted (\(easy.errorMessage(for: code))); "
                    + "for a private CA give its certificate with --ca-certificate FILE; --insecure skips the check")
        } else if code == CURLE_OUT_OF_MEMORY && head == nil {
            // libcurl's word for a head line past its 100 KiB limit (7.88 says no more);
            // the origin sends the same head again.
            error = TransferError(
                kind: .unreadableAnswer,
                message: "the origin's response head is larger than libcurl accepts (a line over 100 KiB; libcurl: \(easy.errorMessage(for: code)))")
        } else if [CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL, CURLE_BAD_FUNCTION_ARGUMENT, CURLE_NOT_BUILT_IN]
            .contains(code)
        {
            error = TransferError(kind: .refused, message: "libcurl refused the request: \(easy.errorMessage(for: code))")
        } else if code == CURLE_COULDNT_CONNECT, let proxy = request.client.proxy, !proxy.isDirect {
            // Through a proxy, the connection that failed is the proxy's.
            error = TransferError(
                kind: .network,
                message: "\(easy.errorMessage(for: code)): that is the proxy \(proxy) (--proxy or all-proxy=); is it running?")
        } else {
            error = TransferError(kind: .network, message: easy.errorMessage(for: code))
        }
        delegate?.transfer(self, didCompleteWith: error)
    }

    /// Why the proxy refused this transfer's tunnel or login; nil when it did not.
    private func proxyRefusal(_ code: CURLcode) -> String? {
        let login = request.client.proxy.map { URLCredentials.masked($0.value) != $0.value } ?? false
        let fix = login
            ? "check the user name and password in --proxy (or all-proxy=); write an @ in them as %40"
            : "give it as --proxy http://USER:PASSWORD@HOST:PORT"
        let status = easy.proxyConnectStatus
        if status == 407 {
            return "the proxy refused the tunnel to the origin with HTTP 407: it wants a login, or refused the one given; \(fix)"
        }
        if status >= 400 {
            return "the proxy refused the tunnel to the origin with HTTP \(status) "
                + "(\(HTTPStatusText.describe(status))): its policy may forbid this host or port; check the proxy"
        }
        if code == CURLE_PROXY, easy.socksRefusedLogin {
            return "the SOCKS proxy refused the login (\(easy.errorMessage(for: code))); \(fix)"
        }
        return nil
    }
}

import Foundation
