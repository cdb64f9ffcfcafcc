/// The file's own URL and its mirrors, in the list's order: the user's headers, cookies,
/// proxy and Referer go with its requests, a text answer may be an error page, and when
/// one URL fails for good the next mirror takes over, keeping what is held (checked by
/// its validators, like any resume).
struct OriginSource: Source {
    let entry: ListEntry
    /// `-H` headers that apply to this entry.
    let commandHeaders: [String]
    /// The index in `entry.urls` of the URL in use.
    let mirror: Int
    /// That URL's `scheme://host:port`: the user's headers go there and nowhere else.
    private let mirrorOrigin: String?

    init(entry: ListEntry, commandHeaders: [String], mirror: Int = 0) {
        self.entry = entry
        self.commandHeaders = commandHeaders
        self.mirror = mirror
        mirrorOrigin = URLParts(entry.urls[mirror])?.origin
    }

    var url: String { entry.urls[mirror] }

    var kind: DownloadSource { .origin }

    var probeURL: String { url }

    func fragmentURL(answeredAt: String?) -> String { answeredAt ?? url }

    func request(url: String, urlOrigin: String?, rangeHeaders: [String], options: PrefetchOptions) -> HTTPRequest {
        // A Range or If- header saved before they were refused would answer every request
        // with its one range.
        let headers = (commandHeaders + entry.headers).filter { !HeaderValueCheck.isReserved(header: $0) }
        let sendsHeaders = !headers.isEmpty && urlOrigin != nil && urlOrigin == mirrorOrigin
        var request = HTTPRequest(
            url: url, headers: (sendsHeaders ? headers : []) + rangeHeaders, stallTimeout: options.stallTimeout,
            lowSpeedLimit: Int(options.lowestSpeedLimit), verifyTLS: options.verifyTLS)
        request.origin = urlOrigin
        request.client = clientSettings(options: options)
        return request
    }

    /// The run's proxy, cookies, netrc and Referer, with the entry's `all-proxy=` and
    /// `referer=` in their place. A Referer of `*` is the URL in use (as aria2 reads it).
    /// No Referer carries a login or a fragment (RFC 9110): it goes to every host a
    /// redirect leads to.
    func clientSettings(options: PrefetchOptions) -> ClientSettings {
        var settings = options.client
        if let proxy = entry.proxy { settings.proxy = proxy }
        if let referer = entry.referer { settings.referer = referer }
        if settings.referer == "*" { settings.referer = url }
        settings.referer = settings.referer.map(URLCredentials.asReferer)
        return settings
    }

    /// The entry's `user-agent=`, else the run's.
    func userAgent(options: PrefetchOptions) -> String { entry.userAgent ?? options.userAgent }

    var mayServeErrorPages: Bool { true }

    func retries(options: PrefetchOptions) -> Int { options.retries }

    var waitsOutSilence: Bool { true }

    var mayStreamWhole: Bool { true }

    func refusesRedirect(from url: String, to target: String) -> String? { nil }

    func lengthProblem(_ length: Int64?) -> String? { nil }

    func describe(answerFrom url: String, head: HTTPResponseHead) -> AnswerFacts {
        AnswerFacts(finalURL: url, contentType: head.mediaType, originName: head.dispositionName)
    }

    func readersData(state: JobState) -> DownloadData {
        DownloadData(
            length: state.length, contentType: state.contentType,
            originVersion: state.validators.etag ?? state.validators.lastModified)
    }

    /// The next mirror, if there is one; bytes that are not the file are nobody's to
    /// resume, so they end the job.
    func fallback(after trouble: SourceTrouble) -> SourceFallback {
        if case .badBytes = trouble { return .exhausted }
        guard mirror + 1 < entry.urls.count else { return .exhausted }
        let next = OriginSource(entry: entry, commandHeaders: commandHeaders, mirror: mirror + 1)
        return .next(next, keepsHeldBytes: true, notice: "\(trouble.reason); trying mirror \(Printable.url(next.url))")
    }
}
