import CCurl
import Foundation
import Synchronization
@testable import MediaCacheKit

/// Runs the engine's transfers from a script instead of sockets: each request is
/// answered by `answer` with steps (a head, body pieces, an end), delivered on the
/// transfer loop's thread through the same callbacks libcurl calls, one step per
/// transfer per turn of the loop, so transfers interleave as they would on the wire. A
/// held transfer gets nothing until it is released, as a paused one gets from libcurl.
// @unchecked: `live` is the loop thread's (the loop calls every entry but `wakeup`).
final class ScriptedTransfers: TransferExecutor, @unchecked Sendable {
    enum Step {
        case head(status: Int, headers: [(String, String)])
        case body([UInt8])
        /// Ends the response: `CURLE_OK`, or a failure such as `CURLE_RECV_ERROR`.
        case end(CURLcode)
        /// Sends nothing more until the transfer is stopped.
        case silence
        /// Sends nothing until `ready` says so, then goes on with the next step.
        case until(@Sendable () -> Bool)
    }

    private let answer: @Sendable (HTTPRequest) -> [Step]
    private var live: [(transfer: HTTPTransfer, steps: ArraySlice<Step>)] = []
    private let wakeups = DispatchSemaphore(value: 0)
    /// Every request made, in order.
    let requests = Mutex<[HTTPRequest]>([])
    /// Body bytes the engine took (a stopped transfer's rest is not counted).
    let bytesTaken = Atomic<Int>(0)
    /// Body bytes the origin sent, taken or not.
    let bytesOffered = Atomic<Int>(0)

    init(answer: @escaping @Sendable (HTTPRequest) -> [Step]) { self.answer = answer }

    var running: [HTTPTransfer] { live.map(\.transfer) }
    var runningCount: Int { live.count }

    func add(_ transfer: HTTPTransfer) {
        requests.withLock { $0.append(transfer.request) }
        live.append((transfer, answer(transfer.request)[...]))
    }

    func remove(_ transfer: HTTPTransfer) -> Bool {
        guard let index = live.firstIndex(where: { $0.transfer === transfer }) else { return false }
        live.remove(at: index)
        return true
    }

    func wait(milliseconds: Int) {
        let ready = live.contains { entry in
            guard !entry.transfer.isHeld, let step = entry.steps.first else { return false }
            if case .silence = step { return false }
            if case .until(let ready) = step { return ready() }
            return true
        }
        if !ready { _ = wakeups.wait(timeout: .now() + .milliseconds(milliseconds)) }
    }

    func wakeup() { wakeups.signal() }

    /// A held transfer is skipped by `perform` (its steps wait), so there is nothing to do.
    func setReceiving(_ transfer: HTTPTransfer, paused: Bool) -> CURLcode { CURLE_OK }

    func perform() -> [(HTTPTransfer, CURLcode)] {
        var ended: [(HTTPTransfer, CURLcode)] = []
        for transfer in live.map(\.transfer) {
            // A callback may have stopped it (or another) meanwhile.
            guard let index = live.firstIndex(where: { $0.transfer === transfer }), let step = live[index].steps.first
            else { continue }
            if case .silence = step { continue }
            if case .until(let ready) = step, !ready() { continue }
            // Paused (`hold`), as libcurl does: nothing arrives until it is released.
            if transfer.isHeld { continue }
            live[index].steps = live[index].steps.dropFirst()
            var result: CURLcode?
            switch step {
            case .head(let status, let headers):
                var keep = transfer.receiveHeaderLine("HTTP/1.1 \(status) Scripted\r\n")
                for (name, value) in headers where keep { keep = transfer.receiveHeaderLine("\(name): \(value)\r\n") }
                if keep { keep = transfer.receiveHeaderLine("\r\n") }
                if !keep { result = CURLE_WRITE_ERROR }
            case .body(let bytes):
                bytesOffered.add(bytes.count, ordering: .relaxed)
                let taken = bytes.withUnsafeBytes { transfer.receiveBody(BodyChunk(bytes: $0)) }
                bytesTaken.add(taken, ordering: .relaxed)
                if taken < bytes.count { result = CURLE_WRITE_ERROR }
            case .end(let code):
                result = code
            case .silence, .until:
                break
            }
            if let result, let index = live.firstIndex(where: { $0.transfer === transfer }) {
                live.remove(at: index)
                ended.append((transfer, result))
            }
        }
        return ended
    }

    /// The Range header of each request so far (nil: none), in order.
    var ranges: [String?] {
        requests.withLock { $0.map { request in request.headers.first { $0.lowercased().hasPrefix("range:") } } }
    }
}

/// One version of a file as an origin serves it, for scripts: Range and If-Range as
/// RFC 9110 has them (206 with Content-Range; 200 and the whole body when If-Range names
/// another version), the body in pieces of `chunk` bytes.
struct ScriptedFile: Sendable {
    var bytes: [UInt8]
    var etag: String? = "\"v1\""
    var contentType = "video/mp4"
    var acceptsRanges = true
    var chunk = 64 * 1024

    func answer(_ request: HTTPRequest) -> [ScriptedTransfers.Step] {
        var headers: [(String, String)] = [("Content-Type", contentType)]
        if let etag { headers.append(("ETag", etag)) }
        let ifRange = Self.header("If-Range", in: request)
        var range = acceptsRanges && (ifRange == nil || ifRange == etag) ? Self.header("Range", in: request).flatMap(parse) : nil
        if let wanted = range, wanted.lowerBound >= bytes.count { range = nil }
        let slice = range ?? 0..<bytes.count
        if let range {
            headers.append(("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(bytes.count)"))
        }
        if acceptsRanges { headers.append(("Accept-Ranges", "bytes")) }
        headers.append(("Content-Length", "\(slice.count)"))
        var steps: [ScriptedTransfers.Step] = [.head(status: range == nil ? 200 : 206, headers: headers)]
        for start in stride(from: slice.lowerBound, to: slice.upperBound, by: chunk) {
            steps.append(.body(Array(bytes[start..<min(start + chunk, slice.upperBound)])))
        }
        return steps + [.end(CURLE_OK)]
    }

    /// `bytes=a-b` or `bytes=a-`, clamped to the file.
    private func parse(_ value: String) -> Range<Int>? {
        guard value.hasPrefix("bytes=") else { return nil }
        let parts = value.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let first = Int(parts[0]) else { return nil }
        let last = parts[1].isEmpty ? bytes.count - 1 : min(Int(parts[1]) ?? bytes.count - 1, bytes.count - 1)
        return first <= last ? first..<(last + 1) : nil
    }

    static func header(_ name: String, in request: HTTPRequest) -> String? {
        let prefix = name.lowercased() + ":"
        return request.headers.first { $0.lowercased().hasPrefix(prefix) }.map {
            $0.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces)
        }
    }
}
