/// How a fetching job keeps its connections busy: the scheduler's plan for the
/// readers' and the moov's demands and the front-to-back fill, ranges split or trimmed,
/// and a stalled connection's range handed to a fresh one.
extension DownloadJob {
    /// Serves the demands, then gives every free connection work, as the scheduler plans
    /// it; a connection that stopped delivering gives its range to a fresh one.
    func fillConnections() {
        loop.preconditionOnLoop()
        guard case .fetching(let attempt) = phase else { return }
        let now = TransferLoop.now()
        // Every byte is held, whatever path got here (a retry after the last byte, a
        // response that ended badly): what is still in flight can only bring bytes held
        // already, unless it is comparing held bytes with the origin's (a changed origin
        // restarts the file), so it is stopped and the file committed.
        if state.isComplete {
            // Responses that end by themselves soon are let be (their connections stay
            // open for reuse); those cut short are stopped.
            guard attempt.onlyRunPastTheirRanges else { return }
            cancelAllTransfers()
            commit()
            return
        }
        if attempt.isBackingOff(at: now), let backoffUntil = attempt.backoffUntil {
            scheduleWake(at: backoffUntil)
            return
        }
        // One stream (also when its length is unknown): start it again once it ended.
        guard rangesUsable, let length = state.length else {
            if attempt.isIdle { startProbe() }
            return
        }
        // Readers' wants and the bytes that locate a late moov are one list of demands.
        var demands: [FragmentScheduler.Demand] = []
        var readers: [Int?] = []
        for (reader, wanted) in download.demands {
            demands.append(FragmentScheduler.Demand(range: wanted, priority: .reader))
            readers.append(reader)
        }
        for range in attempt.layoutDemands {
            demands.append(FragmentScheduler.Demand(range: range, priority: .layout))
            readers.append(nil)
        }
        var running = Array(attempt.fragments.values)
        let plan = scheduler.plan(
            FragmentScheduler.Situation(
                length: length, held: state.completed, inFlight: running.map { $0.inFlight(now: now) },
                demands: demands, holding: attempt.holdsFill(at: now),
                rateLimited: heldBackByRateLimit(now: now), requestSeconds: requestLatency))
        for index in plan.satisfied {
            if let reader = readers[index] {
                download.demands[reader] = nil
            } else {
                attempt.layoutDemands.removeAll { $0 == demands[index].range }
            }
        }
        for action in plan.actions {
            switch action {
            case .start(let range, let priority):
                running.append(startFragment(from: range.start, to: range.end, demand: priority))
            case .split(let index, let cut, let rate, let priority):
                running.append(steal(from: running[index], at: cut, rate: rate, demand: priority))
            case .trim(let index, let cut):
                attempt.trim(running[index], at: cut, on: loop)
            }
        }
        if !download.demands.isEmpty || running.contains(where: { $0.transfer.priority == Self.readerPriority }) {
            prioritizeReadersNextBytes(running)
        }
        // The moov's bytes start even when every connection is busy (they are small and
        // make the file playable early), and the rest waits until their response begins.
        if plan.holdOthers { attempt.holdFillUntil = now + 0.5 }
        if let holdFillUntil = attempt.holdFillUntil, now < holdFillUntil {
            scheduleWake(at: holdFillUntil)
            return
        }
        guard plan.idleConnections > 0, !attempt.isIdle else { return }
        // Connections sit idle while ranges still run. A connection that has stopped
        // delivering (a throttling server that sends in bursts, a stalling one) gives its
        // range to a fresh request; meanwhile, look again when the next one would count
        // as stalled.
        let watch = attempt.stallWatch(now: now, requestSeconds: requestLatency)
        if let stalled = watch.stalled {
            attempt.stop(stalled, on: loop)
            return fillConnections()
        }
        scheduleWake(at: min(max(watch.nextStallAt, now + 0.01), now + 0.1))
    }

    /// Only the ranges bringing a reader's next byte go first under a rate limit
    /// (`RateLimiter`: the others give way), whichever requests they are: a player reading
    /// on through the file is not served one connection's share of it, as it was when the
    /// whole rest it asked for (bytes=0-) counted as its own. The rest of what readers
    /// want still goes before other downloads.
    private func prioritizeReadersNextBytes(_ running: [Fragment]) {
        let nextBytes = download.demands.values.map(\.start)
        for fragment in running {
            let bringsOne = nextBytes.contains { fragment.next <= $0 && $0 < (fragment.end ?? Int64.max) }
            fragment.transfer.priority = bringsOne ? Self.readerPriority : download.priority.rawValue
        }
    }

    /// A free connection takes `[cut, end)` of `victim`'s range; its rate is assumed to
    /// be the victim's until it has one of its own.
    @discardableResult
    private func steal(
        from victim: Fragment, at cut: Int64, rate: Double?, demand: FragmentScheduler.Demand.Priority? = nil
    ) -> Fragment {
        let end = victim.end
        attempt?.trim(victim, at: cut, on: loop)
        let taker = startFragment(from: cut, to: end, demand: demand)
        taker.rateHint = rate
        return taker
    }

    @discardableResult
    private func startFragment(
        from start: Int64, to end: Int64?, demand: FragmentScheduler.Demand.Priority? = nil
    ) -> Fragment {
        // No If-Range: each 206 names its version, checked at its head, so a changed file
        // is caught there; with If-Range, its server would send the whole file first.
        issue(
            url: source.fragmentURL(answeredAt: state.finalURL), start: start, end: end, isProbe: false, sendRange: true,
            ifRange: nil, compareUntil: start, demand: demand)
    }

    /// A more urgent transfer (a player's, another file's) waits for this one's
    /// connection: it ends here, what it received is kept, and the rest of its range is
    /// planned again, waiting behind the urgent one.
    func transferPreempted(_ transfer: HTTPTransfer) {
        loop.preconditionOnLoop()
        guard let fragment = attempt?.fragment(of: transfer) else { return }
        attempt?.stop(fragment, on: loop)
        fillConnections()
    }
}
