/// How a request reaches its origin and who it says it comes from: proxy, cookies,
/// netrc logins, Referer. The same for every request of a run, except what a list
/// entry overrides (`all-proxy=`, `referer=`).
public struct ClientSettings: Sendable, Equatable {
    /// nil: libcurl's choice from the environment (`http_proxy`, `https_proxy`,
    /// `HTTPS_PROXY`, `all_proxy`, `ALL_PROXY`); `.direct`: no proxy at all.
    public var proxy: ProxyURL?
    /// Hosts reached without the proxy, in curl's NOPROXY syntax (`*`, or names and
    /// addresses separated by commas; a leading dot or none matches subdomains too).
    /// nil: `no_proxy`/`NO_PROXY` from the environment.
    public var noProxy: String?
    /// A Netscape cookies.txt file for libcurl's cookie engine, which sends each cookie
    /// only to the hosts, paths and schemes it matches.
    public var cookieFile: String?
    /// A netrc file whose logins are used for the hosts it names (`--netrc`, `--netrc-file`).
    public var netrcFile: String?
    /// The `Referer` header, if any.
    public var referer: String?

    public init(
        proxy: ProxyURL? = nil, noProxy: String? = nil, cookieFile: String? = nil, netrcFile: String? = nil,
        referer: String? = nil
    ) {
        self.proxy = proxy
        self.noProxy = noProxy
        self.cookieFile = cookieFile
        self.netrcFile = netrcFile
        self.referer = referer
    }
}
