import CCurl
import CShims
import Foundation
import Synchronization

/// The one libcurl multi loop: runs on its own thread (never in the cooperative pool)
/// and owns every transfer, timer and piece of engine state confined to that thread.
///
/// Modelled on curl's `parallel_transfers`: poll → perform → drain `info_read`, one
/// completion path per transfer. Other threads talk to it only through `post`.
// @unchecked: its state is touched only on its thread, every entry point checked.
final class TransferLoop: @unchecked Sendable {
    /// libcurl's multi handle (`CurlMulti`), or a test's script.
    private let executor: any TransferExecutor
    private var insidePerform = false
    private var deferredRemovals: [HTTPTransfer] = []
    private var deferredStarts: [HTTPTransfer] = []
    private var timers: [(deadline: Double, id: Int, work: () -> Void)] = []
    /// Run once, before the loop next waits (`beforeWaiting`).
    private var beforeWaitingWork: [() -> Void] = []
    private var nextTimerID = 0
    private var stopping = false
    /// When transfers were last looked at for silence (`endSilentTransfers`).
    private var silenceCheckedAt = 0.0
    /// Per-host admission by priority (libcurl's own cap stays as a backstop).
    private var gate: HostGate

    /// `--limit-rate` and the files' own limits (see `RateLimiter`).
    private(set) lazy var rateLimiter = RateLimiter(loop: self)

    /// Work other threads handed to the loop, in order.
    private let posted = Mutex<[@Sendable () -> Void]>([])
    /// The thread that runs (or ran) `run()`, for the checks of confinement; 0 before.
    private let owner = Atomic<UInt>(0)

    /// `maxConnections` bounds the connections kept open, idle ones included; `executor`
    /// runs the transfers (libcurl's multi handle unless a test scripts them).
    init(maxConnectionsPerHost: Int, maxConnections: Int, executor: (any TransferExecutor)? = nil) {
        self.executor = executor ?? CurlMulti(maxConnectionsPerHost: maxConnectionsPerHost, maxConnections: maxConnections)
        gate = HostGate(limit: maxConnectionsPerHost)
    }

    /// Runs `work` on the loop thread soon. Safe from any thread.
    func post(_ work: @escaping @Sendable () -> Void) {
        let first = posted.withLock { posted in
            posted.append(work)
            return posted.count == 1
        }
        // The loop takes the whole queue at once: only the first item since it last did
        // needs to wake it, and the loop itself looks at the queue before it waits.
        if first && !isLoopThread { executor.wakeup() }
    }

    /// Traps unless called on the loop thread, in release builds too (one atomic load):
    /// every entry point of loop-owned state checks it, as NIO's `preconditionInEventLoop`.
    func preconditionOnLoop(file: StaticString = #fileID, line: UInt = #line) {
        precondition(isLoopThread, "called off the transfer loop's thread", file: file, line: line)
    }

    /// Whether the caller runs on the loop thread (the one that called `run()`).
    var isLoopThread: Bool {
        let owner = owner.load(ordering: .acquiring)
        return owner != 0 && pthread_equal(pthread_t(owner), pthread_self()) != 0
    }

    /// Runs `work` on the loop thread after `delay` seconds; returns an id for `cancelTimer`.
    @discardableResult
    func after(_ delay: Double, _ work: @escaping () -> Void) -> Int {
        preconditionOnLoop()
        nextTimerID += 1
        let deadline = Self.now() + max(0, delay)
        let index = timers.firstIndex(where: { $0.deadline > deadline }) ?? timers.count
        timers.insert((deadline, nextTimerID, work), at: index)
        return nextTimerID
    }

    func cancelTimer(_ id: Int) {
        preconditionOnLoop()
        timers.removeAll { $0.id == id }
    }

    /// Starts a transfer when its host has a connection for it (else it waits, ahead of
    /// less urgent ones, and may preempt one); from inside a libcurl callback it starts
    /// once perform returns.
    func start(_ transfer: HTTPTransfer) {
        preconditionOnLoop()
        if insidePerform {
            deferredStarts.append(transfer)
            return
        }
        switch gate.admit(transfer) {
        case .start:
            add(transfer)
        case .wait(let victim?):
            // Its owner cancels it, which lets the most urgent waiting transfer in.
            victim.delegate?.transferPreempted(victim)
        case .wait(nil):
            break
        }
    }

    private func add(_ transfer: HTTPTransfer) {
        // A transfer without a limit shares a fixed budget of receive buffers with the others.
        if transfer.rateLimits == nil {
            transfer.easy.setReceiveChunk(ReceiveBuffers.unlimitedChunkBytes(transfers: executor.runningCount + 1))
        }
        transfer.noteStarted(at: Self.now())
        executor.add(transfer)
    }

    /// Stops reading `transfer`'s response until `release` (libcurl keeps what it read
    /// already): waiting, not stalled, for the rate limiter or for the disk.
    func hold(_ transfer: HTTPTransfer) {
        preconditionOnLoop()
        transfer.noteHeld()
        _ = executor.setReceiving(transfer, paused: true)
    }

