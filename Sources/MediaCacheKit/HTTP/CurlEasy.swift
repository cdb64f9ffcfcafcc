import CCurl
import CShims

/// One libcurl easy handle configured for a single request, and the C callbacks that feed
/// its response to an `HTTPTransfer`. This file, its extensions and `TransferLoop` are
/// the only places that hold libcurl's raw pointers.
final class CurlEasy {
    let handle: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// What libcurl reads a PUT or POST body from; kept alive as long as the handle.
    private var bodySource: RequestBodySource?

    /// `receiveBuffers`: the small buffers of a rate-limited transfer; nil for the usual ones.
    init(request: HTTPRequest, userAgent: String, owner: HTTPTransfer, receiveBuffers: ReceiveBuffers? = nil) {
        handle = curl_easy_init()
        let size = CShims_error_buffer_size()
        errorBuffer = .allocate(capacity: size)
        errorBuffer.initialize(repeating: 0, count: size)

        setString(CURLOPT_URL, request.url)
        setString(CURLOPT_USERAGENT, userAgent)
        apply(request.client)
        bodySource = apply(request.method, body: request.body)
        let signingHeaders = request.s3Signing.map(apply) ?? []
        // Only http(s), for the first request and after any redirect.
        setString(CURLOPT_PROTOCOLS_STR, "http,https")
        setString(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        // Redirects are followed by the engine, which drops custom headers on a host change.
        setLong(CURLOPT_FOLLOWLOCATION, 0)
        setLong(CURLOPT_NOSIGNAL, 1)
        setLong(CURLOPT_CONNECTTIMEOUT, request.stallTimeout)
        setLong(CURLOPT_LOW_SPEED_LIMIT, max(1, request.lowSpeedLimit))
        setLong(CURLOPT_LOW_SPEED_TIME, request.stallTimeout)
        if !request.verifyTLS {
            setLong(CURLOPT_SSL_VERIFYPEER, 0)
            setLong(CURLOPT_SSL_VERIFYHOST, 0)
        } else {
            let authorities = CertificateAuthorities.current
            if let file = authorities.file { setString(CURLOPT_CAINFO, file) }
            if let directory = authorities.directory { setString(CURLOPT_CAPATH, directory) }
        }
        setLong(CURLOPT_TCP_KEEPALIVE, 1)
        setLong(CURLOPT_BUFFERSIZE, receiveBuffers?.chunkBytes ?? ReceiveBuffers.unlimitedChunkBytes(transfers: 1))
        if let receiveBuffers { CShims_easy_set_receive_buffer(handle, receiveBuffers.socketBytes) }
        // Prefer multiplexing on an existing HTTP/2 connection over opening a new one. Only
        // https can be HTTP/2 here; over http, libcurl 7.88 would keep a transfer waiting
        // for the first connection to the host until that one's response ended.
        if request.url.lowercased().hasPrefix("https:") { setLong(CURLOPT_PIPEWAIT, 1) }
        setLong(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        CShims_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer)

        for line in request.headers + signingHeaders { headerList = curl_slist_append(headerList, line) }
        // Identity bytes only: a compressed body would not match Range offsets.
        headerList = curl_slist_append(headerList, "Accept-Encoding: identity")
        CShims_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList)

        let context = Unmanaged.passUnretained(owner).toOpaque()
        CShims_easy_setopt_pointer(handle, CURLOPT_HEADERDATA, context)
        CShims_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, context)
        CShims_easy_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION, curlHeaderCallback)
        CShims_easy_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION, curlWriteCallback)
    }

    deinit {
        curl_easy_cleanup(handle)
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    /// Stops reading the connection (libcurl keeps what it read already).
    func pauseReceiving() -> CURLcode {
        curl_easy_pause(handle, CURLPAUSE_RECV)
    }

    /// Reads the connection again; what libcurl kept is delivered before this returns.
    func resumeReceiving() -> CURLcode {
        curl_easy_pause(handle, CURLPAUSE_RECV_CONT)
    }

    /// libcurl's receive buffer (`CURLOPT_BUFFERSIZE`), before the transfer starts.
    func setReceiveChunk(_ bytes: Int) {
        setLong(CURLOPT_BUFFERSIZE, bytes)
    }

    /// Sets the receive buffer of the connection in use now (a reused one keeps the
    /// buffer it was made with). Best effort: the transfer runs either way.
    func resizeReceiveBuffer(_ bytes: Int) {
        _ = CShims_easy_resize_active_receive_buffer(handle, Int32(clamping: bytes))
    }

    /// The status a proxy answered the tunnel's CONNECT with; 0 when none did.
    var proxyConnectStatus: Int {
        var value = 0
        return CShims_easy_getinfo_long(handle, CURLINFO_HTTP_CONNECTCODE, &value) == CURLE_OK ? value : 0
    }

    /// Whether a SOCKS proxy refused the login (or wanted one none was given), after
    /// `CURLE_PROXY`.
    var socksRefusedLogin: Bool {
        var value = 0
        guard CShims_easy_getinfo_long(handle, CURLINFO_PROXY_ERROR, &value) == CURLE_OK else { return false }
        return [CURLPX_USER_REJECTED, CURLPX_NO_AUTH, CURLPX_RECV_AUTH].map { Int($0.rawValue) }.contains(value)
    }

    /// Bytes the connection in use has received that libcurl has not read yet (nil if
    /// it cannot be told).
    var queuedBytes: Int64? {
        let queued = CShims_easy_queued_bytes(handle)
        return queued >= 0 ? Int64(queued) : nil
    }

    /// Runs the whole transfer on the calling thread, without a multi loop: every
    /// callback has run when it returns. For the tier's short requests.
    func perform() -> CURLcode {
        Self.globalInit
        return curl_easy_perform(handle)
    }

    /// `TransferLoop` initialises libcurl too; a process that only performs blocking
    /// requests does it here, once.
    private static let globalInit: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    /// Why reading the request body failed, else libcurl's detailed message for the last
    /// failure, else its generic text.
    func errorMessage(for code: CURLcode) -> String {
        if let failure = bodySource?.failure { return failure }
        let detail = String(cString: errorBuffer)
        return detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
    }

    func setLong(_ option: CURLoption, _ value: Int) {
        CShims_easy_setopt_long(handle, option, value)
    }

    func setString(_ option: CURLoption, _ value: String) {
        CShims_easy_setopt_string(handle, option, value)
    }
}

private func curlHeaderCallback(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let data, let context else { return 0 }
    let transfer = Unmanaged<HTTPTransfer>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    let line = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    return transfer.receiveHeaderLine(line) ? length : 0
}

private func curlWriteCallback(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let data, let context else { return 0 }
    let transfer = Unmanaged<HTTPTransfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.receiveBody(BodyChunk(bytes: UnsafeRawBufferPointer(start: data, count: size * count)))
}
