import Foundation

/// One resource of a title on its way: a GET (of `[0, end)` for a ranged file, of the
/// rest for a resume, of one piece of a file fetched in pieces) whose body goes to its
/// file and its hash as it arrives, off the loop (`ResourceSink`). It reports once, on
/// the loop thread, when its response has ended and every byte of it is written, and
/// decides nothing beyond its own response: retries and failures are the title's.
final class ResourceFetch: HTTPTransferDelegate {
    enum Outcome {
        /// Every byte is on disk; `sha256` is the whole file's.
        case done(size: Int64, sha256: String)
        /// A piece's bytes are on disk: these (fewer than asked once it was cut).
        case pieceDone(ByteRange)
        /// A piece's answer is not a part of the bytes the file holds (the file changed
        /// on the origin, or ranges are not served): the file must be fetched whole.
        case startOver(reason: String)
        case redirect(to: String)
        /// Asking again may help (a cut connection, 503, 429 with its Retry-After).
        case transient(reason: String, retryAfter: Double?)
        /// Asking again will not help (404, an HTML page instead of media).
        case definite(JobFailure)
    }

    let resource: TitleResource
    let url: String
    let redirectHops: Int
    /// The bytes of the file it fetches, when it is one piece of it (`PiecedFile`).
    let piece: ByteRange?
    /// A piece's version, asked for with `If-Range`: the validator of its file's other pieces.
    private let pieceValidator: String?
    /// The whole length the file's other pieces were answered with (`Content-Range`).
    private let pieceTotal: Int64?
    /// The whole length a piece's answer gave.
    private(set) var answeredTotal: Int64?
    /// When its request went out, and when a piece's answer came (`TransferLoop.now()`).
    private var startedAt = 0.0
    private var answeredAt: Double?
    /// Where a piece stops taking bytes: its end, or less once cut (`cut(at:)`).
    private(set) var pieceEnd: Int64 = 0
    /// How a piece's connection delivers, for where a cut may fall without waste.
    private var bursts = BurstMeter()
    /// The resource's file.
    private let path: String
    private var sink: ResourceSink?
    /// Bytes of the resource received (the file's, once its sink has written them).
    private var written: Int64 = 0
    /// The body's bytes that are the resource: its range's end, or the Content-Length.
    private var expected: Int64?
    /// Most bytes taken from a response that does not say its length (`--max-stream-size`);
    /// an AES-128 key takes 16 whatever its response says.
    var maxUnannouncedBytes = Int64.max
    /// Where a piece's response ends (exclusive): past `expected` once it was cut.
    private var responseEnd: Int64?
    /// The loop it runs on, for a piece that stops before its response ends.
    private weak var loop: TransferLoop?
    private var accepted = false
    private var verdict: Outcome?
    private var completion: ((ResourceFetch, Outcome) -> Void)?
    private(set) var transfer: HTTPTransfer?
    private var responseEnded = false
    /// The response has ended (its connection is free); the report follows once the
    /// sink has written what arrived.
    var onResponseEnd: ((ResourceFetch) -> Void)?
    /// A piece's answer is a 206 of its bytes, its body about to arrive.
    var onPieceAnswered: ((ResourceFetch) -> Void)?
    /// Told what happens to the file's bytes, for a player reading them as they land:
    /// on the loop before the request, then from the sink's queue.
    var arrivals: (@Sendable (TitleInProgress.ArrivalNote) -> Void)?

    /// The `If-Range` value of the response, once its head arrived: a resumed fetch of
    /// the resource may ask for the rest of these bytes only.
    private(set) var validator: String?
    /// Held bytes this fetch continues from (a resume), and their version.
    private var resumeFrom: Int64 = 0
    private var resumeValidator: String?

    /// The version of the bytes it leaves in the file: its answer's, else (none came: a
    /// server gone, a reset before the head) that of the bytes it continued from, which
    /// a later fetch, maybe from another copy of the title, goes on from or compares with.
    var heldValidator: String? { validator ?? (written > 0 ? resumeValidator : nil) }

    /// `resume`: the first bytes of the file at `path` are the resource's as of
    /// `validator`; the request asks for the rest, and the origin sends it all again if
    /// it changed.
    convenience init(
        resource: TitleResource, url: String, redirectHops: Int, path: String,
        resume: (bytes: Int64, validator: String)? = nil, completion: @escaping (ResourceFetch, Outcome) -> Void
    ) {
        self.init(resource: resource, url: url, redirectHops: redirectHops, path: path, piece: nil, completion: completion)
        resumeFrom = resume?.bytes ?? 0
        resumeValidator = resume?.validator
    }

