import CCurl
import CShims

extension CurlEasy {
    /// Sets proxy, cookie, netrc and Referer options on this handle.
    func apply(_ settings: ClientSettings) {
        if let proxy = settings.proxy {
            // An empty string turns off the environment's proxy too (CURLOPT_PROXY).
            setString(CURLOPT_PROXY, proxy.value)
        }
        if let noProxy = settings.noProxy { setString(CURLOPT_NOPROXY, noProxy) }
        // -H and header= lines are for the origin: never sent to a proxy as proxy
        // headers, and for https they travel only inside the CONNECT tunnel.
        setLong(CURLOPT_HEADEROPT, Int(CURLHEADER_SEPARATE))
        // The proxy's answer to CONNECT is not the origin's response head.
        setLong(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
        if let cookieFile = settings.cookieFile { setString(CURLOPT_COOKIEFILE, cookieFile) }
        if let netrcFile = settings.netrcFile {
            setLong(CURLOPT_NETRC, Int(CURL_NETRC_OPTIONAL.rawValue))
            setString(CURLOPT_NETRC_FILE, netrcFile)
        }
        if let referer = settings.referer { setString(CURLOPT_REFERER, referer) }
    }
}
