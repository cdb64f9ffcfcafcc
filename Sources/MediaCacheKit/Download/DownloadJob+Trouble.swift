import Foundation

/// What a job does when a response goes wrong: retry after a backoff, hand over to the
/// next source, start over on a changed origin, or fall back to one stream.
extension DownloadJob {
    /// A failure worth retrying. Failures of several connections during one backoff
    /// count once, so one outage does not use up every retry; past the source's
    /// retries, the next source takes over.
    func transientFailure(_ reason: String, cause: JobFailure.Cause, retryAfter: Double?) {
        guard let attempt else { return }
        let now = TransferLoop.now()
        if !attempt.isBackingOff(at: now) {
            failuresInARow += 1
            let retries = source.retries(options: options)
            if failuresInARow > retries {
                if tryNextSource(after: .failed(reason)) { return }
                fail(
                    JobFailure(.retriesExhausted, "gave up after \(retries) \(retries == 1 ? "retry" : "retries"): \(reason)", cause: cause),
                    keepPartial: true)
                return
            }
            let delay = retryPolicy.delay(attempt: failuresInARow, retryAfter: retryAfter)
            attempt.backOff(until: now + delay)
            emit(.retry(url: url, attempt: failuresInARow, delay: delay, reason: reason))
            // A player waiting for the data hears at once that the origin is busy.
            if case .status(let status) = cause, [429, 503].contains(status) {
                download.held.noteBusy(OriginBusy(reason: reason, status: status, retryAt: Date(timeIntervalSinceNow: delay)))
            }
        } else if let retryAfter {
            attempt.backOff(until: now + min(retryAfter, options.maxRetryAfter))
        }
        scheduleWake(at: attempt.backoffUntil ?? now)
    }

    /// Has the job look again at `deadline` (a backoff's end, a hold's, the next stall
    /// check): a failed probe is tried again, else the connections are filled. The wake
    /// is the attempt's, and goes with it.
    func scheduleWake(at deadline: Double) {
        guard let attempt else { return }
        attempt.wake(at: deadline, on: loop) { [weak self, weak attempt] in
            guard let self, let attempt, self.attempt === attempt else { return }
            if case .probing = self.phase, attempt.isIdle {
                self.startProbe()
            } else {
                self.fillConnections()
            }
        }
    }

    /// The origin now serves different bytes: drop what is held and start over, so
    /// two versions are never spliced.
    func originChanged(_ reason: String) {
        originChanges += 1
        cancelAllTransfers()
        if originChanges > options.maxOriginChanges {
            fail(
                JobFailure(
                    .originUnstable,
                    "the file changed \(originChanges) times while downloading; try again when the origin is stable"),
                keepPartial: false)
            return
        }
        emit(.notice(url: url, message: "\(reason); starting over"))
        state.discardData()
        furthestStreamed = 0
        checkpoint()
        startProbe()
    }

    /// The origin mishandles Range: fetch the file as one stream from byte 0, if the
    /// source allows it.
    func fallBackToSingleStream(_ reason: String) {
        // Nothing to fall back to for a source that may not stream whole, nor for one
        // streaming already: the request that drew this sent no Range, and another like
        // it would draw the same answer (an origin that says 416 to anything looped here).
        guard source.mayStreamWhole, state.rangesSupported else {
            let reason = state.rangesSupported ? reason : "\(reason), also to a request without Range"
            if !tryNextSource(after: .failed(reason)) { fail(JobFailure(.badResponse, reason), keepPartial: false) }
            return
        }
        cancelAllTransfers()
        state.discardData()
        state.rangesSupported = false
        emit(.notice(url: url, message: "\(reason); fetching it as one stream"))
        checkpoint()
        startProbe()
    }

    func cancelAllTransfers() {
        attempt?.cancel(on: loop)
    }
}

/// An origin whose servers each name one file's version their own way (nginx's ETag and
/// Last-Modified come from each server's copy's modification time): behind a load
/// balancer, consecutive requests see the version change, then change back.
extension DownloadJob {
    func noteVersion(_ validators: Validators) {
        if !versionsSeen.contains(validators) { versionsSeen.append(validators) }
    }

    /// Why the origin's servers, not the file, vary, when `incoming` (which differs from
    /// the version held) is one the origin named before in this run at the same length
    /// (A, B, A: a load balancer over copies with dates of their own, as nginx names
    /// them); nil otherwise. Their copies may still differ at one length, so ranges from
    /// several of them could splice two files: the caller fetches it from one, in one
    /// answer (no Range, so no If-Range either).
    func namesAVersionSeenBefore(_ incoming: Validators) -> String? {
        guard incoming.length == state.validators.length, incoming.length != nil, versionsSeen.contains(incoming)
        else { return nil }
        let names = Set(versionsSeen.filter { $0.length == incoming.length }.map { $0.etag ?? $0.lastModified ?? "?" })
        return "the origin's servers name this file \(names.count) ways (\(names.sorted().joined(separator: ", ")), "
            + "each again after another, at one length: a load balancer over copies of their own?), "
            + "and ranges from several of them could splice two files"
    }
}