    /// The bytes `piece` of the (ranged) file at `path`, written beside the others it
    /// holds; `validator` and `total`: their version and whole length, if an answer said.
    convenience init(
        piece: ByteRange, of resource: TitleResource, url: String, redirectHops: Int, path: String,
        validator: String?, total: Int64?, completion: @escaping (ResourceFetch, Outcome) -> Void
    ) {
        self.init(
            resource: resource, url: url, redirectHops: redirectHops, path: path, piece: piece,
            validator: validator, total: total, completion: completion)
    }

    private init(
        resource: TitleResource, url: String, redirectHops: Int, path: String, piece: ByteRange?,
        validator: String? = nil, total: Int64? = nil, completion: @escaping (ResourceFetch, Outcome) -> Void
    ) {
        self.resource = resource
        self.url = url
        self.redirectHops = redirectHops
        self.path = path
        self.completion = completion
        self.piece = piece
        pieceValidator = validator
        pieceTotal = total
        pieceEnd = piece?.end ?? 0
        written = piece?.start ?? 0
    }

    /// Starts on `loop` with `request` (which gets its Range and If-Range here), queued
    /// for its host's connections by `priority` (`HTTPTransfer.priority`). A resume drops
    /// what the file has beyond the bytes it continues from; if it cannot, it starts from
    /// byte 0, and the sink makes or empties the file off the loop.
    func start(
        _ request: HTTPRequest, userAgent: String, on loop: TransferLoop, rateLimits: RateLimits?, priority: Int,
        blocks: WriteBlocks
    ) {
        var request = request
        var from: Int64 = 0
        if let piece {
            sink = ResourceSink(pieceOf: path, at: piece.start, blocks: blocks, on: loop, notes: arrivals)
            request.headers.append("Range: \(piece.httpRangeValue)")
            if let pieceValidator { request.headers.append("If-Range: \(pieceValidator)") }
        } else if resumeFrom > 0, let resumeValidator, let file = try? DataFile(path: path, mode: .readWrite),
            (try? file.size()).map({ $0 >= resumeFrom }) == true
        {
            arrivals?(.from(resumeFrom))
            if (try? file.truncate(length: resumeFrom)) != nil {
                from = resumeFrom
                written = resumeFrom
                request.headers.append("If-Range: \(resumeValidator)")
                sink = ResourceSink(continuing: file, held: from, blocks: blocks, on: loop, notes: arrivals)
            }
        }
        if from == 0, piece == nil {
            arrivals?(.from(0))
            sink = ResourceSink(creating: path, blocks: blocks, on: loop, notes: arrivals)
        }
        if piece == nil, from > 0 || resource.range != nil {
            let end = resource.range.map { "\($0.end - 1)" } ?? ""
            request.headers.append("Range: bytes=\(from)-\(end)")
        }
        startedAt = TransferLoop.now()
        self.loop = loop
        let transfer = HTTPTransfer(request: request, userAgent: userAgent, delegate: self, rateLimits: rateLimits)
        transfer.priority = priority
        self.transfer = transfer
        loop.start(transfer)
    }

    /// Bytes received of the resource (of a piece: of the piece), written or about to be.
    var bytesReceived: Int64 { written - (piece?.start ?? 0) }

    /// Where the next byte received goes in the file.
    var position: Int64 { written }

    /// The rate a piece's bytes have come at since its answer; nil until a fifth of a
    /// second of them says.
    func bytesPerSecond(now: Double) -> Double? {
        guard let answeredAt, now - answeredAt >= 0.2 else { return nil }
        return Double(bytesReceived) / (now - answeredAt)
    }

    /// How long a piece's request waited for its answer.
    var requestSeconds: Double? { answeredAt.map { $0 - startedAt } }

    /// Where a cut of a piece may fall: past the bytes received and those its socket
    /// holds already (one syscall asks), which a cut before would throw away.
    var cuttableFrom: Int64 { min(written + (transfer?.bytesWaiting ?? 0), pieceEnd) }

    /// The most a piece's connection delivered between two pauses (`BurstMeter`).
    func burst(now: Double) -> Int64? { bursts.burst(now: now) }

