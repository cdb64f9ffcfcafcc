/// Plans what a file's connections fetch next from one picture of it: the bytes held,
/// the ranges in flight and the demands (bytes someone needs before the rest).
///
/// Demands come first, highest priority first, each served at its first missing byte:
/// left alone when a running range brings it soon, else taken from the range that would
/// bring it only later, else asked for by a request of its own, beyond `connections`
/// (demands are small and urgent). A reader's next bytes are then spread over the
/// file's connections, and ordinary ranges far from it give theirs up. Then the free
/// connections fill the file front to back; when nothing is unassigned they steal the
/// back half of the largest range in flight, and in the endgame the back of whichever
/// range would take longest.
struct FragmentScheduler {
    let planner: FragmentPlanner
    /// Connections the file's own fill uses (`-x`).
    let connections: Int

    /// A running request's range: `[next, end)` still to come.
    struct InFlight: Equatable {
        var next: Int64
        /// Exclusive; nil while the length is unknown.
        var end: Int64?
        /// Bytes before this are compared with held ones, not written: never cut there.
        var compareUntil: Int64
        /// Whether its response head was accepted (it delivers bytes).
        var accepted: Bool
        /// Asked for by a demand.
        var isPriority: Bool
        /// Its connection's rate, when known.
        var bytesPerSecond: Double?
        /// Bytes past `next` already in its connection's socket: a cut before them would
        /// have them fetched twice (the connection is stopped at its cut, its rest lost).
        var arrived: Int64 = 0
        /// The most it delivered between two pauses, when it pauses at all (a throttling
        /// server's bursts); nil for a steady one.
        var burst: Int64?

        var remaining: Int64? { end.map { $0 - next } }

        /// Where a cut may fall: past what has arrived already.
        var cuttableFrom: Int64 { end.map { min(next + arrived, $0) } ?? next + arrived }

        /// How far past `next` its bytes come soon: about a second's worth at its rate, at
        /// most `FragmentScheduler.soon` (all of that while the rate is unknown), never less
        /// than what its socket holds. At 16 KiB/s, 256 KiB is 16 s a player would wait.
        var soonSpan: Int64 {
            guard let rate = bytesPerSecond, rate > 0 else { return FragmentScheduler.soon }
            return max(min(Int64(rate), FragmentScheduler.soon), arrived, FragmentScheduler.soonAtLeast)
        }

        /// A request just made for `[start, end)`, not answered yet.
        static func fresh(_ start: Int64, _ end: Int64?, isPriority: Bool, rate: Double? = nil) -> InFlight {
            InFlight(
                next: start, end: end, compareUntil: start, accepted: false, isPriority: isPriority, bytesPerSecond: rate)
        }
    }

    /// Bytes someone needs before the rest.
    struct Demand: Equatable {
        enum Priority: Int, Comparable {
            /// Bytes that locate an MP4's moov (the tail after mdat, a box header).
            case layout
            /// A reader waits for these bytes.
            case reader

            static func < (a: Priority, b: Priority) -> Bool { a.rawValue < b.rawValue }
        }

        var range: ByteRange
        var priority: Priority
    }

    enum Action: Equatable {
        /// A fresh request for `range`, for a demand of `priority` if any.
        case start(ByteRange, priority: Demand.Priority?)
        /// In-flight range `index` stops at `cut`; a fresh request takes the rest, assumed
        /// to run at `rate` until it has its own.
        case split(index: Int, at: Int64, rate: Double?, priority: Demand.Priority?)
        /// In-flight range `index` stops at `at` (at once when nothing before it is still
        /// to come); the rest is left for a later plan.
        case trim(index: Int, at: Int64)
    }

    struct Situation {
        var length: Int64
        var held: RangeSet
        var inFlight: [InFlight]
        var demands: [Demand] = []
        /// The others wait for a response that decides what comes first: demands only.
        var holding = false
        /// A rate limit held bytes back: more connections would not help, none is cut.
        var rateLimited = false
        /// Seconds from a request to its first byte, when measured.
        var requestSeconds: Double?
    }

