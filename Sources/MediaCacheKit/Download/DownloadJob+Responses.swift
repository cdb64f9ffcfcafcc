import Foundation

/// How a job reads responses: heads decide whether bytes are trusted, bodies go to
/// disk at their offsets, completions decide retry-or-done in one place.
extension DownloadJob: HTTPTransferDelegate {
    func transfer(_ transfer: HTTPTransfer, didReceive head: HTTPResponseHead) -> Bool {
        loop.assertOnLoop()
        guard let fragment = fragments[ObjectIdentifier(transfer)] else { return false }
        if head.isRedirect {
            if let location = head.location, let target = URLParts.resolve(location, against: transfer.request.url) {
                fragment.outcome = .redirect(target)
            } else {
                fragment.outcome = .badRedirect("HTTP \(head.status) without a usable Location")
            }
            return true
        }
        switch head.status {
        case 200, 206:
            if let encoding = Self.unexpectedContentEncoding(head) {
                refuseEncodedBody(encoding, url: transfer.request.url)
                return false
            }
            return fragment.isProbe ? acceptProbe(fragment, head, url: transfer.request.url) : acceptFragment(fragment, head)
        case 416:
            return handleUnsatisfiableRange(fragment, head)
        case let status where RetryPolicy.isTransient(status: status):
            fragment.outcome = .transientStatus(status, retryAfter: head.retryAfter())
        default:
            fragment.outcome = .fatalStatus(head.status)
        }
        return true  // a short error body: drained, then handled on completion
    }

    /// A `Content-Encoding` other than identity, which `CurlEasy` never asks for.
    ///
    /// The bytes of such a response are not the file's: on a 206 they are an encoding of
    /// a slice, which cannot be placed at the Range offsets or decoded piecewise; on a 200
    /// the length and validators describe the encoded form, so a resume or a checksum
    /// would not line up either. The response is refused, never stored as the media.
    static func unexpectedContentEncoding(_ head: HTTPResponseHead) -> String? {
        guard let value = head.value("content-encoding") else { return nil }
        let codings = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        return codings.allSatisfy({ $0.isEmpty || $0 == "identity" }) ? nil : value
    }

    private func refuseEncodedBody(_ encoding: String, url: String) {
        let reason = "the origin sent the body with Content-Encoding: \(encoding) although only identity was asked for"
            + " (\(Printable.url(url))); its bytes are not the file's, so nothing was stored"
        fail(JobFailure(.badResponse, reason), keepPartial: !state.completed.isEmpty)
    }

    private func acceptProbe(_ fragment: Fragment, _ head: HTTPResponseHead, url: String) -> Bool {
        suspectMediaType =
            MediaTypeCheck.isSuspect(mediaType: head.mediaType, urlExpectsText: expectsText(url)) ? head.mediaType : nil
        let incoming = head.validators
        if head.status == 206 {
            guard let range = head.contentRange, range.start == fragment.requestedStart, let total = range.total else {
                fallBackToSingleStream("the origin answered a range request with a wrong Content-Range")
                return false
            }
            if !state.completed.isEmpty && state.validators.conflicts(with: incoming) {
                versionConflict(incoming, "since the last run")
                return false
            }
            let fresh = state.completed.isEmpty
            state.validators = incoming
            state.rangesSupported = true
            guard prepareDataFile(length: total, fresh: fresh) else { return false }
            let gapEnd = state.completed.gaps(within: ByteRange(0, total)).first?.end ?? total
            fragment.end = min(fragment.end, gapEnd)
            fragment.responseEnd = range.end + 1
        } else {
            // 200: the whole file from byte 0. Held bytes may be of another version.
            if !state.completed.isEmpty {
                let changed = fragment.ifRange != nil && state.validators.conflicts(with: incoming)
                emit(
                    .notice(
                        url: self.url,
                        message: changed
                            ? "the file changed on the origin since the last run; starting over"
                            : "the origin ignored the Range request; starting over"))
                state.discardData()
            }
            state.validators = incoming
            // A 200 to If-Range says the version changed, not that Range is unsupported.
            state.rangesSupported = fragment.ifRange != nil && head.acceptsByteRanges && incoming.length != nil
            guard prepareDataFile(length: incoming.length, fresh: true) else { return false }
            fragment.next = 0
            fragment.compareUntil = 0
            fragment.end = incoming.length ?? Int64.max
            fragment.responseEnd = incoming.length
        }
        if let length = state.length { lengthsAnnounced.insert(length) }
        state.finalURL = url
        state.contentType = head.mediaType
        fragment.accepted = true
        beginFetching()
        return true
    }

