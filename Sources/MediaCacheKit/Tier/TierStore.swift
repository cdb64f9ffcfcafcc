/// The tier as the cache sees it: records by cache key, and publishing an object with its
/// record. A record is written only once its object is complete in the store, so a
/// reader that finds a record finds its object; two caches publishing the same bytes at
/// once write the same object key with the same bytes, which is harmless.
public final class TierStore: Sendable {
    public let client: S3Client
    public let layout: TierLayout
    public let uploader: TierUploader

    /// Records are a few hundred bytes; anything far larger is not one.
    static let maxRecordBytes = 64 << 10

    /// `cacheRoot`: the cache whose `tier/uploads` keeps the state of multipart uploads.
    public init(client: S3Client, cacheRoot: String, uploadSettings: TierUploader.Settings = .init()) {
        self.client = client
        layout = TierLayout(location: client.location)
        uploader = TierUploader(
            client: client, stateDirectory: cacheRoot + "/tier/uploads", settings: uploadSettings)
    }

    /// The record of `key`, or nil when the tier has none.
    public func record(for key: CacheKey) throws(TierError) -> TierRecord? {
        let bytes = try client.getObject(layout.recordKey(for: key), maxBytes: Self.maxRecordBytes)
        return try bytes.map { bytes throws(TierError) in try record(for: key, from: bytes) }
    }

    /// `record(for:)` on the transfer loop, beside the downloads (call on its thread);
    /// `completion` runs there.
    func record(for key: CacheKey, on loop: TransferLoop, completion: @escaping (Result<TierRecord?, TierError>) -> Void) {
        client.getObject(layout.recordKey(for: key), maxBytes: Self.maxRecordBytes, on: loop) { [self] answer in
            completion(answer.flatMap { bytes in
                Result { () throws(TierError) in try bytes.map { bytes throws(TierError) in try record(for: key, from: bytes) } }
            })
        }
    }

    /// The record `bytes` hold, which must be `key`'s.
    private func record(for key: CacheKey, from bytes: [UInt8]) throws(TierError) -> TierRecord {
        do {
            let record = try TierRecord.decode(bytes)
            guard record.key == key.hex else {
                throw TierRecordError.unreadable("it names key \(record.key), not \(key.hex)")
            }
            return record
        } catch {
            let target = "s3://\(layout.location.bucket)/\(layout.recordKey(for: key))"
            throw .invalidResponse(operation: "read record", target: target, reason: "\(error)")
        }
    }

    /// Uploads the file at `path` as the object of `record` (unless the tier holds an
    /// object of that size under that hash already), then writes the record.
    public func publish(objectAt path: String, record: TierRecord) throws(TierError) {
        guard let key = CacheKey(hex: record.key) else {
            throw .localFile("record for \(record.url) has no valid cache key")
        }
        let objectKey = layout.objectKey(for: record)
        if try client.headObject(objectKey)?.size != record.size {
            try uploader.upload(
                file: path, size: record.size, sha256: record.sha256, to: objectKey, contentType: record.contentType)
        }
        try client.putObject(layout.recordKey(for: key), bytes: record.encoded(), contentType: "application/json")
    }

    /// Uploads the object of `record`, whose record the tier holds already, when the
    /// tier lost it or holds another size under its hash (deleted or overwritten by
    /// hand): the record alone would fail every pull. Whether it was uploaded.
    public func restoreObject(at path: String, record: TierRecord) throws(TierError) -> Bool {
        let objectKey = layout.objectKey(for: record)
        guard try client.headObject(objectKey)?.size != record.size else { return false }
        try uploader.upload(
            file: path, size: record.size, sha256: record.sha256, to: objectKey, contentType: record.contentType)
        return true
    }

    /// The cache keys the tier has records for.
    public func recordedKeys() throws(TierError) -> [CacheKey] {
        try client.listObjects(prefix: layout.recordsPrefix).compactMap { layout.cacheKey(fromRecordKey: $0.key) }
    }

    /// Every record in the tier. A record that cannot be read is returned as its error,
    /// so one bad record does not hide the others.
    public func records() throws(TierError) -> [(key: CacheKey, record: Result<TierRecord, TierError>)] {
        var records: [(key: CacheKey, record: Result<TierRecord, TierError>)] = []
        for key in try recordedKeys() {
            do {
                // Listed a moment ago: gone now means deleted meanwhile.
                guard let record = try record(for: key) else { continue }
                records.append((key, .success(record)))
            } catch {
                records.append((key, .failure(error)))
            }
        }
        return records
    }
}