    struct Plan: Equatable {
        var actions: [Action] = []
        /// Indices of the demands with nothing left to fetch (held, or past the end).
        var satisfied: [Int] = []
        /// A layout demand was just asked for: the others should wait for its answer.
        var holdOthers = false
        /// Connections that found no work.
        var idleConnections = 0
    }

    /// How far ahead of a running range's next byte an offset counts as arriving soon, at
    /// most (`InFlight.soonSpan`).
    static let soon: Int64 = 256 * 1024
    /// ... and at least: a new request costs a round trip and its head.
    static let soonAtLeast: Int64 = 16 * 1024

    /// How long a running range may deliver nothing before a free connection asks for
    /// what it still lacks: four request latencies and at least `pauseAllowance`, as a
    /// throttling server's pauses between bursts are not stalls.
    ///
    /// Sooner for a tail of at most `soon` bytes whose response goes on past it (a range
    /// cut for another connection, a probe trimmed to one piece): the server flushes its
    /// last partial segment when a response ends, not at our cut, and may hold it back
    /// (nginx's `tcp_nopush` between `limit_rate` bursts, for 200 ms) while every other
    /// connection waits. A fresh request brings such a tail with its first byte, so two
    /// latencies (at least 50 ms) are enough; its own response ends at the tail's end,
    /// so a range is asked for again this way at most once.
    static func stallSeconds(remaining: Int64?, responseGoesOn: Bool, requestSeconds: Double?) -> Double {
        let latency = requestSeconds ?? 0.05
        guard responseGoesOn, let remaining, remaining <= soon else { return max(pauseAllowance, 4 * latency) }
        return max(0.05, 2 * latency)
    }

    /// nginx's `limit_rate` sends a second's worth at a time, every connection of a file
    /// on the same beat: one asked for again just before its next burst had that burst,
    /// sent already, fetched twice.
    static let pauseAllowance = 1.2

    /// The most a connection is given at once: the file fills front to back in pieces
    /// that keep every connection busy to the end, never below `--min-fragment`.
    func pieceSize(of length: Int64) -> Int64 {
        max(length / Int64(connections * 8), planner.minFragment)
    }

    /// Whether a running range will write `offset` within `soon` bytes, or a demand's
    /// request (a short one, answered or not yet) covers it.
    static func isArrivingSoon(_ offset: Int64, in inFlight: [InFlight]) -> Bool {
        inFlight.contains {
            $0.next <= offset && offset < ($0.end ?? Int64.max)
                && ($0.isPriority || ($0.accepted && offset - $0.next < $0.soonSpan))
        }
    }

    func plan(_ situation: Situation) -> Plan {
        var plan = Plan()
        var running = situation.inFlight
        serveDemands(situation, running: &running, plan: &plan)
        guard !situation.holding && !plan.holdOthers else { return plan }
        var slots = connections - running.count
        guard slots > 0 else { return plan }
        var busy = situation.held
        for range in running { if let end = range.end, range.next < end { busy.insert(ByteRange(range.next, end)) } }
        let unassigned = busy.gaps(within: ByteRange(0, situation.length))
        let pieceSize = pieceSize(of: situation.length)
        for piece in planner.planInOrder(unassigned: unassigned, slots: slots, pieceSize: pieceSize) {
            plan.actions.append(.start(piece, priority: nil))
            running.append(.fresh(piece.start, piece.end, isPriority: false))
            slots -= 1
        }
        while slots > 0 && !situation.rateLimited, let (index, cut, rate) = steal(running, situation) {
            plan.actions.append(.split(index: index, at: cut, rate: rate, priority: nil))
            split(&running, index, at: cut, rate: rate, priority: nil)
            slots -= 1
        }
        plan.idleConnections = slots
        return plan
    }