    /// Reads `transfer`'s response again; what was kept may arrive before this returns,
    /// so call it inside `insideCurl`.
    func release(_ transfer: HTTPTransfer, now: Double) -> CURLcode {
        preconditionOnLoop()
        transfer.noteReleased(at: now)
        return executor.setReceiving(transfer, paused: false)
    }

    /// Stops a transfer (running or waiting for its host) without calling its delegate again.
    func cancel(_ transfer: HTTPTransfer) {
        preconditionOnLoop()
        transfer.delegate = nil
        deferredStarts.removeAll { $0 === transfer }
        if insidePerform {
            deferredRemovals.append(transfer)
        } else {
            remove(transfer)
        }
    }

    /// Runs `work`, which calls into libcurl outside `curl_multi_perform` in a way that
    /// may run callbacks (unpausing delivers held bytes at once): the starts and removals
    /// they ask for wait until it returns, as they do for perform.
    func insideCurl(_ work: () -> Void) {
        insidePerform = true
        work()
        insidePerform = false
        for transfer in deferredRemovals { remove(transfer) }
        deferredRemovals = []
        let starts = deferredStarts
        deferredStarts = []
        for transfer in starts { start(transfer) }
    }

    /// Ends a transfer libcurl failed outside perform, as if perform had reported it.
    func end(_ transfer: HTTPTransfer, code: CURLcode) {
        guard remove(transfer) else { return }
        transfer.complete(code: code)
    }

    /// Ends `run` after the current iteration.
    func stop() {
        preconditionOnLoop()
        stopping = true
    }

    /// Runs until `stop()`; call on the dedicated thread.
    func run() {
        // Kept after `run` returns: that thread goes on to end what the loop left.
        owner.store(UInt(pthread_self()), ordering: .releasing)
        LoopThreads.enter()
        defer { LoopThreads.leave() }
        while !stopping {
            runPostedWork()
            runDueTimers()
            if stopping { break }
            runBeforeWaitingWork()
            // While transfers run, silence is looked for four times a second.
            var timeout = executor.runningCount > 0 ? Self.silenceCheckInterval : 1000
            if let first = timers.first {
                timeout = max(0, min(timeout, Int((first.deadline - Self.now()) * 1000) + 1))
            }
            if posted.withLock({ $0.isEmpty }) { executor.wait(milliseconds: timeout) }
            insidePerform = true
            let ended = executor.perform()
            insidePerform = false
            for transfer in deferredRemovals { remove(transfer) }
            deferredRemovals = []
            for (transfer, code) in ended {
                gateRelease(transfer)
                transfer.complete(code: code)
            }
            let starts = deferredStarts
            deferredStarts = []
            for transfer in starts { start(transfer) }
            endSilentTransfers()
        }
        for transfer in executor.running { remove(transfer) }
    }

    static let silenceCheckInterval = 250

    /// Ends each transfer that received nothing for its `--timeout`, as libcurl's own
    /// low-speed check would, but on time: that check averages the speed over the last
    /// five seconds or so, so a response that sent its first bytes and then nothing took
    /// about `--timeout` plus six seconds to be found silent.
    private func endSilentTransfers() {
        let now = Self.now()
        guard now - silenceCheckedAt >= Double(Self.silenceCheckInterval) / 1000 else { return }
        silenceCheckedAt = now
        for transfer in executor.running where transfer.isSilent(now: now) {
            end(transfer, code: CURLE_OPERATION_TIMEDOUT)
        }
    }

    /// Stops a running (or waiting) transfer; whether it was running.
    @discardableResult
    private func remove(_ transfer: HTTPTransfer) -> Bool {
        let wasRunning = executor.remove(transfer)
        gateRelease(transfer)
        return wasRunning
    }

    /// `transfer` no longer runs: the rate limiter forgets it, and its host's next
    /// waiting transfers start (except at the end of the loop).
    private func gateRelease(_ transfer: HTTPTransfer) {
        let next = gate.release(transfer)
        rateLimiter.forget(transfer)
        guard !stopping else { return }
        for waiting in next { add(waiting) }
    }

    /// Runs `work` once the loop has handled what is ready and before it waits again:
    /// how a pass's many small pieces of work (libcurl hands a body over 16 KiB at a
    /// time) become one. Loop thread only.
    func beforeWaiting(_ work: @escaping () -> Void) {
        preconditionOnLoop()
        beforeWaitingWork.append(work)
    }

    private func runBeforeWaitingWork() {
        while !beforeWaitingWork.isEmpty {
            let work = beforeWaitingWork
            beforeWaitingWork = []
            for item in work { item() }
        }
    }

    private func runPostedWork() {
        let work = posted.withLock { posted in
            defer { posted = [] }
            return posted
        }
        for item in work { item() }
    }

    private func runDueTimers() {
        let now = Self.now()
        while let first = timers.first, first.deadline <= now {
            timers.removeFirst()
            first.work()
        }
    }

    static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    /// libcurl's version line, e.g. `libcurl/7.88.1 OpenSSL/3.0.19 ...`.
    static var libcurlVersion: String { String(cString: curl_version()) }
}
