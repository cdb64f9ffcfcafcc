import Foundation

extension TierStore {
    /// Uploads a title's pack (unless the tier holds one of that size under that name
    /// already), then its record. The pack is assembled first in `packs`, a folder of the
    /// cache (the uploader sends parts of one file, resumably), and removed once sent: a
    /// push needs as much free space as the title for as long as it takes. One file per
    /// title, locked, so a run killed part-way leaves one file the next push rewrites.
    func publishTitle(
        _ title: TitleOnDisk.Manifest, folder: String, record: TierRecord, packs: String
    ) throws(TierError) {
        guard let key = CacheKey(hex: record.key) else {
            throw .localFile("record for \(record.url) has no valid cache key")
        }
        let pack = layout.objectKey(for: record)
        if try client.headObject(pack)?.size != record.size {
            let path = packs + "/" + record.sha256
            var lock: FileLock
            do {
                try FileSystem.makeDirectory(packs, durable: false)
                // Locked on the pack itself; one removed while this waited is given up for a new one.
                lock = try FileLock.acquire(path: path)
                while !lock.isStillAtPath { lock = try FileLock.acquire(path: path) }
            } catch {
                throw .localFile("preparing the pack of \(folder) in \(packs): \(error)")
            }
            try withExtendedLifetime(lock) { () throws(TierError) in
                defer { FileSystem.remove(path) }
                try TitlePack.write(title, folder: folder, to: path)
                // Named apart from a file's upload of the same SHA-256 (that of a title.json cached as a file).
                try uploader.upload(
                    file: path, size: record.size, sha256: "title-" + record.sha256, to: pack,
                    contentType: "application/octet-stream")
            }
        }
        try client.putObject(layout.recordKey(for: key), bytes: record.encoded(), contentType: "application/json")
    }
}