    private func acceptFragment(_ fragment: Fragment, _ head: HTTPResponseHead) -> Bool {
        let incoming = head.validators
        guard head.status == 206 else {
            if state.validators.conflicts(with: incoming) {
                versionConflict(incoming, "during the download")
            } else {
                fallBackToSingleStream("the origin ignored a Range request")
            }
            return false
        }
        guard let range = head.contentRange, range.start == fragment.requestedStart else {
            fallBackToSingleStream("the origin answered a range request with a wrong Content-Range")
            return false
        }
        if state.validators.conflicts(with: incoming) {
            versionConflict(incoming, "during the download")
            return false
        }
        fragment.responseEnd = range.end + 1
        fragment.accepted = true
        return true
    }

    /// A response describes another version than the bytes held: start over for a new
    /// version, but stop when the origin contradicts itself (two lengths for one ETag or
    /// date, or a length it gave before the last restart), which no restart can mend.
    private func versionConflict(_ incoming: Validators, _ when: String) {
        let held = state.validators
        let what = held.differences(from: incoming) ?? "its validators changed"
        if let before = held.length, let now = incoming.length, before != now,
            held.nameSameVersion(as: incoming) || lengthsAnnounced.contains(now)
        {
            let version = held.nameSameVersion(as: incoming) ? " for one version" : ""
            let reason =
                "the origin contradicts itself: it gave both \(before) and \(now) bytes as the length\(version)"
                + " (Content-Range or Content-Length); it may be misconfigured or serve two versions at once"
            cancelAllTransfers()
            if !switchMirror(after: reason) { fail(JobFailure(.originUnstable, reason), keepPartial: false) }
            return
        }
        if let now = incoming.length { lengthsAnnounced.insert(now) }
        originChanged("the file changed on the origin \(when): \(what)")
    }

    private func handleUnsatisfiableRange(_ fragment: Fragment, _ head: HTTPResponseHead) -> Bool {
        if fragment.isProbe && state.completed.isEmpty, head.value("content-range")?.hasSuffix("/0") == true {
            // An empty file: nothing to fetch.
            state.validators = Validators(etag: head.value("etag"), lastModified: head.value("last-modified"), length: 0)
            guard prepareDataFile(length: 0, fresh: true) else { return false }
            fragment.outcome = .data
            fragment.accepted = false
            fragment.end = 0
            return true
        }
        // `bytes */LENGTH` with the range starting inside the file: the origin mishandles
        // ranges (a correct one would serve the part that exists).
        if let total = Self.unsatisfiedLength(head), fragment.requestedStart < total {
            fallBackToSingleStream("the origin refused a range inside the file (HTTP 416)")
            return false
        }
        if state.completed.isEmpty {
            fragment.outcome = .fatalStatus(416)
            return true
        }
        if let total = Self.unsatisfiedLength(head), let held = state.length {
            originChanged("the file on the origin is shorter than before (\(total) bytes, was \(held))")
        } else {
            originChanged("the file on the origin is shorter than before")
        }
        return false
    }

    /// LENGTH of a 416's `Content-Range: bytes */LENGTH`.
    static func unsatisfiedLength(_ head: HTTPResponseHead) -> Int64? {
        guard let value = head.value("content-range")?.trimmingCharacters(in: .whitespaces).lowercased(),
            value.hasPrefix("bytes */")
        else { return nil }
        return Int64(value.dropFirst("bytes */".count))
    }

