import Foundation

/// How a job reads responses: heads decide whether bytes are trusted, bodies go to
/// disk at their offsets, completions decide retry-or-done in one place.
extension DownloadJob: HTTPTransferDelegate {
    func transfer(_ transfer: HTTPTransfer, didReceive head: HTTPResponseHead) -> Bool {
        loop.preconditionOnLoop()
        guard let attempt, let fragment = attempt.fragment(of: transfer) else { return false }
        let url = transfer.request.url
        let check = ResponseCheck(
            head: head,
            asked: ResponseCheck.Asked(
                isProbe: fragment.isProbe, requestedStart: fragment.requestedStart, sentRange: fragment.sentRange,
                sentIfRange: fragment.ifRange != nil,
                url: url, urlExpectsText: !source.mayServeErrorPages || expectsText(url)),
            held: ResponseCheck.Held(
                validators: state.validators, holdsBytes: !state.completed.isEmpty, lengthsAnnounced: lengthsAnnounced))
        switch check.verdict() {
        case .acceptProbe206(let total, let responseEnd, let rangesSupported):
            attempt.suspectMediaType = check.suspectMediaType
            let fresh = state.completed.isEmpty
            state.validators = check.incoming
            noteVersion(check.incoming)
            state.rangesSupported = rangesSupported
            return prepareDataFile(length: total, fresh: fresh, holding: transfer) { [self] in
                let gapEnd = state.completed.gaps(within: ByteRange(0, total)).first?.end ?? total
                fragment.end = fragment.end.map { min($0, gapEnd) } ?? gapEnd
                fragment.responseEnd = responseEnd
                acceptProbe(fragment, head, url: url)
            }
        case .acceptWhole200(let length, let startOver, let rangesSupported):
            attempt.suspectMediaType = check.suspectMediaType
            if let startOver {
                emit(.notice(url: self.url, message: startOver.notice))
                state.discardData()
            }
            state.validators = check.incoming
            noteVersion(check.incoming)
            state.rangesSupported = rangesSupported
            return prepareDataFile(length: length, fresh: true, holding: transfer) { [self] in
                fragment.next = 0
                fragment.compareUntil = 0
                fragment.end = length
                fragment.responseEnd = length
                acceptProbe(fragment, head, url: url)
            }
        case .acceptFragment(let responseEnd):
            fragment.responseEnd = responseEnd
            fragment.accepted = true
        case .emptyFile(let validators):
            state.validators = validators
            return prepareDataFile(length: 0, fresh: true, holding: transfer) {
                fragment.outcome = .data
                fragment.accepted = false
                fragment.end = 0
            }
        case .fallBackToSingleStream(let reason):
            fallBackToSingleStream(reason)
            return false
        case .versionChanged(let reason, let announcedLength):
            if let announcedLength { lengthsAnnounced.insert(announcedLength) }
            // Servers that each name the file their own way may hold different files under
            // that name, at one length: its bytes come from one of them, in one answer.
            if state.rangesSupported, let servers = namesAVersionSeenBefore(check.incoming) {
                fallBackToSingleStream(servers)
                return false
            }
            noteVersion(check.incoming)
            originChanged(reason)
            return false
        case .originContradicts(let reason):
            cancelAllTransfers()
            if !tryNextSource(after: .failed(reason)) { fail(JobFailure(.originUnstable, reason), keepPartial: false) }
            return false
        case .refuseEncoding(let encoding):
            let reason = "the body came with Content-Encoding: \(encoding) although only identity was asked for"
                + " (\(Printable.url(url))); its bytes are not the file's, so nothing was stored"
            if !tryNextSource(after: .failed(reason)) {
                fail(JobFailure(.badResponse, reason), keepPartial: !state.completed.isEmpty)
            }
            return false
        case .redirect(let target):
            fragment.outcome = .redirect(target)
        case .badRedirect(let reason):
            fragment.outcome = .badRedirect(reason)
        case .transientStatus(let status, let retryAfter):
            // A short error body: drained, then handled on completion.
            fragment.outcome = .transientStatus(status, retryAfter: retryAfter)
        case .errorPage(let reason):
            fragment.outcome = .errorPage(reason)
        case .fatalStatus(let status):
            fragment.outcome = .fatalStatus(status)
        }
        return true
    }

    /// The probe's head is accepted as the file: what it says becomes the state, and the
    /// fetch begins.
    private func acceptProbe(_ fragment: Fragment, _ head: HTTPResponseHead, url: String) {
        if let length = state.length { lengthsAnnounced.insert(length) }
        let facts = source.describe(answerFrom: url, head: head)
        state.finalURL = facts.finalURL
        if let link = facts.finalURL, link != source.probeURL { linksThatWorked.insert(link) }
        state.contentType = facts.contentType
        state.originName = facts.originName
        fragment.accepted = true
        beginFetching()
    }

