import Foundation

/// A large file of a title that its renditions' byte ranges point into (a single-file
/// HLS rendition, a DASH `SegmentList` file), or a DASH representation's single media
/// file (`SegmentBase`, or a BaseURL alone: its length comes with the first answer),
/// fetched as several
/// ranges at once into the one file, as the progressive engine fetches a file: in order
/// from the front, so what has arrived plays, and a player that seeks has a piece from
/// where it seeks at once instead of after everything before it.
///
/// Its pieces are of one version: the first answer's validator goes with every later
/// request (`If-Range`); an answer of another version, or a 200, starts the file over,
/// whole. Once every byte is in, the file is hashed and held like any other resource.
///
/// On the loop thread, inside its title's download, which makes and reports its fetches.
final class PiecedFile {
    let resource: TitleResource
    /// The file's bytes: its range's end, or the whole length the first answer gave
    /// (`Content-Range`); nil until then.
    private(set) var length: Int64?
    /// Where its pieces are asked for (a redirect moves them all).
    var url: String
    var redirectHops = 0
    /// Bytes on disk of this version: pieces done, and what a stopped piece wrote.
    private(set) var held: RangeSet
    /// The version the bytes are of (`If-Range`), once an answer said.
    private(set) var validator: String?
    /// The whole length the origin's answers give (`Content-Range`), once one said.
    private(set) var total: Int64?
    /// Pieces on their way.
    private(set) var fetches: [ResourceFetch] = []
    /// No piece starts before this (a failure's backoff).
    private(set) var notBefore = 0.0
    /// Failures without progress in between (pieces failing together count once).
    private var failures = 0
    /// Every byte is in; it is being hashed.
    var hashing = false
    /// Its pieces are of another version than the origin's: it waits for the writes of
    /// those on their way to end, then is fetched whole.
    private(set) var startingOver = false
    /// A piece was answered with its range this run: the others may go out together.
    /// Until then one piece asks alone, so an origin that ignores ranges (or has a new
    /// version) sends the whole file once, not once per piece.
    private var rangesServed = false
    private let planner: FragmentPlanner
    private let connections: Int

    /// A file is fetched in pieces when it is at least this many pieces long.
    static let smallestPieced = 2

    /// `partial`: what an earlier run held of it.
    init(resource: TitleResource, partial: TitleProgress.Partial?, planner: FragmentPlanner, connections: Int) {
        self.resource = resource
        length = resource.range?.end ?? partial?.length
        url = resource.url
        held = partial?.held ?? RangeSet()
        validator = partial?.validator
        self.planner = planner
        self.connections = connections
    }

    /// Whether `resource` is best fetched in pieces: a ranged file long enough that
    /// splitting it saves more than the requests cost, or a whole media file of a length
    /// not known yet (its first piece, if it is short, is all of it).
    static func isPieced(_ resource: TitleResource, minFragment: Int64) -> Bool {
        guard resource.kind == .rangedFile else { return false }
        guard let range = resource.range else { return true }
        return range.start == 0 && range.end >= Int64(smallestPieced) * minFragment
    }

    var isComplete: Bool { length.map { held.contains(ByteRange(0, $0)) } ?? false }

    /// Bytes of it received: held, and on their way.
    var bytesReceived: Int64 { held.byteCount + fetches.reduce(0) { $0 + $1.bytesReceived } }

    var fractionReceived: Double { length.map { Double(bytesReceived) / Double($0) } ?? 0 }

    /// What a checkpoint may keep of it: the bytes on disk, with their version.
    var partial: TitleProgress.Partial? {
        guard let validator, !startingOver else { return nil }
        var onDisk = held
        for fetch in fetches {
            if let piece = fetch.piece, fetch.bytesWritten > piece.start {
                onDisk.insert(ByteRange(piece.start, fetch.bytesWritten))
            }
        }
        return onDisk.isEmpty ? nil : TitleProgress.Partial(held: onDisk, validator: validator, length: length)
    }