    /// Layout demands first (bytes that decide what comes next), then readers'.
    private func serveDemands(_ situation: Situation, running: inout [InFlight], plan: inout Plan) {
        // The usual case, on every plan of every file: nothing to weigh.
        guard !situation.demands.isEmpty else { return }
        let order = situation.demands.indices.sorted {
            situation.demands[$0].priority != situation.demands[$1].priority
                ? situation.demands[$0].priority > situation.demands[$1].priority : $0 < $1
        }
        let piece = readAheadPiece(running)
        // Readers' pieces in flight and to come share the file's connections; a piece no
        // demand wants any more (its reader sought elsewhere or left) takes no share.
        let wanted = running.filter { range in
            range.isPriority && (range.remaining ?? 1) > 0
                && situation.demands.contains { $0.range.start <= range.next && range.next < $0.range.end }
        }
        var readAheadLeft = connections - wanted.count
        for index in order {
            let demand = situation.demands[index]
            // A want past the end (of a new, shorter version) has nothing to fetch.
            guard demand.range.start < situation.length,
                let missing = situation.held.gaps(
                    within: ByteRange(demand.range.start, min(demand.range.end, situation.length))
                ).first
            else {
                plan.satisfied.append(index)
                continue
            }
            switch demand.priority {
            case .layout:
                serveLayout(missing, situation, running: &running, plan: &plan)
            case .reader:
                let window = ByteRange(missing.start, min(demand.range.end, situation.length))
                serveReader(window, piece: piece, budget: &readAheadLeft, situation, running: &running, plan: &plan)
            }
        }
        if situation.demands.contains(where: { $0.priority == .reader }) {
            yieldToReaders(situation, running: &running, plan: &plan)
        }
    }

    /// A layout demand's first missing byte arrives soon: asked for with the rest of its
    /// gap (the bytes locating a moov are wanted whole).
    private func serveLayout(_ missing: ByteRange, _ situation: Situation, running: inout [InFlight], plan: inout Plan) {
        let start = missing.start
        if Self.isArrivingSoon(start, in: running) { return }
        if let carrier = running.firstIndex(where: { $0.next <= start && start < ($0.end ?? Int64.max) }) {
            // A running range brings it only later: it stops there, a new request takes the rest.
            guard running[carrier].next >= running[carrier].compareUntil else { return }
            plan.actions.append(.split(index: carrier, at: start, rate: nil, priority: .layout))
            split(&running, carrier, at: start, rate: nil, priority: .layout)
        } else {
            let gap = ByteRange(start, nextRunningStart(after: start, before: missing.end, running))
            plan.actions.append(.start(gap, priority: .layout))
            running.append(.fresh(gap.start, gap.end, isPriority: true))
        }
        plan.holdOthers = true
    }

    /// A reader's next bytes come over several connections at once: from its first
    /// missing byte, pieces of about a second each are asked for on up to `connections`
    /// requests, so the playhead is fed at the sum of their rates rather than one
    /// connection's. A running range that would bring a piece only after the bytes
    /// before it stops there. The first missing byte is always served, beyond the
    /// budget; the rest of the window shares the file's connections.
    private func serveReader(
        _ window: ByteRange, piece: Int64, budget: inout Int, _ situation: Situation, running: inout [InFlight],
        plan: inout Plan
    ) {
        var cursor = window.start
        var first = true
        while cursor < window.end && (first || budget > 0),
            let gap = situation.held.gaps(within: ByteRange(cursor, window.end)).first
        {
            let start = gap.start
            defer { first = false }
            if let carrier = running.firstIndex(where: { $0.next <= start && start < ($0.end ?? Int64.max) }) {
                let range = running[carrier]
                // A demand's own request brings all of its range soon; another range only
                // what follows its next byte closely.
                let soonUntil = range.isPriority ? (range.end ?? Int64.max) : range.next + range.soonSpan
                if start < soonUntil {
                    cursor = soonUntil
                    continue
                }
                guard range.next >= range.compareUntil, start >= range.cuttableFrom else {
                    cursor = start + piece
                    continue
                }
                plan.actions.append(.trim(index: carrier, at: start))
                running[carrier].end = start
            }
            let end = min(start + piece, gap.end, nextRunningStart(after: start, before: gap.end, running))
            plan.actions.append(.start(ByteRange(start, end), priority: .reader))
            running.append(.fresh(start, end, isPriority: true))
            budget -= 1
            cursor = end
        }
    }