    func transfer(_ transfer: HTTPTransfer, didReceive chunk: BodyChunk) -> Int {
        loop.preconditionOnLoop()
        guard let attempt, let fragment = attempt.fragment(of: transfer) else { return 0 }
        // Held while the data file is prepared: bytes now would land in a file being
        // emptied, so a transfer that sends them anyway stops (and is asked again).
        if case .preparingDataFile = phase { return 0 }
        guard fragment.accepted, let file = partial.dataFile else { return chunk.count }
        var chunk = chunk
        var consumed = 0
        if fragment.next < fragment.compareUntil {
            // The overlap re-check: these bytes are already held; they must be equal.
            let count = Int(min(Int64(chunk.count), fragment.compareUntil - fragment.next))
            let held = try? file.read(count: count, at: fragment.next)
            guard held == chunk.prefix(count).array else {
                originChanged("the file changed on the origin since the last run (bytes at \(fragment.next) differ)")
                return 0
            }
            fragment.next += Int64(count)
            consumed = count
            chunk = chunk.dropFirst(count)
            if chunk.count == 0 { return consumed }
        }
        if fragment.isProbe, !attempt.firstBytesChecked {
            attempt.firstBytesChecked = true
            if fragment.next == 0, source.kind == .origin,
                let format = PresentationDetection.format(
                    contentType: state.contentType, firstBytes: chunk.prefix(PresentationDetection.scanLimit).array)
                    ?? (transfer.head?.isGzipped == true ? namedPresentation(answeredBy: transfer) : nil)
            {
                return becomeTitle(format, answeredBy: transfer, first: chunk)
            }
            // A login page at a playlist's URL (the one listed, or the one answering) would be
            // cached as the title, for good.
            if fragment.next == 0, source.kind == .origin, let named = namedPresentation(answeredBy: transfer) {
                fail(JobFailure(.notMedia, PresentationDetection.notThePresentation(named)), keepPartial: false)
                return 0
            }
            if let reason = ResponseCheck.errorPage(
                firstBytes: chunk.prefix(512).array, suspectMediaType: attempt.suspectMediaType,
                atFileStart: fragment.next == 0,
                urlExpectsText: !source.mayServeErrorPages || expectsText(url))
            {
                fail(JobFailure(.notMedia, reason), keepPartial: false)
                return 0
            }
        }
        // Its bytes are a file's (a playlist's became a title above).
        announceFileStart()
        let count = Int(min(Int64(chunk.count), fragment.remaining ?? Int64(chunk.count)))
        guard count > 0 else { return consumed }
        if fragment.end == nil && fragment.next + Int64(count) > options.maxStreamSize {
            fail(JobFailure(.badResponse, PrefetchOptions.beyondStreamLimit(Printable.url(transfer.request.url), limit: options.maxStreamSize)), keepPartial: false)
            return 0
        }
        if let latency = fragment.noteBytes(count, now: TransferLoop.now()) {
            requestLatency = requestLatency.map { 0.7 * $0 + 0.3 * latency } ?? latency
        }
        do {
            try partial.write(chunk.prefix(count), at: fragment.next, epoch: state.epoch)
        } catch {
            fail(JobFailure(.io, "\(error)"), keepPartial: true)
            return 0
        }
        let written = ByteRange(fragment.next, fragment.next + Int64(count))
        let arrived = chunk.prefix(count)
        state.completed.insert(written)
        download.held.didWrite(written)
        fragment.next += Int64(count)
        bytesFetched += Int64(count)
        // A single stream restarts at 0 after a failure: only getting further than any
        // earlier attempt is progress, so an origin that always cuts it short is given up.
        if rangesUsable {
            failuresInARow = 0
        } else if fragment.next > furthestStreamed {
            failuresInARow = 0
            furthestStreamed = fragment.next
        }
        // A range cut for another connection is done though its response goes on: it
        // stops now, not when the origin's next burst arrives to be thrown away, and its
        // connection takes new work (or the file is committed).
        if fragment.isFinished && fragment.isCutShort {
            attempt.stop(fragment, on: loop)
            attempt.releaseHold(after: fragment)
            scheduleWake(at: 0)
        } else if state.isComplete && attempt.runsPastItsRange {
            // Every byte is held, but a response whose range was cut may go on past it,
            // and end only with the origin's next burst: commit now, not then.
            scheduleWake(at: 0)
        }
        if attempt.moovSearch != nil { advanceMoovSearch(arrived: arrived, at: written.start) }
        // Until the layout is known, the relocated digest could not follow the prefix.
        // (The search may have led to the commit, which took the hasher with it.)
        if let current = self.attempt, current.moovSearch == nil {
            current.hasher?.advance(to: state.completed.contiguousPrefix)
        }
        noteProgress()
        // Fewer than offered stops the transfer: its range now ends here.
        return consumed + count
    }

