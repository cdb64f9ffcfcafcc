import ArgumentParser
import Foundation
import MediaCacheKit

/// How `prefetch` and `resume` reach origins and present themselves: proxy, cookies,
/// netrc logins, User-Agent, Referer, and the per-host connection cap.
struct NetworkOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Proxy for every request: [http|https|socks5|socks5h://][user:password@]host[:port] (no scheme: http; '': none, not even from the environment). A list entry's all-proxy= wins.",
            valueName: "url"))
    var proxy: String?

    @Option(
        name: .customLong("no-proxy"),
        help: ArgumentHelp(
            "Hosts reached without the proxy, comma-separated (curl's NOPROXY: '*' for all; a name also matches its subdomains; IP addresses and CIDR ranges); replaces no_proxy from the environment.",
            valueName: "hosts"))
    var noProxy: String?

    @Option(
        name: .customLong("load-cookies"),
        help: ArgumentHelp(
            "Netscape cookies.txt file (as browser exporters, curl, wget, aria2 and yt-dlp write); each cookie goes only to the hosts and paths it matches.",
            valueName: "file"),
        completion: .file())
    var loadCookies: String?

    @Flag(inversion: .prefixedNo, help: "Log in to origins with the logins in ~/.netrc.")
    var netrc = false

    @Option(
        name: .customLong("netrc-file"),
        help: ArgumentHelp("Log in to origins with the logins in this netrc file.", valueName: "file"),
        completion: .file())
    var netrcFile: String?

    @Option(
        name: .customLong("user-agent"),
        help: ArgumentHelp(
            "User-Agent header (default: mediacache/VERSION); a list entry's user-agent= wins.", valueName: "string"))
    var userAgent: String?

    @Option(
        help: ArgumentHelp(
            "Referer header for every request ('*': the entry's own URL); a list entry's referer= wins.",
            valueName: "url"))
    var referer: String?

    @Option(
        name: .customLong("max-connections-per-host"),
        help: ArgumentHelp(
            "Connections open to one host at once, across all files (1-64; through a proxy: to the proxy).",
            valueName: "n"))
    var maxConnectionsPerHost = 16

    static let connectionsPerHostRange = 1...64

    func validate() throws {
        guard Self.connectionsPerHostRange.contains(maxConnectionsPerHost) else {
            throw ValidationError("--max-connections-per-host must be between 1 and 64")
        }
        if let proxy {
            do { _ = try ProxyURL(parsing: proxy) } catch { throw ValidationError("--proxy: \(error.description)") }
        }
        if let noProxy, noProxy.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw ValidationError("--no-proxy contains control characters")
        }
        if let userAgent, let problem = HeaderValueCheck.problem(userAgent, name: "--user-agent") {
            throw ValidationError(problem)
        }
        if let referer, let problem = HeaderValueCheck.problem(referer, name: "--referer") {
            throw ValidationError(problem)
        }
        if netrc && netrcFile != nil { throw ValidationError("give --netrc or --netrc-file, not both") }
        // Checked up front: libcurl skips a cookie or netrc file it cannot open without a
        // word, and every request would then go out without the login.
        if let loadCookies {
            if let problem = InputFileCheck.problem(loadCookies) {
                throw ValidationError("--load-cookies: cannot read \(loadCookies): \(problem)")
            }
            if let problem = CookieFileCheck.problem(path: loadCookies) {
                throw ValidationError("--load-cookies: \(loadCookies) \(problem)")
            }
        }
        if let path = netrcPath, let problem = InputFileCheck.problem(path) {
            throw ValidationError("\(netrc ? "--netrc" : "--netrc-file"): cannot read \(path): \(problem)")
        }
    }

    /// `--netrc-file`, else `$HOME/.netrc` for `--netrc` (the home directory of the
    /// password database without HOME), where libcurl looks for it.
    var netrcPath: String? {
        if let netrcFile { return netrcFile }
        guard netrc else { return nil }
        let home = ProcessInfo.processInfo.environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return (home.hasSuffix("/") ? home : home + "/") + ".netrc"
    }

    func apply(to options: inout PrefetchOptions) {
        options.maxConnectionsPerHost = maxConnectionsPerHost
        if let userAgent { options.userAgent = userAgent }
        options.client = ClientSettings(
            proxy: proxy.flatMap { try? ProxyURL(parsing: $0) }, noProxy: noProxy, cookieFile: loadCookies,
            netrcFile: netrcPath, referer: referer)
    }
}
