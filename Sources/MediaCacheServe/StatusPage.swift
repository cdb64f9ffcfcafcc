import Foundation
import HTTPTypes
import Hummingbird
import MediaCacheKit

/// The page at `/`: downloads in progress and cached objects, each media object with a
/// player. One self-contained HTML page, no external assets.
struct StatusPage: Sendable {
    let service: DownloadService
    let sources: KnownSources

    /// Built on the blocking pool: it reads the index and registers a local URL per object.
    func response() async throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[.contentSecurityPolicy] = "default-src 'self'; style-src 'unsafe-inline'"
        headers[.xContentTypeOptions] = "nosniff"
        let page = try await BlockingWork.run { html() }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: page)))
    }

    func html() -> String {
        var rows: [String] = []
        let downloads = service.downloadsInProgress()
        let objects = ((try? service.objects.objects()) ?? []).sorted { $0.lastUsedAt > $1.lastUsedAt }
        rows.append("<h2>Downloading (\(downloads.count))</h2>")
        if downloads.isEmpty { rows.append("<p>Nothing is downloading.</p>") }
        for download in downloads {
            let percent = download.length.map { $0 > 0 ? " (\(download.bytesHeld * 100 / $0) %)" : "" } ?? ""
            let size = download.length.map { " of " + ByteCount.format($0) } ?? ""
            rows.append(
                "<div class=item><div class=name>\(escape(download.name))</div>"
                    + "<progress max=\(download.length ?? 0) value=\(download.bytesHeld)></progress> "
                    + "\(ByteCount.format(download.bytesHeld))\(size)\(percent)</div>")
        }
        rows.append("<h2>Cached (\(objects.count))</h2>")
        if objects.isEmpty { rows.append("<p>The cache is empty.</p>") }
        for object in objects {
            let type = MediaTypes.contentType(origin: object.contentType, name: object.path)
            var player = ""
            let source = localSource(of: object)
            if !object.url.isEmpty, let token = try? sources.register(source) {
                let local = "/m/\(token)/\(source.pathName)"
                if type.hasPrefix("video/") {
                    player = "<video controls preload=none src=\"\(escape(local))\"></video>"
                } else if type.hasPrefix("audio/") {
                    player = "<audio controls preload=none src=\"\(escape(local))\"></audio>"
                }
                player += " <a href=\"\(escape(local))\">open</a>"
            }
            rows.append(
                "<div class=item><div class=name>\(escape(object.shownName))</div>"
                    + "<div class=meta>\(ByteCount.format(object.size)) · \(escape(type)) · "
                    + "\(escape(object.faststart.description))</div>\(player)</div>")
        }
        return """
            <!doctype html><html><head><meta charset=utf-8><title>mediacache</title>
            <style>body{font:15px system-ui,sans-serif;margin:2em;max-width:60em}
            .item{margin:1em 0;padding:.5em;border-bottom:1px solid #ddd}.name{font-weight:600;word-break:break-all}
            .meta{color:#555;font-size:13px}video{max-width:100%;max-height:20em;display:block}</style></head>
            <body><h1>mediacache</h1>
            \(rows.joined(separator: "\n"))
            </body></html>
            """
    }

    private func localSource(of object: CachedObject) -> LocalSource {
        LocalSource(url: object.url, cacheKey: object.cacheKey == object.url ? nil : object.cacheKey)
    }

    private func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

}
