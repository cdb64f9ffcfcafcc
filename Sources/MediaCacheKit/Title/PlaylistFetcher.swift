/// Fetches a title's playlists into memory on the transfer loop: redirects followed
/// (the user's headers only to the entry's own origin, as for files), transient
/// failures retried with backoff, any other answer a failure that names the URL.
final class PlaylistFetcher {
    typealias Completion = (Result<(bytes: [UInt8], finalURL: String), JobFailure>) -> Void

    private unowned let job: DownloadJob

    init(job: DownloadJob) {
        self.job = job
    }

    /// Fetches `url`, refusing a body over `maxBytes` (an HLS playlist's limit by default).
    func fetch(_ url: String, maxBytes: Int = PlaylistText.maxBytes, completion: @escaping Completion) {
        fetch(url, maxBytes: maxBytes, hops: 0, failures: 0, completion: completion)
    }

    private func fetch(_ url: String, maxBytes: Int, hops: Int, failures: Int, completion: @escaping Completion) {
        let options = job.options
        let request = job.source.request(url: url, urlOrigin: URLParts(url)?.origin, rangeHeaders: [], options: options)
        HTTPExchange.start(
            request, userAgent: job.source.userAgent(options: options), maxBodyBytes: maxBytes, on: job.loop
        ) { [weak self] outcome in
            guard let self else { return }
            let shown = Printable.url(url)
            func retry(_ reason: String, retryAfter: Double?) {
                guard failures < options.retries else {
                    completion(.failure(JobFailure(.retriesExhausted, "the playlist \(shown) failed \(failures + 1) times, last: \(reason)")))
                    return
                }
                let delay = job.retryPolicy.delay(attempt: failures + 1, retryAfter: retryAfter)
                job.emit(.retry(url: job.url, attempt: failures + 1, delay: delay, reason: "the playlist \(shown): \(reason)"))
                _ = job.loop.after(delay) { [weak self] in
                    self?.fetch(url, maxBytes: maxBytes, hops: hops, failures: failures + 1, completion: completion)
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
                fetch(target, maxBytes: maxBytes, hops: hops + 1, failures: failures, completion: completion)
            case .success(let response) where response.head.status == 200:
                completion(.success((response.body, url)))
            case .success(let response) where RetryPolicy.isTransient(status: response.head.status):
                retry("HTTP \(response.head.status)", retryAfter: response.head.retryAfter())
            case .success(let response):
                let status = response.head.status
                completion(.failure(JobFailure(
                    .httpStatus, "HTTP \(status) for the playlist \(shown)\(DownloadJob.advice(status))", cause: .status(status))))
            }
        }
    }
}
