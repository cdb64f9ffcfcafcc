/// One accepted TCP connection: reads request heads (keep-alive, pipelining) and
/// answers each until the client closes, asks to close, a fault ends it, or the origin stops.
final class Connection {
    /// Larger request heads get 431 and the connection is closed.
    static let maxHeadBytes = 64 * 1024
    /// Request bodies (unusual for GET/HEAD) up to this size are read and discarded to keep the connection usable.
    static let maxDiscardedBodyBytes = 1024 * 1024

    private let id: Int
    private let socket: Socket
    private let routes: RouteTable
    private let log: RequestLog
    /// Received bytes not consumed yet (the start of a pipelined next request).
    private var pending: [UInt8] = []
    private var receiveBuffer = [UInt8](repeating: 0, count: 16 * 1024)

    init(fd: Int32, id: Int, registry: ConnectionRegistry, routes: RouteTable, log: RequestLog) {
        self.id = id
        self.socket = Socket(fd: fd, registry: registry)
        self.routes = routes
        self.log = log
    }

    func run() {
        defer { socket.registry.unregisterAndClose(id) }
        while true {
            switch readHead() {
            case .closed:
                return
            case .malformed:
                return reject(400, "bad request\n")
            case .tooLarge:
                return reject(431, "request head too large\n")
            case .head(let head):
                guard respond(to: head) else { return }
            }
        }
    }

    // MARK: - Responding

    /// Answers one request; returns whether the connection may serve another.
    private func respond(to request: HTTPRequestHead) -> Bool {
        let sequence = log.append(RequestRecord(
            method: request.method, path: request.path, query: request.query, headers: request.headers,
            range: nil, rangeHeader: request.headers["range"], status: 0, bodyBytesSent: 0,
            connectionID: id, finished: false))

        let keepAlive = request.wantsKeepAlive && discardRequestBody(request)
        let route = routes.begin(candidates: request.lookupPaths)
        var plan = ResponsePlan.make(for: request, route: route)
        if !keepAlive {
            plan.head.add("Connection", "close")
        } else if request.version == "HTTP/1.0" {
            plan.head.add("Connection", "keep-alive")
        }
        log.update(sequence) {
            $0.status = plan.head.status
            $0.range = plan.requestedRange
            $0.startedAt = RequestRecord.now()
        }
        if let bytes = plan.faults?.sendBufferBytes { socket.setSendBuffer(bytes) }

        var bodySent = 0
        var ending = BodyStreamer.Ending.complete
        switch plan.body {
        case .none:
            if !socket.send(plan.head.serialized) { ending = .failed }
        case .text(let text):
            // One send for small answers: fewer packets, and the log sees the whole body at once.
            if socket.send(plan.head.serialized + text) { bodySent = text.count } else { ending = .failed }
        case .content(let content, let slice):
            if socket.send(plan.head.serialized), let route, let faults = plan.faults {
                let trickle = faults.trickleBytesPerSecond.flatMap { routes.claim(.trickle, for: route) ? $0 : nil }
                let interruption = interruption(for: slice.count, faults: faults, route: route)
                if case .reset(let offset)? = interruption { log.update(sequence) { $0.resetPlannedAt = offset } }
                (bodySent, ending) = BodyStreamer(socket: socket, chunked: plan.chunked, omitLastChunk: plan.endsBroken).stream(
                    content, slice, bytesPerSecond: trickle ?? faults.bytesPerSecond,
                    inBursts: trickle == nil && faults.pacedInBursts, interruption: interruption)
            } else {
                ending = .failed
            }
        }

        log.update(sequence) {
            $0.bodyBytesSent = bodySent
            $0.finished = true
            $0.finishedAt = RequestRecord.now()
        }
        // Dropped, stalled, failed or broken responses leave the connection unusable.
        if case .complete = ending, !plan.endsBroken { return keepAlive }
        return false
    }

    /// Picks the next reset if one applies, else the earliest applicable drop/stall fault,
    /// consuming one of its uses. Only bodies longer than the cut-off count as "matching" responses.
    private func interruption(for bodyLength: Int, faults: Faults, route: RouteTable.Snapshot) -> BodyStreamer.Interruption? {
        if let offset = routes.claimReset(for: route, bodyLength: bodyLength) { return .reset(after: offset) }
        var candidates: [BodyStreamer.Interruption] = []
        if let bytes = faults.dropAfterBytes, bytes < bodyLength { candidates.append(.drop(after: max(0, bytes))) }
        if let bytes = faults.stallAfterBytes, bytes < bodyLength { candidates.append(.stall(after: max(0, bytes))) }
        for candidate in candidates.sorted(by: { $0.after < $1.after }) {
            let kind: RouteTable.CountedFault = if case .drop = candidate { .drop } else { .stall }
            if routes.claim(kind, for: route) { return candidate }
        }
        return nil
    }

    /// Answers an unparseable request (not logged: there is no method or path) before closing.
    private func reject(_ status: Int, _ message: String) {
        var plan = ResponsePlan.text(status, message, sendsBody: true)
        plan.head.add("Connection", "close")
        if case .text(let body) = plan.body { _ = socket.send(plan.head.serialized + body) }
    }

    // MARK: - Reading

    private enum HeadResult {
        case head(HTTPRequestHead)
        case closed
        case malformed
        case tooLarge
    }

    /// Accumulates bytes until a blank line ends the head (partial reads are normal).
    private func readHead() -> HeadResult {
        var scanFrom = 0
        while true {
            // Stray CRLFs before a request line are allowed (RFC 9112 §2.2).
            let strayLineBreaks = pending.prefix(while: { $0 == 0x0D || $0 == 0x0A }).count
            if strayLineBreaks > 0 {
                pending.removeFirst(strayLineBreaks)
                scanFrom = 0
            }
            if let end = Self.headEnd(in: pending, from: scanFrom) {
                let head = HTTPRequestHead(pending[..<end])
                pending.removeFirst(end)
                return head.map(HeadResult.head) ?? .malformed
            }
            if pending.count > Self.maxHeadBytes { return .tooLarge }
            scanFrom = max(0, pending.count - 3)
            guard case .bytes = receiveMore() else { return .closed }
        }
    }

    /// Index just past the first empty line ("\r\n\r\n" or bare "\n\n"), searching from `start`.
    private static func headEnd(in bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index < bytes.count {
            if bytes[index] == 0x0A {
                if index + 1 < bytes.count, bytes[index + 1] == 0x0A { return index + 2 }
                if index + 2 < bytes.count, bytes[index + 1] == 0x0D, bytes[index + 2] == 0x0A { return index + 3 }
            }
            index += 1
        }
        return nil
    }

    private func receiveMore() -> Socket.Received {
        let result = receiveBuffer.withUnsafeMutableBytes { socket.receive(into: $0) }
        if case .bytes(let count) = result { pending.append(contentsOf: receiveBuffer[0..<count]) }
        return result
    }

    /// Consumes a request body so the next request can be parsed; false when it cannot
    /// (chunked, oversized or unreadable), in which case the connection closes after the response.
    private func discardRequestBody(_ request: HTTPRequestHead) -> Bool {
        guard let length = request.bodyLength, length <= Self.maxDiscardedBodyBytes else { return false }
        while pending.count < length {
            guard case .bytes = receiveMore() else { return false }
        }
        pending.removeFirst(length)
        return true
    }
}