    /// Readers' pieces took connections beyond the file's: the ordinary ranges farthest
    /// from what readers wait for stop at what has arrived (their rest is planned again
    /// later), so the file keeps to `connections`.
    private func yieldToReaders(_ situation: Situation, running: inout [InFlight], plan: inout Plan) {
        let wanted = situation.demands.filter { $0.priority == .reader }.map(\.range.start)
        func distance(_ range: InFlight) -> Int64 { wanted.map { abs(range.next - $0) }.min() ?? 0 }
        let active = running.indices.filter { index in running[index].end.map { running[index].cuttableFrom < $0 } ?? false }
        var excess = active.count - connections
        // A range about to end is let be: its bytes are on their way.
        let yielding = active.filter {
            !running[$0].isPriority && running[$0].accepted && running[$0].next >= running[$0].compareUntil
                && (running[$0].remaining ?? Int64.max) > Self.soon
        }.sorted { distance(running[$0]) > distance(running[$1]) }
        for index in yielding where excess > 0 {
            let cut = running[index].cuttableFrom
            plan.actions.append(.trim(index: index, at: cut))
            running[index].end = cut
            excess -= 1
        }
    }

    /// How much of a reader's window one request takes: about a second at the rate the
    /// file's connections deliver (256 KiB while unknown), at most 4 MiB.
    func readAheadPiece(_ running: [InFlight]) -> Int64 {
        let rates = running.compactMap(\.bytesPerSecond).sorted()
        guard !rates.isEmpty else { return Self.soon }
        let median = rates[rates.count / 2]
        let piece = Int64(median.rounded())
        let aligned = piece - piece % planner.alignment
        return min(max(aligned, Self.soon), 4 * 1024 * 1024)
    }

    /// Where the first running range after `offset` starts, or `limit`.
    private func nextRunningStart(after offset: Int64, before limit: Int64, _ running: [InFlight]) -> Int64 {
        running.map(\.next).filter { $0 > offset && $0 < limit }.min() ?? limit
    }

    /// The range a free connection should take the back of: half of the largest, or in
    /// the endgame the back of whichever would take longest at its rate.
    private func steal(_ running: [InFlight], _ situation: Situation) -> (Int, Int64, Double?)? {
        let candidates = running.indices.filter {
            running[$0].accepted && running[$0].end != nil && running[$0].next >= running[$0].compareUntil
        }
        if let victim = candidates.max(by: { running[$0].remaining! < running[$1].remaining! }),
            let middle = planner.stealPoint(next: running[victim].cuttableFrom, end: running[victim].end!),
            let cut = Self.burstAligned(middle, running[victim])
        {
            return (victim, cut, running[victim].bytesPerSecond)
        }
        // Nothing is left to halve, but the range that would take longest at its
        // connection's rate may still finish sooner shared with a fresh request.
        let timed = candidates.compactMap { index in running[index].bytesPerSecond.map { (index, $0) } }
        guard
            let (victim, rate) = timed.max(by: {
                Double(running[$0.0].remaining!) / $0.1 < Double(running[$1.0].remaining!) / $1.1
            }),
            let ideal = planner.endgameCut(
                next: running[victim].cuttableFrom, end: running[victim].end!, bytesPerSecond: rate,
                requestSeconds: situation.requestSeconds ?? 0.05),
            let cut = Self.burstAligned(ideal, running[victim])
        else { return nil }
        return (victim, cut, rate)
    }

    /// Where to cut `victim` near `ideal` (`FragmentPlanner.burstAligned`).
    static func burstAligned(_ ideal: Int64, _ victim: InFlight) -> Int64? {
        guard let end = victim.end else { return ideal }
        return FragmentPlanner.burstAligned(ideal, from: victim.cuttableFrom, end: end, burst: victim.burst)
    }

    /// Applies a split to the picture, so later decisions of the same plan see it.
    private func split(
        _ running: inout [InFlight], _ index: Int, at cut: Int64, rate: Double?, priority: Demand.Priority?
    ) {
        let end = running[index].end
        running[index].end = cut
        running.append(.fresh(cut, end, isPriority: priority != nil, rate: rate))
    }
}
