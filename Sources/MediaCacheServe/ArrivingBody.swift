import Hummingbird
import MediaCacheKit

/// The body of a title's file still on its way: each chunk is sent once it has landed,
/// so a player has a segment's first bytes while its last are still on the network.
enum ArrivingBody {
    /// `range` of `arriving` (to its end when `range` is nil, its length then unknown),
    /// read from `file` a chunk at a time off the cooperative pool.
    static func make(_ arriving: ArrivingFile, file: DataFile, range: ByteRange?) -> ResponseBody {
        let body: @Sendable (inout any ResponseBodyWriter) async throws -> Void = { writer in
            var next = range?.start ?? 0
            while range.map({ next < $0.end }) ?? true {
                let landed = try await arriving.available(beyond: next)
                guard landed > next else {
                    // Nothing more will come: the whole file was sent, unless a range asked for more.
                    if range != nil { throw ServeError.shortDownload }
                    break
                }
                let end = min(landed, range?.end ?? landed)
                // Checked after each read: the bytes sent are all of the version sent so far.
                try await RangedResponse.send(
                    ByteRange(next, end), of: file, to: &writer, short: .shortDownload, afterRead: arriving.checkUnchanged)
                next = end
            }
            try await writer.finish(nil)
        }
        if let range { return ResponseBody(contentLength: Int(range.count), body) }
        return ResponseBody(body)
    }
}