    /// Bytes on disk: what a checkpoint may keep of the file (of a piece: where those
    /// from its start end).
    var bytesWritten: Int64 { sink?.bytesOnDisk ?? 0 }

    /// A piece stops taking bytes at `offset` (another fetch takes the rest): it must
    /// not have received them yet.
    func cut(at offset: Int64) {
        precondition(piece != nil && offset > written && offset < pieceEnd, "a cut behind what a piece received")
        pieceEnd = offset
        if let end = expected { expected = min(end, offset) }
    }

    /// Whether it is still to report.
    var isOnItsWay: Bool { completion != nil }

    func transfer(_ transfer: HTTPTransfer, didReceive head: HTTPResponseHead) -> Bool {
        let range = resource.range
        switch head.status {
        case 200, 206:
            if let problem = head.framingProblem {
                verdict = .definite(JobFailure(.badResponse, "\(resource.label) (\(Printable.url(url))): \(problem)"))
                return false
            }
            validator = Validators(etag: head.value("etag"), lastModified: head.value("last-modified")).ifRangeValue
            if let failure = rangesPastTheEnd(head) {
                verdict = .definite(failure)
                return false
            }
            if let piece {
                return acceptPiece(piece, head)
            }
            if head.status == 206 {
                // Only what was asked: from byte 0 of a ranged file, or the rest of a resume.
                guard let answered = head.contentRange, answered.start == written, range != nil || written > 0 else {
                    verdict = .transient(reason: "\(head.status) with a Content-Range that is not the one asked for", retryAfter: nil)
                    return false
                }
                // The rest of another version (a server that ignores If-Range, another copy
                // of the title) is never spliced onto the bytes held: all of it again.
                if written > 0, validator != resumeValidator {
                    sink?.restart()
                    written = 0
                    verdict = .transient(
                        reason: "the rest of \(resource.label) came as another version than its first bytes; fetching it whole",
                        retryAfter: nil)
                    return false
                }
                expected = min(range?.end ?? Int64.max, answered.end + 1)
            } else {
                if written > 0 {
                    // The resource changed since the held bytes, or it comes from another
                    // copy of the title, or Range is not served: all of it again, never
                    // spliced, but compared with what is held, so that a player reading
                    // it is not cut where the bytes are the same.
                    sink?.restartComparing()
                    written = 0
                }
                expected = range.map { range in head.contentLength.map { min($0, range.end) } ?? range.end } ?? head.contentLength
            }
            if resource.kind == .key, let expected, expected != HLSKey.aes128KeyLength {
                // Refused before its body: a "key" of 300 MB is not fetched to be measured.
                let error = PresentationError.badKeyLength(keyURI: url, bytes: Int(clamping: expected))
                verdict = .definite(JobFailure(.badResponse, error.message))
                return false
            }
            accepted = true
            sink?.note(.accepted(length: expected))
        case 416 where range != nil:
            verdict = .definite(rangesRefused(head))
        case _ where head.isRedirect:
            guard let location = head.location, let target = URLParts.resolve(location, against: url) else {
                verdict = .definite(JobFailure(.redirect, "HTTP \(head.status) without a usable Location for \(resource.label) (\(Printable.url(url)))"))
                return false
            }
            verdict = .redirect(to: target)
        case _ where RetryPolicy.isTransient(status: head.status):
            verdict = .transient(reason: "HTTP \(head.status)", retryAfter: head.retryAfter())
        default:
            verdict = .definite(
                JobFailure(
                    .httpStatus, "HTTP \(head.status) for \(resource.label) (\(Printable.url(url)))\(DownloadJob.advice(head.status, url: url))",
                    cause: .status(head.status)))
        }
        return true
    }

    /// A piece is taken from a 206 for its own bytes of the version its file holds.
    private func acceptPiece(_ piece: ByteRange, _ head: HTTPResponseHead) -> Bool {
        guard head.status == 206 else {
            verdict = .startOver(reason: "the origin sent all of \(resource.label) for a range of it")
            return false
        }
        guard let answered = head.contentRange, answered.start == piece.start else {
            verdict = .transient(reason: "206 with a Content-Range that is not the one asked for", retryAfter: nil)
            return false
        }
        if let pieceValidator, validator != pieceValidator {
            verdict = .startOver(reason: "\(resource.label) changed on the origin")
            return false
        }
        answeredTotal = answered.total
        answeredAt = TransferLoop.now()
        // Without validators, a length that changed still tells of another version.
        if let pieceTotal, let total = answered.total, total != pieceTotal {
            verdict = .startOver(reason: "the length of \(resource.label) changed on the origin (\(pieceTotal) bytes, now \(total))")
            return false
        }
        expected = min(pieceEnd, answered.end + 1)
        responseEnd = answered.end + 1
        accepted = true
        onPieceAnswered?(self)
        return true
    }

