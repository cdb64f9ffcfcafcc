/// Fetches a title's playlists into memory on the transfer loop: redirects followed
/// (the user's headers only to the entry's own origin, as for files), transient
/// failures retried with backoff, any other answer a failure that names the URL.
final class PlaylistFetcher {
    typealias Completion = (Result<(bytes: [UInt8], finalURL: String), JobFailure>) -> Void

    private unowned let job: DownloadJob
    /// The answer to the job's own request, which the title's entry gave: the first fetch
    /// of its URL takes it instead of asking the origin again.
    private var entry: Entry?

    private struct Entry {
        let url: String
        /// Nil while the body is still arriving.
        var answer: Result<HTTPExchange.Response, TransferError>?
        var waiting: (maxBytes: Int, completion: Completion)?
    }

    init(job: DownloadJob) {
        self.job = job
    }

    /// `transfer`, the job's request for `url`, is answering with the title's entry (a
    /// `format` playlist) whole: the rest of its body is read into memory for the first
    /// fetch of `url`, which then asks nothing. Returns how much of `chunk`, the body so
    /// far, was taken.
    func readEntry(from transfer: HTTPTransfer, url: String, format: PresentationFormat, first chunk: BodyChunk) -> Int {
        entry = Entry(url: url)
        let maxBytes = format == .hls ? PlaylistText.maxBytes : XMLElementTree.maxBytes
        let exchange = HTTPExchange.adopt(transfer, maxBodyBytes: maxBytes, on: job.loop) { [weak self] answer in
            guard let self, var entry = self.entry, entry.url == url else { return }
            entry.answer = answer
            self.entry = entry
            if let waiting = entry.waiting { takeEntry(maxBytes: waiting.maxBytes, completion: waiting.completion) }
        }
        return exchange.transfer(transfer, didReceive: chunk)
    }

    /// Fetches `url`, refusing a body over `maxBytes` (an HLS playlist's limit by default);
    /// `retries`: fewer than `--retries` (another copy can be read instead).
    func fetch(_ url: String, maxBytes: Int = PlaylistText.maxBytes, retries: Int? = nil, completion: @escaping Completion) {
        if entry?.url == url {
            if entry?.answer == nil {
                entry?.waiting = (maxBytes, completion)
            } else {
                takeEntry(maxBytes: maxBytes, completion: completion)
            }
            return
        }
        fetch(url, maxBytes: maxBytes, retries: retries ?? job.options.retries, hops: 0, failures: 0, completion: completion)
    }

    /// The entry's answer, once: its body if it arrived whole, else the playlist is asked
    /// for as any other (which retries and words a failure as for any other).
    private func takeEntry(maxBytes: Int, completion: @escaping Completion) {
        guard let entry else { return }
        self.entry = nil
        if case .success(let response) = entry.answer, response.body.count <= maxBytes {
            completion(Self.text(of: response, url: entry.url, maxBytes: maxBytes))
        } else {
            fetch(entry.url, maxBytes: maxBytes, retries: job.options.retries, hops: 0, failures: 0, completion: completion)
        }
    }

    /// A playlist's bytes as answered, decoded when the origin gzipped them (S3 serves an
    /// object stored gzipped so, whatever was asked); any other coding cannot be read.
    private static func text(
        of response: HTTPExchange.Response, url: String, maxBytes: Int
    ) -> Result<(bytes: [UInt8], finalURL: String), JobFailure> {
        guard let coding = response.head.value("content-encoding"), !ResponseCheck.leavesBytesAsTheyAre(coding)
        else { return .success((response.body, url)) }
        let shown = Printable.url(url)
        guard response.head.isGzipped else {
            return .failure(JobFailure(.badResponse, "the playlist \(shown) came with Content-Encoding: \(coding), which mediacache cannot read"))
        }
        do {
            return .success((try GzipBody.decode(response.body, limit: maxBytes), url))
        } catch {
            return .failure(JobFailure(.badResponse, "the playlist \(shown) came gzipped, but \(error)"))
        }
    }

    private func fetch(
        _ url: String, maxBytes: Int, retries: Int, hops: Int, failures: Int, completion: @escaping Completion
    ) {
        let options = job.options
        let request = job.source.request(url: url, urlOrigin: URLParts(url)?.origin, rangeHeaders: [], options: options)
        HTTPExchange.start(
            request, userAgent: job.source.userAgent(options: options), maxBodyBytes: maxBytes, on: job.loop
        ) { [weak self] outcome in
            guard let self else { return }
            let shown = Printable.url(url)
            func retry(_ reason: String, retryAfter: Double?) {
                guard failures < retries else {
                    completion(.failure(JobFailure(.retriesExhausted, "the playlist \(shown) failed \(failures + 1) times, last: \(reason)")))
                    return
                }
                let delay = job.retryPolicy.delay(attempt: failures + 1, retryAfter: retryAfter)
                job.emit(.retry(url: job.url, attempt: failures + 1, delay: delay, reason: "the playlist \(shown): \(reason)"))
                _ = job.loop.after(delay) { [weak self] in
                    self?.fetch(url, maxBytes: maxBytes, retries: retries, hops: hops, failures: failures + 1, completion: completion)
                }
            }
            switch outcome {
            case .failure(let error) where error.kind == .network || error.kind == .timedOut:
                retry(error.message, retryAfter: nil)
            case .failure(let error):
                completion(.failure(JobFailure(.badResponse, "the playlist \(shown): \(error.message)", cause: .transfer(error.kind))))
            case .success(let response) where response.head.isRedirect:
                guard hops < 10, let location = response.head.location,
                    let target = URLParts.resolve(location, against: url), URLParts.problem(with: target) == nil
                else {
                    completion(.failure(JobFailure(.redirect, "the playlist \(shown) redirected too often or to no usable URL")))
                    return
                }
                fetch(target, maxBytes: maxBytes, retries: retries, hops: hops + 1, failures: failures, completion: completion)
            case .success(let response) where response.head.status == 200:
                completion(Self.text(of: response, url: url, maxBytes: maxBytes))
            case .success(let response) where RetryPolicy.isTransient(status: response.head.status):
                retry("HTTP \(response.head.status)", retryAfter: response.head.retryAfter())
            case .success(let response):
                let status = response.head.status
                completion(.failure(JobFailure(
                    .httpStatus, "HTTP \(status) for the playlist \(shown)\(DownloadJob.advice(status, url: url))", cause: .status(status))))
            }
        }
    }
}
