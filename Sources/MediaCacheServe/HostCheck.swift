import Foundation
import HTTPTypes
import Hummingbird
import Synchronization

/// Answers only requests addressed to the server itself: a page that makes a browser
/// resolve its own name to 127.0.0.1 (DNS rebinding) sends its own name as Host and
/// gets 421, never a byte of the cache. A second Host header is refused: proxies and
/// servers disagree on which one counts.
struct HostCheck<Context: RequestContext>: RouterMiddleware {
    let listen: ListenAddress

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        // The first Host became the authority; any other is still among the fields.
        guard request.headers[values: HTTPField.Name("Host")!].isEmpty else {
            return PlainText.response(.badRequest, "a request has one Host header")
        }
        // No Host at all: an HTTP/1.0 client (`HTTP1Conformance` refuses a 1.1 request
        // without one); a browser always sends one, so it cannot be a rebound page.
        guard let host = request.head.authority?.lowercased() else { return try await next(request, context) }
        guard listen.acceptedHosts.contains(host) else {
            return PlainText.response(
                .misdirectedRequest, "this server answers only requests for \(listen.baseURL)")
        }
        return try await next(request, context)
    }
}

/// The address the server listens on, known once it is bound (port 0 picks one).
final class ListenAddress: Sendable {
    let host: String
    private let boundPort = Atomic<Int>(0)

    init(_ spec: ListenSpec) { host = spec.host }

    func bound(port: Int) { boundPort.store(port, ordering: .releasing) }

    private var port: Int { boundPort.load(ordering: .acquiring) }

    var baseURL: String {
        return "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    /// Host header values that name this server.
    var acceptedHosts: Set<String> {
        let port = port
        var names = [host.contains(":") ? "[\(host)]" : host]
        if host == "127.0.0.1" || host == "::1" { names += ["localhost", "127.0.0.1", "[::1]"] }
        // A client leaves out the default port.
        let withPort = names.map { "\($0.lowercased()):\(port)" }
        return Set(port == 80 ? withPort + names.map { $0.lowercased() } : withPort)
    }
}

/// Short text answers: errors name their reason in one line.
enum PlainText {
    static func response(_ status: HTTPResponse.Status, _ text: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[.xContentTypeOptions] = "nosniff"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text + "\n")))
    }
}
