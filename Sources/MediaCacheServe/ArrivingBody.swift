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
                while next < end {
                    let (offset, count) = (next, Int(min(RangedResponse.chunkSize, end - next)))
                    let bytes = try await BlockingWork.run { try file.read(count: count, at: offset) }
                    // Read before the file could start over: these are the version sent so far.
                    try arriving.checkUnchanged()
                    guard !bytes.isEmpty else { throw ServeError.shortDownload }
                    try await writer.write(ByteBuffer(bytes: bytes))
                    next += Int64(bytes.count)
                }
            }
            try await writer.finish(nil)
        }
        if let range { return ResponseBody(contentLength: Int(range.count), body) }
        return ResponseBody(body)
    }
}