    func transfer(_ transfer: HTTPTransfer, didReceive chunk: BodyChunk) -> Int {
        loop.assertOnLoop()
        guard let fragment = fragments[ObjectIdentifier(transfer)] else { return 0 }
        guard fragment.accepted, let file = dataFile else { return chunk.count }
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
        if fragment.isProbe && !sniffed {
            sniffed = true
            let first = chunk.prefix(512).array
            let labelled = suspectMediaType.flatMap { MediaTypeCheck.rejection(mediaType: $0, firstBytes: first) }
            let html =
                fragment.next == 0 ? MediaTypeCheck.sniffRejection(firstBytes: first, urlExpectsText: expectsText(url)) : nil
            if let reason = labelled ?? html {
                fail(JobFailure(.notMedia, reason), keepPartial: false)
                return 0
            }
        }
        let count = Int(min(Int64(chunk.count), fragment.end - fragment.next))
        guard count > 0 else { return consumed }
        if let latency = fragment.noteBytes(now: TransferLoop.now()) {
            requestLatency = requestLatency.map { 0.7 * $0 + 0.3 * latency } ?? latency
        }
        do {
            try chunk.prefix(count).write(to: file, at: fragment.next)
        } catch {
            fail(JobFailure(.io, "\(error)"), keepPartial: true)
            return 0
        }
        let written = ByteRange(fragment.next, fragment.next + Int64(count))
        state.completed.insert(written)
        download.held.didWrite(written)
        journalWrite(written)
        fragment.next += Int64(count)
        bytesFetched += Int64(count)
        bytesSinceCheckpoint += Int64(count)
        // A single stream restarts at 0 after a failure: only getting further than any
        // earlier attempt is progress, so an origin that always cuts it short is given up.
        if rangesUsable {
            failuresInARow = 0
        } else if fragment.next > furthestStreamed {
            failuresInARow = 0
            furthestStreamed = fragment.next
        }
        // Every byte is held, but a response whose range was cut may go on past it, and
        // end only with the origin's next burst: commit now, not then.
        if state.isComplete && fragments.values.contains(where: \.isCutShort) { scheduleWake(at: 0) }
        if moovLocator != nil { advanceMoovSearch() }
        // Until the layout is known, the relocated digest could not follow the prefix.
        if moovLocator == nil { hasher?.advance(to: state.completed.contiguousPrefix) }
        noteProgress()
        // Fewer than offered stops the transfer: its range now ends here.
        return consumed + count
    }

    func transfer(_ transfer: HTTPTransfer, didCompleteWith error: TransferError?) {
        loop.assertOnLoop()
        guard let fragment = fragments.removeValue(forKey: ObjectIdentifier(transfer)),
            phase == .probing || phase == .fetching
        else { return }
        // For messages only: a URL may be kilobytes long, and retries repeat it.
        let url = Printable.url(transfer.request.url)
        // The other connections wait while a priority range (a late moov) arrives, so
        // their first bytes do not race it; its deadline bounds the wait.
        if (fragment.isProbe || fragment.isPriority) && !fragments.values.contains(where: \.isPriority) {
            holdFillUntil = 0
        }
        switch fragment.outcome {
        case .redirect(let target):
            followRedirect(fragment, to: target, from: url)
            return
        case .badRedirect(let reason):
            fail(JobFailure(.redirect, "\(reason) from \(url)"), keepPartial: true)
            return
        case .transientStatus(let status, let retryAfter):
            transientFailure("\(HTTPStatusText.describe(status)) from \(url)", retryAfter: retryAfter)
            return
        case .fatalStatus(let status):
            let reason = "\(HTTPStatusText.describe(status)) from \(url)"
            if !switchMirror(after: reason) {
                fail(JobFailure(.httpStatus, reason + "; check the URL"), keepPartial: true)
            }
            return
        case .data:
            break
        }
        if let error, error.kind == .untrustedCertificate || error.kind == .refused {
            let reason = "\(url): \(error.message)"
            let code: JobFailure.Code = error.kind == .refused ? .badURL : .tls
            if !switchMirror(after: reason) { fail(JobFailure(code, reason), keepPartial: !state.completed.isEmpty) }
            return
        }
        // A response that delivered every byte asked for and then ended badly (a
        // Content-Length longer than the body, no last chunk) still delivered them.
        let deliveredAll = fragment.accepted && fragment.end != Int64.max && fragment.isFinished
        if let error, error.kind != .aborted, !deliveredAll {
            transientFailure("\(error.message) (\(url))", retryAfter: nil)
            return
        }
        if fragment.end == Int64.max {
            // Length unknown until the stream ended: the end is the length.
            guard error == nil else { return transientFailure("the connection closed early (\(url))", retryAfter: nil) }
            state.validators.length = fragment.next
            try? dataFile?.truncate(length: fragment.next)
            download.held.didLearnLength(fragment.next)
        } else if !fragment.isFinished && fragment.next == fragment.requestedStart {
            transientFailure("the response ended before its first byte (\(url))", retryAfter: nil)
            return
        }
        // A response cut short with progress just frees the connection: the rest of its
        // range is unassigned again and the next fill picks it up.
        if state.isComplete && fragments.isEmpty {
            commit()
        } else {
            fillConnections()
        }
    }

    private func followRedirect(_ fragment: Fragment, to target: String, from url: String) {
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
        } else if fragment.next < fragment.end {
            issue(
                url: target, start: fragment.next, end: fragment.end, isProbe: false, sendRange: true,
                ifRange: fragment.ifRange, compareUntil: fragment.next, redirectHops: fragment.redirectHops + 1)
        }
    }
}
