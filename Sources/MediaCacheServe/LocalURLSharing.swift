import HTTPTypes
import Hummingbird

/// Lets web players on other origins read local URLs (CORS, as the Fetch standard
/// describes it): hls.js, dash.js and Shaka fetch segments with ranges, and a `<video
/// crossorigin>` or a `<track>` needs it too. A local URL's token is the capability:
/// whoever holds the URL may read it from anywhere, and no cookie or login is involved,
/// so any origin is allowed. The status page and its actions are not shared: their
/// answers list tokens, and a page of another site must not read them.
struct LocalURLSharing<Context: RequestContext>: RouterMiddleware {
    /// What a player's script may read of a ranged answer beyond the safelisted headers.
    static var exposed: String { "Content-Range, Content-Length, Accept-Ranges, ETag, Last-Modified" }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard request.headers[.origin] != nil, request.uri.path.hasPrefix("/m/") else {
            return try await next(request, context)
        }
        if request.method == .options {
            // A preflight: a fetch that sends Range (or a conditional header) asks first.
            return Response(
                status: .noContent,
                headers: [
                    .accessControlAllowOrigin: "*",
                    .accessControlAllowMethods: "GET, HEAD",
                    .accessControlAllowHeaders: "Range, If-Range, If-None-Match, If-Modified-Since",
                    .accessControlMaxAge: "600",
                    .allow: "GET, HEAD, OPTIONS",
                ])
        }
        var response = try await next(request, context)
        response.headers[.accessControlAllowOrigin] = "*"
        response.headers[.accessControlExposeHeaders] = Self.exposed
        return response
    }
}