    func transfer(_ transfer: HTTPTransfer, didReceive chunk: BodyChunk) -> Int {
        guard accepted else { return chunk.count }  // an error body, drained
        if written == 0, resource.kind != .key,
            let reason = MediaTypeCheck.sniffRejection(firstBytes: chunk.prefix(64).array, urlExpectsText: false)
        {
            verdict = .definite(JobFailure(.notMedia, "\(resource.label) (\(Printable.url(url))): \(reason)"))
            return 0
        }
        let count = Int(expected.map { min(Int64(chunk.count), $0 - written) } ?? Int64(chunk.count))
        guard count > 0 else { return 0 }
        guard let sink, !sink.hasFailed else { return 0 }  // `finish` tells why
        if expected == nil, let refusal = unannouncedRefusal(upTo: written + Int64(count)) {
            sink.restart()
            verdict = .definite(JobFailure(.badResponse, refusal))
            return 0
        }
        sink.append(chunk.prefix(count).bytes)
        written += Int64(count)
        if piece != nil { bursts.note(count, now: TransferLoop.now()) }
        // A piece cut for another connection is done though its response goes on: it
        // stops now, not when the origin's next burst arrives to be thrown away (or a
        // second later, at a throttling origin's pace).
        if let expected, written == expected, let responseEnd, expected < responseEnd, let loop {
            loop.cancel(transfer)
            responseDidEnd(nil)
        }
        return count
    }

    func transfer(_ transfer: HTTPTransfer, didCompleteWith error: TransferError?) {
        responseDidEnd(error)
    }

    private func responseDidEnd(_ error: TransferError?) {
        guard completion != nil, !responseEnded else { return }
        guard let sink else { preconditionFailure("a response to a fetch that was never started") }
        responseEnded = true
        let ending = ending(error)
        onResponseEnd?(self)
        // Reported once the sink has written it all: a retry or a checkpoint then sees
        // the file as it is.
        sink.finish { [weak self] written in
            switch (written, ending) {
            case (.failure(let error), _):
                self?.report(.definite(JobFailure(.io, "\(error)")))
            case (.success(let sha256), .whole(let size)):
                guard let self else { return }
                if let piece { self.report(.pieceDone(ByteRange(piece.start, size))) }
                else { self.report(.done(size: size, sha256: sha256 ?? "")) }
            case (.success, .short(let outcome)):
                self?.report(outcome)
            }
        }
    }

    /// How a response ended, as far as it alone can tell.
    private enum Ending {
        /// Every byte of the resource arrived (its digest is the sink's to give).
        case whole(size: Int64)
        case short(Outcome)
    }

    private func report(_ outcome: Outcome) {
        guard let completion else { return }
        self.completion = nil
        completion(self, outcome)
    }

    private func ending(_ error: TransferError?) -> Ending {
        if let verdict { return .short(verdict) }
        if accepted, let expected, written == expected { return .whole(size: written) }
        if accepted, expected == nil, error == nil { return .whole(size: written) }
        if let error, let code = JobFailure.Code(definite: error.kind) {
            return .short(.definite(JobFailure(
                code, "\(resource.label) (\(Printable.url(url))): \(error.message)", cause: .transfer(error.kind))))
        }
        if let error { return .short(.transient(reason: error.message, retryAfter: nil)) }
        return .short(.transient(reason: "the response ended after \(written) of \(expected ?? 0) bytes", retryAfter: nil))
    }

    /// Stops the transfer without a report (the title is stopping).
    func cancel(on loop: TransferLoop) {
        completion = nil
        if let transfer, !responseEnded { loop.cancel(transfer) }
    }

    /// Stops as `cancel` does, then calls `drained` on the loop once every byte it took
    /// is in its file: nothing of it lands there after that (its writes run on a queue
    /// of their own).
    func cancel(on loop: TransferLoop, drained: @escaping () -> Void) {
        cancel(on: loop)
        guard let sink else { return drained() }
        sink.finish { _ in drained() }
    }
}
