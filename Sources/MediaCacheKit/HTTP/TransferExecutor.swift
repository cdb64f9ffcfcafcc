import CCurl
import CShims

/// What `TransferLoop` needs of libcurl's multi interface: run transfers, wait for
/// activity, report the ones that ended. `CurlMulti` is the real one; tests give the
/// loop a scripted one, so a download's whole life runs without a socket.
protocol TransferExecutor: AnyObject {
    /// Starts `transfer`: its head, body and end reach it through its own callbacks.
    func add(_ transfer: HTTPTransfer)
    /// Stops `transfer` (no callback after this); false if it was not running.
    @discardableResult
    func remove(_ transfer: HTTPTransfer) -> Bool
    /// Waits up to `milliseconds` for activity, or until `wakeup`.
    func wait(milliseconds: Int)
    /// Ends a `wait` early. Safe from any thread.
    func wakeup()
    /// Moves the running transfers on (their callbacks run inside) and returns those
    /// that ended, with their results, no longer running.
    func perform() -> [(HTTPTransfer, CURLcode)]
    /// The transfers running now.
    var running: [HTTPTransfer] { get }
    /// How many run now (without copying them out).
    var runningCount: Int { get }
    /// Stops or restarts reading `transfer`'s response (`curl_easy_pause`): what arrives
    /// meanwhile is kept, and may be delivered before a restart returns.
    func setReceiving(_ transfer: HTTPTransfer, paused: Bool) -> CURLcode
}

/// libcurl's multi handle: poll, perform, and the completions `info_read` drains. Owned
/// by one `TransferLoop` and used on its thread, except `wakeup` (libcurl's is thread-safe).
final class CurlMulti: TransferExecutor {
    private let multi: UnsafeMutableRawPointer
    private var active: [UnsafeMutableRawPointer: HTTPTransfer] = [:]

    /// `maxConnections` bounds the connections kept open, idle ones included.
    init(maxConnectionsPerHost: Int, maxConnections: Int) {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        multi = curl_multi_init()
        CShims_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, maxConnectionsPerHost)
        CShims_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, maxConnections)
        CShims_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
    }

    deinit {
        for (handle, _) in active { curl_multi_remove_handle(multi, handle) }
        curl_multi_cleanup(multi)
    }

    var running: [HTTPTransfer] { Array(active.values) }
    var runningCount: Int { active.count }

    func add(_ transfer: HTTPTransfer) {
        active[transfer.easy.handle] = transfer
        curl_multi_add_handle(multi, transfer.easy.handle)
    }

    func remove(_ transfer: HTTPTransfer) -> Bool {
        guard active.removeValue(forKey: transfer.easy.handle) != nil else { return false }
        curl_multi_remove_handle(multi, transfer.easy.handle)
        return true
    }

    func wait(milliseconds: Int) { curl_multi_poll(multi, nil, 0, Int32(milliseconds), nil) }

    func wakeup() { curl_multi_wakeup(multi) }

    func setReceiving(_ transfer: HTTPTransfer, paused: Bool) -> CURLcode {
        paused ? transfer.easy.pauseReceiving() : transfer.easy.resumeReceiving()
    }

    func perform() -> [(HTTPTransfer, CURLcode)] {
        var running: Int32 = 0
        curl_multi_perform(multi, &running)
        var ended: [(HTTPTransfer, CURLcode)] = []
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi, &queued) {
            guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
                let transfer = active[handle]
            else { continue }
            ended.append((transfer, CShims_multi_message_result(message)))
            _ = remove(transfer)
        }
        return ended
    }
}
