import Hummingbird
import MediaCacheKit

/// How long a player waits for a download to say what its data is (length, type) before
/// it is answered 504: `--timeout` and a second. The download goes on: the player's next
/// request joins it. Without a bound a player waited through every retry of a silent
/// origin (over three minutes with the defaults), or, for a title another process
/// downloads, for its whole download (a file another process downloads is read from
/// what it has saved: `ForeignDownload`), with no answer at all.
struct FirstAnswerWait: Sendable {
    /// `--timeout`: a download whose connection is silent that long tries again, or
    /// fails with its own reason; the player hears from it a second later at most.
    let timeout: Int
    private var limit: Duration { .seconds(timeout + 1) }

    /// What `reader` says its data is; nil when `limit` passed first.
    func open(_ reader: DownloadReader) async throws -> DownloadData? {
        try await bounded { try await reader.open() }
    }

    /// What `wait` answers; nil when `limit` passed first.
    func bounded<T: Sendable>(_ wait: @escaping @Sendable () async throws -> T) async throws -> T? {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await wait() }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }

    /// The answer when `limit` passed before byte `offset` arrived (a seek ahead).
    func notReached(byte offset: Int64, of url: String) -> Response {
        Self.gatewayTimeout(
            "byte \(offset) of \(Printable.url(url)) has not arrived within --timeout (\(timeout) s): the origin is slow, "
                + "or another mediacache process downloads the file and has not reached it; the download goes on, try again")
    }

    /// The answer when `limit` passed.
    func timedOut(_ url: String) -> Response {
        Self.gatewayTimeout(
            "\(Printable.url(url)) has not answered within --timeout (\(timeout) s): the origin is silent, "
                + "or another mediacache process is downloading it; the download goes on, try again")
    }

    /// 504, to be asked again in a second: the download goes on meanwhile.
    private static func gatewayTimeout(_ text: String) -> Response {
        var response = PlainText.response(.gatewayTimeout, text)
        response.headers[.retryAfter] = "1"
        return response
    }
}
