/// The fleet tier's copy of the file (`--tier`, `pull`): its object is fetched in ranges
/// like any origin's file, with signed requests that go to the store's endpoint only
/// (no `-H` headers, cookies or netrc, no redirects followed), and is trusted by the
/// record's SHA-256 rather than by sniffing. A copy that fails, or a store that stops
/// answering, hands the file to the origin from its first byte, unless nothing else
/// may be used.
struct TierCopySource: Source {
    let record: TierRecord
    let tier: TierSource
    /// Takes over when the copy fails.
    let origin: OriginSource
    private let objectURL: String
    private let signing: S3Signing
    private let endpointOrigin: String?

    init(record: TierRecord, tier: TierSource, origin: OriginSource) {
        self.record = record
        self.tier = tier
        self.origin = origin
        (objectURL, signing) = tier.objectRequest(for: record)
        endpointOrigin = URLParts(objectURL)?.origin
    }

    var kind: DownloadSource { .tier }

    var probeURL: String { objectURL }

    func fragmentURL(answeredAt: String?) -> String { objectURL }

    func request(url: String, urlOrigin: String?, rangeHeaders: [String], options: PrefetchOptions) -> HTTPRequest {
        var request = HTTPRequest(
            url: url, headers: rangeHeaders, stallTimeout: options.stallTimeout,
            lowSpeedLimit: Int(options.lowestSpeedLimit), verifyTLS: tier.store.client.configuration.verifyTLS)
        request.origin = urlOrigin
        // The credentials go to the endpoint and nowhere else.
        if urlOrigin != nil && urlOrigin == endpointOrigin { request.s3Signing = signing }
        return request
    }

    func userAgent(options: PrefetchOptions) -> String { options.userAgent }

    var mayServeErrorPages: Bool { false }

    /// One: the origin is a better bet than waiting for a store in trouble.
    func retries(options: PrefetchOptions) -> Int { 1 }

    var waitsOutSilence: Bool { false }

    var mayStreamWhole: Bool { false }

    func refusesRedirect(from url: String, to target: String) -> String? {
        "the store redirected \(url) to \(Printable.url(target)), which a tier's requests never follow"
    }

    func lengthProblem(_ length: Int64?) -> String? {
        guard length != record.size else { return nil }
        return "the store has \(length.map(String.init) ?? "an unknown number of") bytes, its record says \(record.size)"
    }

    /// The store's URL and type say nothing of the file: its record does.
    func describe(answerFrom url: String, head: HTTPResponseHead) -> AnswerFacts {
        AnswerFacts(finalURL: nil, contentType: record.contentType)
    }

    /// Named as its object will be once stored, not by the store's validators.
    func readersData(state: JobState) -> DownloadData {
        DownloadData(
            length: state.length, contentType: record.contentType,
            originVersion: record.faststart == .relocated ? nil : record.etag ?? record.lastModified,
            storedSHA256: record.sha256)
    }

    /// The origin, from the first byte (the copy's bytes may be laid out otherwise),
    /// unless nothing else may be used. A store that does not answer is not asked again
    /// in this run.
    func fallback(after trouble: SourceTrouble) -> SourceFallback {
        if case .unanswered(let reason) = trouble {
            let error = TierError.unreachable(endpoint: tier.store.client.configuration.endpoint, reason: reason)
            tier.markUnusable(error)
            guard tier.fallback == .origin(required: false) else {
                return .fail(JobFailure(.tier, "the tier cannot be used: \(error)"), keepPartial: true)
            }
            // The run's warning says why.
            return copyFailed("the store stopped answering")
        }
        return copyFailed(trouble.reason)
    }

    private func copyFailed(_ reason: String) -> SourceFallback {
        let message = "the tier's copy \(tier.objectName(for: record)): \(reason)"
        guard tier.fallback != .none else { return .fail(JobFailure(.tier, message), keepPartial: false) }
        return .next(origin, keepsHeldBytes: false, notice: message + "; fetching it from the origin")
    }
}