    /// Up to `slots` pieces to start now, from the front; once every byte is on its way,
    /// the back half of the largest piece left, or in the endgame the back of the one
    /// that would end last, so one slow connection does not hold the end of the file
    /// (the piece it is cut from stops there).
    func nextPieces(slots: Int, now: Double) -> [ByteRange] {
        let slots = rangesServed ? min(slots, connections - fetches.count) : (fetches.isEmpty ? min(slots, 1) : 0)
        guard slots > 0, now >= notBefore, !hashing, !startingOver else { return [] }
        guard let length else { return fetches.isEmpty ? [probe] : [] }
        let unclaimed = RangeSet(held.ranges + fetches.map(claim)).gaps(within: ByteRange(0, length))
        if !unclaimed.isEmpty {
            return planner.planInOrder(unassigned: unclaimed, slots: slots, pieceSize: planner.minFragment)
        }
        // Cuts fall past what a piece's socket holds, between its connection's bursts.
        let largest = fetches.max { $0.pieceEnd - $0.position < $1.pieceEnd - $1.position }
        if let largest {
            let from = largest.cuttableFrom
            if let middle = planner.stealPoint(next: from, end: largest.pieceEnd),
                let cut = FragmentPlanner.burstAligned(middle, from: from, end: largest.pieceEnd, burst: largest.burst(now: now))
            {
                return [share(largest, from: cut)]
            }
        }
        // Nothing is left to halve, but the piece that would take longest at its
        // connection's rate may still end sooner shared (the progressive engine's endgame):
        // otherwise the last pieces run on a few connections while the others idle.
        // (A piece that brought nothing since its answer is the stall timeout's to end.)
        let timed = fetches.compactMap { fetch in fetch.bytesPerSecond(now: now).flatMap { $0 > 0 ? (fetch, $0) : nil } }
        let slowest = timed.max { Double($0.0.pieceEnd - $0.0.position) / $0.1 < Double($1.0.pieceEnd - $1.0.position) / $1.1 }
        guard let (victim, rate) = slowest else { return [] }
        let from = victim.cuttableFrom
        guard
            let ideal = planner.endgameCut(
                next: from, end: victim.pieceEnd, bytesPerSecond: rate, requestSeconds: victim.requestSeconds ?? 0.05),
            let cut = FragmentPlanner.burstAligned(ideal, from: from, end: victim.pieceEnd, burst: victim.burst(now: now))
        else { return [] }
        return [share(victim, from: cut)]
    }

    /// `fetch` stops at `cut`; the bytes from there are a piece of their own.
    private func share(_ fetch: ResourceFetch, from cut: Int64) -> ByteRange {
        let back = ByteRange(cut, fetch.pieceEnd)
        fetch.cut(at: cut)
        return back
    }

    /// A player waits for the byte at `offset` (nil: for the file, from its start): the
    /// piece to fetch for it now, if the bytes are not held or about to arrive. A piece
    /// on its way far short of `offset` is cut there and the new one takes its back.
    func piece(for offset: Int64?) -> ByteRange? {
        guard !hashing, !startingOver else { return nil }
        // Until its length is known, the first piece (which tells it) goes alone.
        guard let length else { return fetches.isEmpty ? probe : nil }
        guard let offset else {
            return held.isEmpty && fetches.isEmpty ? firstPiece(from: 0, length: length) : nil
        }
        guard offset >= 0, offset < length, held.range(containing: offset) == nil else { return nil }
        if let fetch = fetches.first(where: { claim($0).contains(offset) }) {
            guard offset - fetch.position > Self.nearEnough else { return nil }
            let back = ByteRange(offset, fetch.pieceEnd)
            fetch.cut(at: offset)
            return back
        }
        return firstPiece(from: offset, length: length)
    }

    /// A player this close behind a piece's next byte waits for it rather than asking anew.
    static let nearEnough: Int64 = 256 << 10

    /// The piece that asks first when the length is not known: from the end of the
    /// bytes held from the front, a fragment long (past the end, the origin sends less).
    private var probe: ByteRange {
        let start = held.ranges.first.flatMap { $0.start == 0 ? $0.end : nil } ?? 0
        return ByteRange(start, start + planner.minFragment)
    }

    /// A piece from `offset` up to the next bytes held or claimed, at most a fragment long.
    private func firstPiece(from offset: Int64, length: Int64) -> ByteRange? {
        let claimed = RangeSet(held.ranges + fetches.map(claim))
        let next = claimed.gaps(within: ByteRange(offset, length)).first
        guard let next, next.start == offset else { return nil }
        return ByteRange(offset, min(next.end, offset + planner.minFragment))
    }

    /// What a fetch has brought or will: its piece, up to where it stops. Its bytes are
    /// held only once it reports, after the last of them is written.
    private func claim(_ fetch: ResourceFetch) -> ByteRange {
        ByteRange(fetch.piece?.start ?? 0, fetch.pieceEnd)
    }

    func started(_ fetch: ResourceFetch) { fetches.append(fetch) }

    /// A piece's answer is a 206 of its bytes: its validator is the file's from now on
    /// (a piece asked with the file's checks it itself, `ResourceFetch`).
    func answered(_ fetch: ResourceFetch) {
        rangesServed = true
        if validator == nil { validator = fetch.validator }
        if total == nil { total = fetch.answeredTotal }
        if length == nil { length = total }
    }

    /// What a piece's report means for the file.
    enum Verdict {
        /// Go on with the rest (`fetched`: bytes the piece brought); once `isComplete`, hash it.
        case goOn(fetched: Int64)
        /// A retry after a backoff: no piece starts before it ends.
        case retry(after: Double, attempt: Int, reason: String)
        /// Its bytes are not the same version as the rest: the file is fetched whole.
        case startOver(reason: String)
        /// The piece's URL seems to have expired (401, 403, 410): fresh URLs may help.
        case expired(status: Int, JobFailure)
        case failed(JobFailure)
    }

