import Testing
@testable import MediaCacheKit

/// Per-host admission by priority (`HostGate`), without a network: transfers are made
/// and counted, never started.
@Suite("HostGate")
struct HostGateTests {
    final class Owner: HTTPTransferDelegate {
        func transfer(_ transfer: HTTPTransfer, didReceive head: HTTPResponseHead) -> Bool { true }
        func transfer(_ transfer: HTTPTransfer, didReceive chunk: BodyChunk) -> Int { chunk.count }
        func transfer(_ transfer: HTTPTransfer, didCompleteWith error: TransferError?) {}
    }

    let owner = Owner()

    func transfer(_ url: String, priority: Int, preemptible: Bool = true) -> HTTPTransfer {
        let transfer = HTTPTransfer(
            request: HTTPRequest(url: url, headers: [], stallTimeout: 10), userAgent: "test", delegate: owner)
        transfer.priority = priority
        transfer.isPreemptible = preemptible
        return transfer
    }

    func started(_ admission: HostGate.Admission) -> Bool {
        if case .start = admission { true } else { false }
    }

    @Test func theMostUrgentWaitingTransferStartsFirstAndOtherHostsAreNotCounted() {
        var gate = HostGate(limit: 2)
        let running = [transfer("http://a/1", priority: 0), transfer("http://a/2", priority: 0)]
        #expect(running.allSatisfy { started(gate.admit($0)) })
        #expect(started(gate.admit(transfer("http://b/1", priority: 0))), "another host has its own connections")
        let background = transfer("http://a/3", priority: 0)
        let normal = transfer("http://a/4", priority: 1, preemptible: false)
        _ = gate.admit(background)
        _ = gate.admit(normal)
        #expect(gate.release(running[0]).map(\.request.url) == ["http://a/4"])
        #expect(gate.release(running[1]).map(\.request.url) == ["http://a/3"])
        // A waiting transfer that is cancelled never starts.
        let waiting = transfer("http://a/5", priority: 0)
        _ = gate.admit(waiting)
        #expect(gate.release(waiting).isEmpty)
        #expect(gate.release(normal).isEmpty, "nothing else waits")
    }

    @Test func anUrgentTransferNamesTheLeastUrgentLatestRunningOneToGiveWay() {
        var gate = HostGate(limit: 3)
        let old = transfer("http://a/old", priority: 0)
        let newer = transfer("http://a/newer", priority: 0)
        let fixed = transfer("http://a/probe", priority: 0, preemptible: false)
        for running in [old, fixed, newer] { _ = gate.admit(running) }
        guard case .wait(let victim) = gate.admit(transfer("http://a/player", priority: 3)) else {
            Issue.record("the urgent transfer started past the limit")
            return
        }
        #expect(victim === newer)
        // Nothing gives way to a transfer no more urgent than what runs.
        guard case .wait(let none) = gate.admit(transfer("http://a/more", priority: 0)) else {
            Issue.record("started past the limit")
            return
        }
        #expect(none == nil)
        // The urgent one takes the first free connection.
        #expect(gate.release(newer).map(\.request.url) == ["http://a/player"])
    }
}
