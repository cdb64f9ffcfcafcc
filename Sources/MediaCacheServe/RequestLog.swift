import HTTPTypes
import Hummingbird
import Synchronization

/// What the server reports, for `--json` and the terminal.
public enum ServeEvent: Sendable {
    /// A response's head is ready.
    case served(RequestRecord)
    /// Its body is written (`complete`), or broke off: the player left, or the download
    /// failed under it.
    case finished(RequestRecord, bytes: Int64, seconds: Double, complete: Bool)
    case refused(path: String, reason: String)
}

/// One request to a local URL, as the request log shows it.
public struct RequestRecord: Sendable {
    public var url: String
    /// The file of a title asked for (`variant-0/s3.ts`); nil for the URL itself.
    public var member: String?
    public var method: String
    public var range: String?
    public var status: Int
    public var from: ServedFrom
    /// From the request to its response head: the wait for the first bytes of a download.
    public var headSeconds: Double
}

enum RequestLog {
    /// `response`, reporting `.finished` once its body is written or breaks off.
    static func logging(
        _ response: Response, _ record: RequestRecord, method: HTTPRequest.Method, started: ContinuousClock.Instant,
        log: @escaping @Sendable (ServeEvent) -> Void
    ) -> Response {
        guard method != .head else {
            log(.finished(record, bytes: 0, seconds: started.secondsSince, complete: true))
            return response
        }
        var logged = response
        let body = response.body
        logged.body = ResponseBody(contentLength: body.contentLength) { writer in
            let sent = ByteTally()
            do {
                try await body.write(
                    writer.map { buffer in
                        sent.add(buffer.readableBytes)
                        return buffer
                    })
            } catch {
                // A player that closes as the last bytes leave (curl does) had them all.
                let whole = body.contentLength.map { sent.total >= Int64($0) } ?? false
                log(.finished(record, bytes: sent.total, seconds: started.secondsSince, complete: whole))
                throw error
            }
            log(.finished(record, bytes: sent.total, seconds: started.secondsSince, complete: true))
        }
        return logged
    }
}

/// Bytes a response body has written so far.
private final class ByteTally: Sendable {
    private let bytes = Atomic<Int64>(0)
    func add(_ count: Int) { bytes.add(Int64(count), ordering: .relaxed) }
    var total: Int64 { bytes.load(ordering: .relaxed) }
}

extension ContinuousClock.Instant {
    var secondsSince: Double {
        let elapsed = ContinuousClock.now - self
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
