/// How many transfers run at once per host, most urgent first.
///
/// libcurl's own per-host cap keeps the transfers it cannot start yet in the order they
/// came, so a player's request waited behind every background range queued before it
/// (29.7 s to a first frame behind four background downloads). Here a waiting transfer
/// goes ahead of every less urgent one, and one that outranks a running transfer takes
/// that one's place: the running one is named to be preempted, and its owner gives
/// back what it has not received yet.
struct HostGate {
    let limit: Int
    private var running: [String: [HTTPTransfer]] = [:]
    /// By host, most urgent first, then in the order they came.
    private var waiting: [String: [HTTPTransfer]] = [:]
    private var admissions = 0

    init(limit: Int) { self.limit = max(1, limit) }

    enum Admission {
        case start
        /// It waits; `preempt` (when not nil) is the running transfer to give way.
        case wait(preempt: HTTPTransfer?)
    }

    /// Starts `transfer` when its host has room; else queues it by its priority.
    mutating func admit(_ transfer: HTTPTransfer) -> Admission {
        let host = transfer.hostKey
        let busy = running[host, default: []]
        guard busy.count >= limit else {
            admissions += 1
            transfer.admittedOrder = admissions
            running[host, default: []].append(transfer)
            return .start
        }
        var queue = waiting[host, default: []]
        let index = queue.firstIndex { $0.priority < transfer.priority } ?? queue.count
        queue.insert(transfer, at: index)
        waiting[host] = queue
        // The least urgent running transfer that can give way, the latest of them (it
        // has the least under way).
        let victim = busy.filter { $0.isPreemptible && $0.priority < transfer.priority }
            .min { ($0.priority, -$0.admittedOrder) < ($1.priority, -$1.admittedOrder) }
        return .wait(preempt: victim)
    }

    /// `transfer` ended or was cancelled: it no longer counts (or waits). Returns the
    /// transfers that take its place, to start now.
    mutating func release(_ transfer: HTTPTransfer) -> [HTTPTransfer] {
        let host = transfer.hostKey
        if let index = waiting[host]?.firstIndex(where: { $0 === transfer }) {
            waiting[host]?.remove(at: index)
            return []
        }
        guard let index = running[host]?.firstIndex(where: { $0 === transfer }) else { return [] }
        running[host]?.remove(at: index)
        var started: [HTTPTransfer] = []
        while running[host, default: []].count < limit, let next = waiting[host]?.first {
            waiting[host]?.removeFirst()
            admissions += 1
            next.admittedOrder = admissions
            running[host, default: []].append(next)
            started.append(next)
        }
        if running[host]?.isEmpty == true { running[host] = nil }
        if waiting[host]?.isEmpty == true { waiting[host] = nil }
        return started
    }
}
