/// Where a download's bytes come from, like Media3's `DataSource`: the URLs asked, how
/// each request is made (headers, client settings, signing), what counts as a bad
/// answer, how often a failure is retried, and what takes over when this source fails.
///
/// The job asks its source and never which kind it is: an origin with its mirrors and a
/// tier copy are two sources; a presentation's segment will be a third.
protocol Source: Sendable {
    /// How events name where the bytes come from.
    var kind: DownloadSource { get }

    /// Where an attempt's first request goes.
    var probeURL: String { get }

    /// Where an attempt's other requests go, once the probe was answered at `answeredAt`
    /// (after redirects).
    func fragmentURL(answeredAt: String?) -> String

    /// The request for `url`, which belongs to the origin `urlOrigin` (its parsed
    /// `scheme://host:port`), with `rangeHeaders` (Range, If-Range) added.
    func request(url: String, urlOrigin: String?, rangeHeaders: [String], options: PrefetchOptions) -> HTTPRequest

    /// The User-Agent its requests send.
    func userAgent(options: PrefetchOptions) -> String

    /// Whether a text body may be an error page instead of the file (an origin's may; a
    /// tier copy is checked by its hash, so text in it is the file's).
    var mayServeErrorPages: Bool { get }

    /// Transient failures in a row that are retried before this source is given up.
    func retries(options: PrefetchOptions) -> Int

    /// Whether a request that got no answer at all is retried like any failure (an
    /// origin), or means the source is gone (a store: the origin is asked at once).
    var waitsOutSilence: Bool { get }

    /// Whether a file whose Range answers cannot be trusted may be fetched as one
    /// stream from byte 0 instead.
    var mayStreamWhole: Bool { get }

    /// Why a redirect from `url` to `target` is not followed; nil: it is.
    func refusesRedirect(from url: String, to target: String) -> String?

    /// Why an answer of `length` bytes cannot be this source's file; nil: it can be.
    func lengthProblem(_ length: Int64?) -> String?

    /// What an accepted first answer (from `url`, with `head`) says about the file.
    func describe(answerFrom url: String, head: HTTPResponseHead) -> AnswerFacts

    /// What readers learn of the bytes while they arrive.
    func readersData(state: JobState) -> DownloadData

    /// What takes over after `trouble`.
    func fallback(after trouble: SourceTrouble) -> SourceFallback
}

/// What an accepted first answer says about the file.
struct AnswerFacts: Equatable {
    /// Where the origin's file was found (after redirects): later requests and the
    /// stored name's extension come from it. Nil when the URL says nothing of the file.
    var finalURL: String?
    var contentType: String?
    /// The file's name as the origin gives it (`Content-Disposition`).
    var originName: String? = nil
}

/// Why a source is being left.
enum SourceTrouble: Equatable {
    /// It failed in a way no retry of it will mend: retries used up, a final status, a
    /// refused connection, an answer that contradicts itself or cannot be stored.
    case failed(String)
    /// A request got no answer at all (for a source that does not wait out silence).
    case unanswered(String)
    /// The bytes it gave are not the file (a digest or length that is not the expected
    /// one): nothing held from it may be kept.
    case badBytes(String)

    var reason: String {
        switch self {
        case .failed(let reason), .unanswered(let reason), .badBytes(let reason): reason
        }
    }
}

/// What a source says takes over when it fails.
enum SourceFallback {
    /// `source` gives the file from now on; `notice` says why. Held bytes stay when
    /// `keepsHeldBytes` (they are checked like any resume's), else the file starts over.
    case next(any Source, keepsHeldBytes: Bool, notice: String)
    /// Nothing else may be used: the job fails with the source's own reason.
    case fail(JobFailure, keepPartial: Bool)
    /// There is no other source: the caller's failure stands.
    case exhausted
}