    /// `fetch`, one of its pieces, reported `outcome`; `retries`: failures allowed in a row.
    func report(_ fetch: ResourceFetch, _ outcome: ResourceFetch.Outcome, retries: Int, retryPolicy: RetryPolicy, now: Double) -> Verdict {
        let wrote = fetch.piece.map { ByteRange($0.start, max($0.start, min(fetch.bytesWritten, $0.end))) }
        let changed = Verdict.startOver(reason: "\(resource.label) changed on the origin while its pieces arrived")
        switch outcome {
        case .pieceDone(let range):
            guard ended(fetch, wrote: range) else { return changed }
            guard length != nil else {
                // `Content-Range: bytes 0-99/*`: where the file ends is not for pieces to find.
                return .startOver(reason: "the origin does not say how long \(resource.label) is")
            }
            failures = 0
            return .goOn(fetched: range.count)
        case .redirect(let target):
            ended(fetch, wrote: nil)
            guard fetch.redirectHops < 10, URLParts.problem(with: target) == nil else {
                return .failed(JobFailure(.redirect, "\(resource.label): too many or bad redirects, last from \(Printable.url(fetch.url))"))
            }
            // Every later piece goes there at once.
            url = target
            redirectHops = fetch.redirectHops + 1
            return .goOn(fetched: 0)
        case .transient(let reason, let retryAfter):
            guard ended(fetch, wrote: wrote) else { return changed }
            let fetched = wrote?.count ?? 0
            if fetched > 0 { failures = 0 }
            if now >= notBefore { failures += 1 }
            guard failures <= retries else {
                return .failed(JobFailure(
                    .retriesExhausted, "\(resource.label) (\(Printable.url(fetch.url))) failed \(failures) times, last: \(reason)"))
            }
            let delay = retryPolicy.delay(attempt: max(1, failures), retryAfter: retryAfter)
            notBefore = max(notBefore, now + delay)
            return .retry(after: delay, attempt: failures, reason: "\(resource.label): \(reason)")
        case .definite(let failure):
            ended(fetch, wrote: wrote)
            if case .status(let status) = failure.cause, [401, 403, 410].contains(status) { return .expired(status: status, failure) }
            return .failed(failure)
        case .startOver(let reason):
            ended(fetch, wrote: nil)
            return .startOver(reason: reason)
        case .done:
            preconditionFailure("a whole resource's outcome for a piece")
        }
    }

    /// Its failures were another server's: they count for nothing from now on.
    func forgetFailures() {
        failures = 0
        notBefore = 0
    }

    /// Every byte is in: the file at `path` is hashed off the loop, and `completion` gets
    /// its SHA-256 on the loop.
    func hash(_ path: String, on loop: TransferLoop, completion: @escaping (Result<String, SystemError>) -> Void) {
        guard let length else { preconditionFailure("hashing a file of unknown length") }
        hashing = true
        let completion = LoopBound(completion, loop: loop)
        DispatchQueue.global(qos: .utility).async {
            let result = Result { () throws(SystemError) -> String in
                let file = try DataFile(path: path, mode: .readWrite)
                // Nothing beyond its bytes: a piece never writes there, but a file from an older run might.
                if try file.size() > length { try file.truncate(length: length) }
                do {
                    return try FileDigester.digest(file, length: length, algorithms: [.sha256])[.sha256] ?? ""
                } catch {
                    throw error as? SystemError ?? SystemError("read", path: path, code: EIO)
                }
            }
            loop.post { completion.value(result) }
        }
    }

    /// `fetch` reported: what it wrote is held (if of this file's version), and it is
    /// no longer on its way. False when its bytes are of another version than the rest.
    @discardableResult
    private func ended(_ fetch: ResourceFetch, wrote range: ByteRange?) -> Bool {
        fetches.removeAll { $0 === fetch }
        guard let range, !range.isEmpty else { return true }
        if validator == nil { validator = fetch.validator }
        guard fetch.validator == validator else { return false }
        held.insert(range)
        return true
    }

    /// Stops every piece on its way (the title stops).
    func cancelAll(on loop: TransferLoop) {
        for fetch in fetches { fetch.cancel(on: loop) }
        fetches = []
    }

    /// Stops every piece on its way, and calls `drained` once none of their bytes is
    /// still to be written: a whole fetch of the file may begin then, and never finds an
    /// old piece's bytes landing among its own.
    func startOver(on loop: TransferLoop, drained: @escaping () -> Void) {
        startingOver = true
        var left = fetches.count
        let stopping = fetches
        fetches = []
        guard left > 0 else { return drained() }
        for fetch in stopping {
            fetch.cancel(on: loop) {
                left -= 1
                if left == 0 { drained() }
            }
        }
    }
}
