import Foundation
import HTTPTypes
import Hummingbird
import MediaCacheKit

/// What the status page can do: fetch URLs, stop or remove a download, remove a cached
/// object. Only the page's own script can ask: a POST with a JSON body and
/// `X-Mediacache-Action: 1`, which a page of another site cannot send without a CORS
/// preflight this server never answers, and an `Origin`, when sent, that is this server.
/// `HostCheck` has refused other Hosts already.
struct StatusActions: Sendable {
    let service: DownloadService
    let sources: KnownSources
    let listen: ListenAddress

    static let header = HTTPField.Name("X-Mediacache-Action")!
    private static let bodyLimit = 1 << 20

    /// `{"text": "URL or list lines"}`: fetched in the background, as a list given to `serve`.
    func add(_ request: Request) async throws -> Response {
        struct Body: Decodable { var text: String }
        return try await answering(request, as: Body.self) { body in
            let entries = ListEntries([ListText(text: body.text, file: "the status page")])
            var requests: [JobRequest] = []
            var problems: [String] = []
            while let entry = entries.next(diagnose: { problems.append($0.description) }) {
                requests.append(JobRequest(entry: entry))
            }
            guard !requests.isEmpty else {
                return PlainText.response(.badRequest, problems.first ?? "no URL in it: give one URL (or list line) per line")
            }
            let (batch, submitted) = (PrefetchBatch(service: service, priority: .background), requests)
            Thread.detachNewThread { _ = batch.run(submitted) }
            let skipped = problems.isEmpty ? "" : "; \(problems.count) line(s) skipped: \(problems[0])"
            return PlainText.response(.accepted, "fetching \(requests.count) in the background\(skipped)")
        }
    }

    /// `{"key": HEX}`: stops that download, keeping what it holds (`mediacache resume`,
    /// or a player asking for it again, goes on from there).
    func stop(_ request: Request) async throws -> Response {
        struct Body: Decodable { var key: String }
        return try await answering(request, as: Body.self) { body in
            guard let key = CacheKey(hex: body.key), service.stop(key: key) else {
                return PlainText.response(.notFound, "nothing downloads that now")
            }
            return PlainText.response(.ok, "stopped; what it holds is kept (mediacache resume goes on)")
        }
    }

    /// `{"token": T}`: removes the cached object the local URL with token T serves.
    /// `{"key": HEX}`: stops that download and removes what it holds.
    func remove(_ request: Request) async throws -> Response {
        struct Body: Decodable {
            var token: String?
            var key: String?
        }
        return try await answering(request, as: Body.self) { body in
            if let key = body.key { return try await removeDownload(key) }
            guard let token = body.token, let source = try await sources.source(token: token) else {
                return PlainText.response(.notFound, "unknown local URL")
            }
            let directory = service.cache
            let identity = source.entry.identity
            do {
                let removal = try await BlockingWork.run { try CacheMaintenance(directory: directory).remove(identity) }
                let size = removal.objectBytes.map { " (\(ByteCount.format($0)))" } ?? ""
                return PlainText.response(.ok, "removed \(Printable.url(source.url))\(size)")
            } catch {
                return PlainText.response(.conflict, "cannot remove \(Printable.url(source.url)): \(error)")
            }
        }
    }

    /// The download lets go of its key once its last progress is on disk: removal waits
    /// for that, a few seconds at most.
    private func removeDownload(_ hex: String) async throws -> Response {
        guard let key = CacheKey(hex: hex) else { return PlainText.response(.notFound, "nothing downloads that now") }
        let stopped = service.stop(key: key)
        let directory = service.cache
        for _ in 0..<50 {
            do {
                let removal = try await BlockingWork.run { try CacheMaintenance(directory: directory).remove(key.hex) }
                let freed = (removal.partialBytes ?? 0) + (removal.objectBytes ?? 0)
                return PlainText.response(.ok, "removed the download and the \(ByteCount.format(freed)) it held")
            } catch CacheMaintenance.RemovalError.busy {
                try await Task.sleep(nanoseconds: 100_000_000)
            } catch CacheMaintenance.RemovalError.notCached where stopped {
                return PlainText.response(.ok, "stopped; it held nothing yet")
            } catch CacheMaintenance.RemovalError.notCached {
                return PlainText.response(.notFound, "nothing downloads that now")
            }
        }
        return PlainText.response(.conflict, "the download did not stop within 5 s; try again")
    }

    /// Runs `act` with the action's body, or answers why it is refused.
    private func answering<T: Decodable>(
        _ request: Request, as type: T.Type, _ act: (T) async throws -> Response
    ) async throws -> Response {
        switch try await decoded(type, from: request) {
        case .success(let body): try await act(body)
        case .failure(let refusal): refusal.response
        }
    }

    private struct Refusal: Error {
        let response: Response
    }

    private func decoded<T: Decodable>(_ type: T.Type, from request: Request) async throws -> Result<T, Refusal> {
        guard request.headers[Self.header] == "1", request.headers[.contentType]?.hasPrefix("application/json") == true
        else {
            return .failure(Refusal(response: PlainText.response(.forbidden, "actions come from the status page only")))
        }
        if let origin = request.headers[.origin]?.lowercased(),
            !(origin.hasPrefix("http://") && listen.acceptedHosts.contains(String(origin.dropFirst("http://".count))))
        {
            return .failure(Refusal(response: PlainText.response(.forbidden, "actions come from the status page only")))
        }
        let bytes = try await request.body.collect(upTo: Self.bodyLimit)
        guard let value = try? JSONDecoder().decode(T.self, from: Data(bytes.readableBytesView)) else {
            return .failure(Refusal(response: PlainText.response(.badRequest, "the action's body is not the JSON it takes")))
        }
        return .success(value)
    }
}
