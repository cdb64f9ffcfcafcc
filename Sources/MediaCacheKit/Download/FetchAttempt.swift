/// One try at a source: its transfers in flight, the hold on the other connections,
/// the backoff after a failure and the one timer that has the job look again, the moov
/// search and the running hash. A retry after the backoff keeps it; a probe starts a
/// new one (after a failed probe's backoff, a changed origin, a fall-back to one stream,
/// another source), which never sees the old one's state: the job cancels the old
/// transfers, wake and hasher first, so nothing one try learned or left running leaks
/// into the next.
///
/// Confined to the transfer loop's thread, like the job that owns it.
final class FetchAttempt {
    /// The ranges in flight, by their transfer.
    private(set) var fragments: [ObjectIdentifier: Fragment] = [:]
    /// Set once the probe's first body bytes were checked for an error page.
    var firstBytesChecked = false
    /// A text-like Content-Type on a media URL: the first bytes decide.
    var suspectMediaType: String?
    /// Other connections wait (until this time) for a response that decides what comes
    /// first (the probe's first bytes, a late moov); nil while nobody waits.
    var holdFillUntil: Double?
    /// The search for an MP4's moov; nil once there is nothing left to learn.
    var moovSearch: MoovSearch?
    /// Demands that locate a late moov (the tail after mdat, box headers), kept until
    /// their bytes are held.
    var layoutDemands: [ByteRange] = []
    /// Hashes the contiguous prefix while the rest arrives (files of 32 MiB and more);
    /// handed to the committer when every byte is held.
    var hasher: PrefixHasher?
    /// After a failure, no new request goes out before this time; nil: no backoff yet.
    private(set) var backoffUntil: Double?
    /// The pending wake (`wake(at:on:_:)`); nil when none.
    private var wakeTimer: Int?
    /// Transfers that ended while the data file was being prepared, with how: their
    /// ends are handled once it is ready.
    private var endsWhilePreparing: [(transfer: HTTPTransfer, error: TransferError?)] = []

    /// Finds an MP4's moov while bytes arrive.
    struct MoovSearch {
        var locator: MoovLocator
        /// Whether the tail after mdat was asked for first.
        var tailRequested = false
        /// Whether `moov-found` was reported.
        var reported = false
    }

    // MARK: Transfers

    func fragment(of transfer: HTTPTransfer) -> Fragment? { fragments[ObjectIdentifier(transfer)] }

    func add(_ fragment: Fragment) { fragments[ObjectIdentifier(fragment.transfer)] = fragment }

    /// Forgets `transfer`'s range; nil when it is not (or no longer) this attempt's.
    @discardableResult
    func remove(_ transfer: HTTPTransfer) -> Fragment? { fragments.removeValue(forKey: ObjectIdentifier(transfer)) }

    /// `transfer` ended while the data file was being prepared: handled after.
    func noteEndWhilePreparing(_ transfer: HTTPTransfer, error: TransferError?) {
        endsWhilePreparing.append((transfer, error))
    }

    func takeEndsWhilePreparing() -> [(transfer: HTTPTransfer, error: TransferError?)] {
        defer { endsWhilePreparing = [] }
        return endsWhilePreparing
    }

    /// Nothing is in flight.
    var isIdle: Bool { fragments.isEmpty }

    var connections: Int { fragments.count }

    /// The probe, while its response runs.
    var probe: Fragment? { fragments.values.first(where: \.isProbe) }

    /// Whether a range serving a demand (a reader's bytes, a late moov) still runs.
    var servesADemand: Bool { fragments.values.contains(where: \.isPriority) }

    /// Whether a response runs past where its range was cut.
    var runsPastItsRange: Bool { fragments.values.contains(where: \.isCutShort) }

    /// Whether every response still running only goes on past its range (it was cut)
    /// and compares nothing: once every byte is held, they bring nothing more.
    var onlyRunPastTheirRanges: Bool {
        !fragments.values.contains { $0.next < $0.compareUntil || !$0.isCutShort }
    }

    /// Ends the attempt: stops every transfer it started (their connections go back to
    /// the pool), forgets them, and cancels its wake.
    func cancel(on loop: TransferLoop) {
        for fragment in fragments.values { loop.cancel(fragment.transfer) }
        fragments = [:]
        cancelWake(on: loop)
    }

    // MARK: Backoff and wake

    /// Whether new requests wait at `now` after a failure.
    func isBackingOff(at now: Double) -> Bool { backoffUntil.map { now < $0 } ?? false }

    /// No new request before `deadline`, or before a later end already set.
    func backOff(until deadline: Double) { backoffUntil = max(backoffUntil ?? deadline, deadline) }

    /// Runs `wake` on the loop at `deadline`, instead of any wake set before.
    func wake(at deadline: Double, on loop: TransferLoop, _ wake: @escaping () -> Void) {
        cancelWake(on: loop)
        wakeTimer = loop.after(deadline - TransferLoop.now()) { [weak self] in
            self?.wakeTimer = nil
            wake()
        }
    }

    func cancelWake(on loop: TransferLoop) {
        if let wakeTimer { loop.cancelTimer(wakeTimer) }
        wakeTimer = nil
    }

    /// Stops `fragment`'s transfer now.
    func stop(_ fragment: Fragment, on loop: TransferLoop) {
        guard remove(fragment.transfer) != nil else { return }
        loop.cancel(fragment.transfer)
    }

    /// `fragment` ends at `cut`: it delivers what comes before (already in its socket,
    /// or on the way) and stops there, or stops now when nothing before `cut` is left.
    func trim(_ fragment: Fragment, at cut: Int64, on loop: TransferLoop) {
        guard cut > fragment.next else { return stop(fragment, on: loop) }
        fragment.end = min(fragment.end ?? cut, cut)
    }

    // MARK: What the scheduler sees

    func inFlight(now: Double) -> [FragmentScheduler.InFlight] { fragments.values.map { $0.inFlight(now: now) } }

    /// Whether a running transfer will write `offset` soon (see `FragmentScheduler`).
    func isArrivingSoon(_ offset: Int64, now: Double) -> Bool {
        FragmentScheduler.isArrivingSoon(offset, in: inFlight(now: now))
    }

    /// `fragment` ended. The other connections wait while the probe or a priority range
    /// (a late moov) arrives, so their first bytes do not race it: that wait ends with it,
    /// unless another range serving a demand still runs (its deadline bounds the wait).
    func releaseHold(after fragment: Fragment) {
        if (fragment.isProbe || fragment.isPriority) && !servesADemand { holdFillUntil = nil }
    }

    /// Whether the other connections wait at `now`.
    func holdsFill(at now: Double) -> Bool { holdFillUntil.map { now < $0 } ?? false }

    /// Connections sit idle while ranges still run: a range that stopped delivering (of
    /// several, the one with most left) should give its rest to a fresh request; and
    /// when the next one would count as stalled.
    func stallWatch(now: Double, requestSeconds: Double?) -> (stalled: Fragment?, nextStallAt: Double) {
        let watched = fragments.values.filter {
            $0.accepted && $0.firstByte != nil && $0.next >= $0.compareUntil && ($0.remaining ?? 0) > 0
        }.map { (fragment: $0, stallsAt: $0.stallsAt(now: now, requestSeconds: requestSeconds)) }
        let stalled = watched.filter { $0.stallsAt < now }.map(\.fragment)
            .max { ($0.remaining ?? 0) < ($1.remaining ?? 0) }
        return (stalled, watched.map(\.stallsAt).min() ?? .infinity)
    }
}