    func transfer(_ transfer: HTTPTransfer, didCompleteWith error: TransferError?) {
        loop.preconditionOnLoop()
        if case .preparingDataFile(let attempt) = phase, attempt.fragment(of: transfer) != nil {
            attempt.noteEndWhilePreparing(transfer, error: error)
            return
        }
        guard let attempt, let fragment = attempt.remove(transfer) else { return }
        // For messages only: a URL may be kilobytes long, and retries repeat it.
        let url = Printable.url(transfer.request.url)
        // Every line about the job names its URL; a message names another one (a mirror,
        // a redirect's target, the tier) only.
        func at(_ reason: String) -> String { transfer.request.url == state.entry.url ? reason : "\(reason) (\(url))" }
        attempt.releaseHold(after: fragment)
        switch fragment.outcome {
        case .redirect(let target):
            followRedirect(fragment, to: target, from: url)
            return
        case .badRedirect(let reason):
            fail(JobFailure(.redirect, at(reason)), keepPartial: true)
            return
        case .transientStatus(let status, let retryAfter):
            transientFailure(at(HTTPStatusText.describe(status)), cause: .status(status), retryAfter: retryAfter)
            return
        case .errorPage(let reason):
            transientFailure(at(reason), cause: .answer, retryAfter: nil)
            return
        case .fatalStatus(let status):
            let reason = at(HTTPStatusText.describe(status))
            // Where a redirect led refuses after it worked: a signed link that expired (S3,
            // a CDN, release assets). The URL that redirected hands out a fresh one: its
            // fragments go there again, and links that keep expiring use up the retries.
            // A link that refuses at once (a login the redirect did not carry) fails now.
            if [401, 403, 410].contains(status), linksThatWorked.contains(transfer.request.url) {
                state.finalURL = nil
                transientFailure(reason + "; asking \(Printable.url(self.url)) for a fresh link", cause: .status(status), retryAfter: nil)
                return
            }
            if !tryNextSource(after: .failed(reason)) {
                fail(
                    JobFailure(
                        .httpStatus, reason + Self.advice(status, url: transfer.request.url, request: transfer.request),
                        cause: .status(status)),
                    keepPartial: true)
            }
            return
        case .data:
            break
        }
        if let error, let code = JobFailure.Code(definite: error.kind) {
            let reason = at(error.message)
            if !tryNextSource(after: .failed(reason)) {
                fail(JobFailure(code, reason, cause: .transfer(error.kind)), keepPartial: !state.completed.isEmpty)
            }
            return
        }
        // A response that delivered every byte asked for and then ended badly (a
        // Content-Length longer than the body, no last chunk) still delivered them.
        let deliveredAll = fragment.accepted && fragment.isFinished
        if let error, !source.waitsOutSilence, error.kind == .network || error.kind == .timedOut,
            fragment.firstByte == nil, tryNextSource(after: .unanswered(error.message))
        {
            return
        }
        if let error, error.kind != .aborted, !deliveredAll {
            transientFailure(at(error.message), cause: .transfer(error.kind), retryAfter: nil)
            return
        }
        if fragment.end == nil {
            // Length unknown until the stream ended: the end is the length.
            guard error == nil else {
                return transientFailure(at("the connection closed early"), cause: .transfer(.network), retryAfter: nil)
            }
            state.validators.length = fragment.next
            try? partial.dataFile?.truncate(length: fragment.next)
            download.held.didLearnLength(fragment.next)
        } else if !fragment.isFinished && fragment.next == fragment.requestedStart {
            transientFailure(
                at("the response ended before its first byte"), cause: .transfer(.network), retryAfter: nil)
            return
        }
        // A response cut short with progress just frees the connection: the rest of its
        // range is unassigned again and the next fill picks it up.
        if state.isComplete && attempt.isIdle {
            commit()
        } else {
            fillConnections()
        }
    }

