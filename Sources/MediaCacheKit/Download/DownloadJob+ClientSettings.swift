extension DownloadJob {
    /// The run's proxy, cookies, netrc and Referer, with the entry's `all-proxy=` and
    /// `referer=` in their place. A Referer of `*` is the entry's URL in use (as aria2
    /// reads it).
    func clientSettings() -> ClientSettings {
        var settings = options.client
        if let proxy = request.entry.proxy { settings.proxy = proxy }
        if let referer = request.entry.referer { settings.referer = referer }
        if settings.referer == "*" { settings.referer = currentURL }
        return settings
    }

    /// The entry's `user-agent=`, else the run's.
    var userAgent: String { request.entry.userAgent ?? options.userAgent }
}
