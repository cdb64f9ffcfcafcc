import Hummingbird
import MediaCacheKit

/// How long a player waits for a download to say what its data is (length, type) before
/// it is answered 504. The download goes on: the player's next request joins it. Without
/// a bound a player waited through every retry of a silent origin (over three minutes
/// with the defaults), or for another process's whole download, with no answer at all.
struct FirstAnswerWait: Sendable {
    let limit: Duration

    /// What `reader` says its data is; nil when `limit` passed first.
    func open(_ reader: DownloadReader) async throws -> DownloadData? {
        try await withThrowingTaskGroup(of: DownloadData?.self) { group in
            group.addTask { try await reader.open() }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }

    /// The answer when `limit` passed.
    func timedOut(_ url: String) -> Response {
        var response = PlainText.response(
            .gatewayTimeout,
            "no answer for \(Printable.url(url)) within \(limit.components.seconds) s (--timeout): the origin is silent, "
                + "or another mediacache process is downloading it; the download goes on, try again")
        response.headers[.retryAfter] = "1"
        return response
    }
}
