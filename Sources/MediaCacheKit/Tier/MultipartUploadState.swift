import Foundation

/// A multipart upload in progress, saved in the cache (`tier/uploads/<sha256>.json`,
/// mode 0600) after it begins and after every part, so a run killed at any moment leaves
/// an upload the next run can resume or abort, not one nobody knows about. It holds no
/// credentials: the store, the key and the upload id are not secret.
struct MultipartUploadState: Codable, Equatable {
    static let currentFormat = 1

    var format = currentFormat
    /// Which store and object the upload belongs to.
    var endpoint: String
    var bucket: String
    var key: String
    var uploadID: String
    /// The file being uploaded: its size and hash name one version of its bytes.
    var size: Int64
    var sha256: String
    /// Part `n` holds bytes `[(n-1)·partSize, n·partSize)`.
    var partSize: Int64
    /// Parts the store confirmed, by number.
    var parts: [S3UploadedPart]

    private enum CodingKeys: String, CodingKey {
        case format, endpoint, bucket, key, size, sha256, parts
        case uploadID = "upload_id"
        case partSize = "part_size"
    }

    var partCount: Int { Int((size + partSize - 1) / partSize) }

    func range(ofPart number: Int) -> ByteRange {
        let start = Int64(number - 1) * partSize
        return ByteRange(start, min(size, start + partSize))
    }

    /// The state saved at `path`, or nil when there is none or it cannot be read (it is
    /// then of no use: the upload it named is left to the rule for unknown uploads).
    static func load(_ path: String) -> MultipartUploadState? {
        struct Header: Decodable { var format: Int }
        guard let bytes = try? FileSystem.readAll(path), let header = try? JSONDecoder().decode(Header.self, from: Data(bytes)),
            header.format == currentFormat
        else { return nil }
        return try? JSONDecoder().decode(MultipartUploadState.self, from: Data(bytes))
    }

    /// Saves durably: temporary file, fsync, rename, directory fsync.
    func save(_ path: String) throws(TierError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            try FileSystem.writeAtomically(Array(try encoder.encode(self)), to: path)
        } catch {
            throw .localFile("saving the upload state \(path): \(error)")
        }
    }
}
