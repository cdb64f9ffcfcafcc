import Foundation
import HTTPTypes
import Hummingbird
import MediaCacheKit

/// What every answer with a body of media has in common, for a file, a download in
/// progress and a title's member alike: the headers, Range and If-Range, and sending a
/// range of an open file in chunks read off the cooperative pool.
enum RangedResponse {
    static let chunkSize: Int64 = 256 << 10

    /// 304 or 412 when a precondition says so (`ConditionalRequest`); else 206 with the
    /// range asked for, 200 with everything (no Range, several ranges, or an If-Range
    /// naming another version), 416 when nothing asked for exists.
    static func make(
        _ request: Request, length: Int64, headers: inout HTTPFields, etag: String?,
        body: (ByteRange) -> ResponseBody
    ) -> Response {
        if let status = ConditionalRequest.status(
            request.headers, method: request.method, etag: etag, lastModified: headers[.lastModified])
        {
            return Response(status: status, headers: headers, body: ResponseBody())
        }
        var wanted = RangeRequest(header: request.headers[.range])
        if let ifRange = request.headers[.ifRange], ifRange != etag, ifRange != headers[.lastModified] {
            wanted = .whole
        }
        let range: ByteRange?
        do {
            range = try wanted.resolve(length: length)
        } catch {
            headers[.contentRange] = "bytes */\(length)"
            headers[.contentType] = "text/plain; charset=utf-8"
            return Response(
                status: .rangeNotSatisfiable, headers: headers,
                body: ResponseBody(byteBuffer: ByteBuffer(string: "the file has \(length) bytes\n")))
        }
        let sent = range ?? ByteRange(0, length)
        if let range { headers[.contentRange] = "bytes \(range.start)-\(range.end - 1)/\(length)" }
        let status: HTTPResponse.Status = range == nil ? .ok : .partialContent
        if request.method == .head {
            headers[.contentLength] = String(sent.count)
            return Response(status: status, headers: headers, body: ResponseBody())
        }
        return Response(status: status, headers: headers, body: body(sent))
    }

    /// A browser never runs what an object holds: its type is never sniffed, a document
    /// among them gets a sandbox (no script, no same-origin reads), and anything that
    /// is not media is a download.
    static func headers(_ type: MediaTypes.Served, etag: String?) -> HTTPFields {
        var headers = HTTPFields()
        headers[.acceptRanges] = "bytes"
        headers[.contentType] = type.contentType
        if type.attachment { headers[.contentDisposition] = "attachment" }
        headers[.xContentTypeOptions] = "nosniff"
        headers[.contentSecurityPolicy] = "sandbox"
        if let etag { headers[.eTag] = etag }
        return headers
    }

    /// `range` of `file`, read a chunk at a time on the blocking pool; `path` names the
    /// file if it turns out shorter than its index entry says.
    static func fileBody(_ file: DataFile, range: ByteRange, path: String) -> ResponseBody {
        ResponseBody(contentLength: Int(range.count)) { writer in
            try await send(range, of: file, to: &writer, short: .shortFile(path))
            try await writer.finish(nil)
        }
    }

    /// Writes `range` of `file`, a chunk at a time read on the blocking pool; `afterRead`
    /// may refuse a chunk once read (a file that started over). Throws `short` when the
    /// file ends before the range does.
    static func send(
        _ range: ByteRange, of file: DataFile, to writer: inout any ResponseBodyWriter, short: ServeError,
        afterRead: () throws -> Void = {}
    ) async throws {
        var next = range.start
        while next < range.end {
            let (offset, count) = (next, Int(min(chunkSize, range.end - next)))
            let bytes = try await BlockingWork.run { try file.read(count: count, at: offset) }
            try afterRead()
            guard !bytes.isEmpty else { throw short }
            try await writer.write(ByteBuffer(bytes: bytes))
            next += Int64(bytes.count)
        }
    }
}
