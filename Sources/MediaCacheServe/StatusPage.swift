import Foundation
import HTTPTypes
import Hummingbird
import MediaCacheKit

/// The page at `/`: downloads in progress (rate, ETA, connections, a bar of the held
/// ranges, a play link) and cached objects, one player for the page, and actions (add
/// URLs, stop a download, remove an object). One self-contained page: its script is `/status.js` (the
/// CSP allows no inline script), which renders `/status.json` once a second.
struct StatusPage: Sendable {
    let service: DownloadService
    let sources: KnownSources
    /// The most cached objects the page lists (the most recently used first).
    static let objectLimit = 500

    /// The page, with the first snapshot in it so it renders at once. Built on the
    /// blocking pool: it reads the index and registers a local URL per object.
    func page() async throws -> Response {
        let encoded = try await BlockingWork.run { try Self.encoder.encode(snapshot()) }
        // A JSON block is data, never run; with every `<` escaped nothing in it can end
        // it early (`</script>`) or change how the browser reads it (`<!--`).
        let data = String(decoding: encoded, as: UTF8.self).replacingOccurrences(of: "<", with: "\\u003c")
        let html = """
            <!doctype html><html><head><meta charset=utf-8><title>mediacache</title>
            <meta name=viewport content="width=device-width">
            <style>\(Self.style)</style></head>
            <body><h1>mediacache</h1>
            <div id=now hidden><div id=playing></div><video id=player controls></video></div>
            <p id=note role=status></p>
            <h2 id=downloads-title>Downloading</h2><div id=downloads></div>
            <h2 id=cached-title>Cached</h2><div id=cached></div>
            <h2>Add</h2>
            <form id=add><textarea id=urls rows=3 placeholder="URLs or list lines (aria2 format), one per line"></textarea>
            <button type=submit>Fetch</button></form>
            <noscript><p>This page needs JavaScript; <code>mediacache ls</code> and <code>mediacache status</code> show the same.</p></noscript>
            <script type=application/json id=initial>\(data)</script>
            <script src="/status.js"></script>
            </body></html>
            """
        return Self.response(html, type: "text/html; charset=utf-8")
    }

    /// `/status.json`: what the page shows, as it is now.
    func json() async throws -> Response {
        let body = try await BlockingWork.run { try Self.encoder.encode(snapshot()) }
        return Self.response(String(decoding: body, as: UTF8.self), type: "application/json")
    }

    /// `/status.js`.
    func script() -> Response { Self.response(StatusScript.text, type: "text/javascript; charset=utf-8") }

    struct Snapshot: Codable {
        struct Download: Codable {
            /// What `stop` names it by.
            var key: String
            var name: String
            var held: Int64
            var length: Int64?
            /// [start, end) pairs.
            var ranges: [[Int64]]
            var rate: Double
            var connections: Int
            var inAnotherProcess: Bool
            /// The local URL that plays it (while it downloads), when it is media.
            var play: String?
        }
        struct Object: Codable {
            var name: String
            var size: Int64
            var type: String
            var faststart: String
            /// The local URL (`open`; a title's entry playlist or MPD); `play` too when it is media.
            var local: String?
            var play: Bool
            /// A title's type: the page plays it if the browser says it can (Chromium and
            /// Safari play HLS themselves; no browser plays DASH without a script library).
            var playType: String?
            /// What `remove` names it by.
            var token: String?
        }
        var downloads: [Download]
        var objects: [Object]
        var objectCount: Int
        var cachedBytes: Int64
    }

    func snapshot() throws -> Snapshot {
        let downloads = service.downloadsInProgress().sorted { $0.name < $1.name }.map { download in
            let fileName = URLParts(download.url)?.lastPathComponent ?? ""
            let type = MediaTypes.contentType(origin: download.contentType, name: fileName)
            let source = LocalSource(url: download.url, cacheKey: download.cacheKey)
            var play: String?
            if MediaTypes.isMedia(type), let token = try? sources.register(source) { play = local(token, source) }
            return Snapshot.Download(
                key: download.key.hex, name: download.name, held: download.bytesHeld, length: download.length,
                ranges: download.heldRanges.map { [$0.start, $0.end] }, rate: download.bytesPerSecond,
                connections: download.connections, inAnotherProcess: download.inAnotherProcess, play: play)
        }
        let totals = try service.objects.totals()
        let shown = try service.objects.recentlyUsed(limit: Self.objectLimit).map { object in
            let type = MediaTypes.contentType(origin: object.contentType, name: object.path)
            let source = LocalSource(url: object.url, cacheKey: object.cacheKey == object.url ? nil : object.cacheKey)
            let token = object.url.isEmpty ? nil : try? sources.register(source)
            return Snapshot.Object(
                name: object.shownName, size: object.size, type: type, faststart: object.faststart.description,
                local: token.map { local($0, source) }, play: MediaTypes.isMedia(type) && !object.isTitle,
                playType: object.isTitle ? TitleMemberType.contentType(of: object.path, renditionKind: nil) : nil, token: token)
        }
        return Snapshot(
            downloads: downloads, objects: shown, objectCount: totals.count, cachedBytes: totals.bytes)
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }

    private func local(_ token: String, _ source: LocalSource) -> String { "/m/\(token)/\(source.pathName)" }

    static func response(_ text: String, type: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = "no-store"
        headers[.contentSecurityPolicy] = "default-src 'self'; style-src 'unsafe-inline'"
        headers[.xContentTypeOptions] = "nosniff"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    private static let style = """
        body{font:15px system-ui,sans-serif;margin:2em auto;max-width:60em;padding:0 1em}\
        .item{padding:.4em 0;border-bottom:1px solid #ddd}.name{font-weight:600;word-break:break-all}\
        .meta{color:#555;font-size:13px}.bar{position:relative;height:8px;background:#e4e4e4;margin:.3em 0}\
        .bar span{position:absolute;top:0;bottom:0;background:#2a7}button{margin-left:.5em}\
        #now{position:sticky;top:0;background:#fff;padding:.5em 0}video{width:100%;max-height:50vh}\
        textarea{width:100%;box-sizing:border-box}#note{color:#a40}
        """
}