    /// The streaming format the URL listed, or the one answering, is named as (`.m3u8`,
    /// `.mpd`): what a gzipped answer is (its bytes say nothing until decoded, and only a
    /// playlist or an MPD is let through gzipped), and what a login page there is not.
    private func namedPresentation(answeredBy transfer: HTTPTransfer) -> PresentationFormat? {
        [url, transfer.request.url].lazy
            .compactMap { PresentationDetection.namedFormat(pathExtension: self.parts(of: $0)?.pathExtension) }.first
    }

    private func followRedirect(_ fragment: Fragment, to target: String, from url: String) {
        if let refusal = source.refusesRedirect(from: url, to: target) {
            if !tryNextSource(after: .failed(refusal)) { fail(JobFailure(.redirect, refusal), keepPartial: true) }
            return
        }
        guard fragment.redirectHops < 10 else {
            fail(JobFailure(.redirect, "more than 10 redirects, last from \(url)"), keepPartial: true)
            return
        }
        if let problem = URLParts.problem(with: target) {
            fail(JobFailure(.redirect, "\(url) redirected to \(Printable.url(target)): \(problem)"), keepPartial: true)
            return
        }
        if fragment.isProbe {
            issue(
                url: target, start: fragment.requestedStart, end: fragment.end, isProbe: true,
                sendRange: fragment.sentRange, ifRange: fragment.ifRange, compareUntil: fragment.compareUntil,
                redirectHops: fragment.redirectHops + 1)
        } else if !fragment.isFinished {
            issue(
                url: target, start: fragment.next, end: fragment.end, isProbe: false, sendRange: true,
                ifRange: fragment.ifRange, compareUntil: fragment.next, redirectHops: fragment.redirectHops + 1)
        }
    }

    /// What to do about a status from `url` that asking again will not change;
    /// `request`: what was sent, whose login (if any) the origin refused.
    static func advice(_ status: Int, url: String, request: HTTPRequest? = nil) -> String {
        let loginGiven = request.map { request in
            request.client.netrcFile != nil || request.client.cookieFile != nil
                || request.headers.contains { $0.lowercased().hasPrefix("authorization:") }
        } ?? false
        return switch status {
        case 401 where URLCredentials.withoutPassword(url) != url:
            "; the origin refused the user name and password in the URL: check them"
        case 401 where loginGiven:
            "; the origin refused the login given, or wants one none of them holds: check that the netrc file "
                + "names this host, and the cookies or the Authorization header given"
        case 401:
            "; the origin wants a login: give its cookies (--load-cookies FILE), a header (-H 'Authorization: ...', "
                + "or header= in the list) or a netrc login (--netrc)"
        // Forbidden is also an expired signed URL, a referer check, or no access at all.
        case 403:
            "; the origin refuses it: if it needs a login, give its cookies (--load-cookies FILE), a header "
                + "(-H 'Authorization: ...', or header= in the list) or a netrc login (--netrc); a signed URL may have "
                + "expired (take a fresh one), or the origin may check the Referer (--referer)"
        case 407 where request?.client.proxy.map({ URLCredentials.masked($0.value) != $0.value }) == true:
            "; the proxy refused the login given: check the user name and password in --proxy (or all-proxy=); "
                + "write an @ in them as %40"
        case 407: "; the proxy wants a login: give it as --proxy http://USER:PASSWORD@HOST:PORT"
        case 404, 410: "; check the URL"
        default: "; check the URL and the headers sent with it"
        }
    }
}

extension DownloadJob {
    /// The URL answered with a playlist or manifest (`chunk`, the start of `transfer`'s
    /// body, says so): what was fetched as a file is dropped, and the job fetches the title
    /// instead, keeping its slot and key lock. When `transfer` is bringing the whole body,
    /// the title reads it on (the entry is asked for once); returns what it took of `chunk`.
    func becomeTitle(_ format: PresentationFormat, answeredBy transfer: HTTPTransfer, first chunk: BodyChunk) -> Int {
        let url = transfer.request.url
        let readOn = transfer.head.map(Self.bringsWholeBody) ?? false
        if readOn { attempt?.remove(transfer) }
        cancelAllTransfers()
        partial.remove()
        download.held.becomeTitle()
        let title = TitleDownload(job: self, format: format)
        phase = .title(title)
        let taken = readOn ? title.playlists.readEntry(from: transfer, url: url, format: format, first: chunk) : 0
        title.start(url: url)
        return taken
    }

    /// A 200, or a 206 from the first byte to the last.
    private static func bringsWholeBody(_ head: HTTPResponseHead) -> Bool {
        if head.status == 200 { return true }
        guard head.status == 206, let range = head.contentRange, let total = range.total else { return false }
        return range.start == 0 && range.end == total - 1
    }
}
