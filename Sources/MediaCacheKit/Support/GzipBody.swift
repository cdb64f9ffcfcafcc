import CArchive

/// A response body an origin gzipped whatever was asked (S3 serves an object stored with
/// `Content-Encoding: gzip` so, and players decode it): what it decodes to, through
/// libarchive's gzip filter alone (no other decoder, nor a program, is reached).
enum GzipBody {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// `bytes` decoded; throws when they are not gzip, or decode to more than `limit`
    /// bytes (a small body that inflates without end is refused as it grows).
    static func decode(_ bytes: [UInt8], limit: Int) throws(Failure) -> [UInt8] {
        guard let archive = archive_read_new() else { throw Failure(description: "out of memory") }
        defer { archive_read_free(archive) }
        func message() -> String { archive_error_string(archive).map { String(cString: $0) } ?? "not gzip data" }
        guard archive_read_support_filter_gzip(archive) == ARCHIVE_OK, archive_read_support_format_raw(archive) == ARCHIVE_OK
        else { throw Failure(description: message()) }
        let result = bytes.withUnsafeBytes { raw -> Result<[UInt8], Failure> in
            guard archive_read_open_memory(archive, raw.baseAddress, raw.count) == ARCHIVE_OK,
                archive_filter_code(archive, 0) == ARCHIVE_FILTER_GZIP
            else { return .failure(Failure(description: "the body is not gzip data")) }
            var entry: OpaquePointer?
            guard archive_read_next_header(archive, &entry) == ARCHIVE_OK else { return .failure(Failure(description: message())) }
            var decoded: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 64 << 10)
            while true {
                let count = buffer.withUnsafeMutableBytes { archive_read_data(archive, $0.baseAddress, $0.count) }
                if count == 0 { return .success(decoded) }
                guard count > 0 else { return .failure(Failure(description: message())) }
                guard decoded.count + count <= limit else {
                    return .failure(Failure(description: "it decodes to more than \(limit) bytes"))
                }
                decoded += buffer.prefix(count)
            }
        }
        return try result.get()
    }
}
