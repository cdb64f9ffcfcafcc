import Foundation

/// Turns a finished download into a cached object: flush, verify (coverage, length,
/// checksums), atomic rename into `objects/`, index row, partial data removed.
/// Nothing becomes visible before every check passed.
struct ObjectCommitter: Sendable {
    let cache: CacheDirectory
    let index: CacheIndex

    struct Committed: Sendable {
        var object: CachedObject
    }

    func commit(key: CacheKey, file: DataFile, state: JobState) throws(JobFailure) -> Committed {
        let entry = state.entry
        guard let length = state.length, state.isComplete else {
            throw JobFailure(.badResponse, "internal error: commit of an incomplete download of \(entry.url)")
        }
        do {
            // Saved first, so a crash while hashing does not cost a re-download.
            try file.syncData()
            try FileSystem.writeAtomically(try JobStateCodec.encode(state), to: cache.statePath(key: key))
            let size = try file.size()
            if size > length { try file.truncate(length: length) }
            guard size >= length else {
                throw JobFailure(.io, "\(file.path) holds \(size) bytes, expected \(length); run again to re-fetch")
            }
        } catch let failure as JobFailure {
            throw failure
        } catch {
            throw JobFailure(.io, "\(error)")
        }

        var algorithms: Set<DigestAlgorithm> = [.sha256]
        if let checksum = entry.checksum { algorithms.insert(checksum.algorithm) }
        let digests: [DigestAlgorithm: String]
        do {
            digests = try FileDigester.digest(file, length: length, algorithms: algorithms)
        } catch {
            throw JobFailure(.io, "\(error)")
        }
        if let expected = entry.checksum, digests[expected.algorithm] != expected.hex {
            FileSystem.removeTree(cache.jobDirectory(key: key))
            throw JobFailure(
                .checksumMismatch,
                "checksum mismatch: the list says \(expected), the origin sent \(expected.algorithm.rawValue)=\(digests[expected.algorithm] ?? "?"); nothing was cached"
            )
        }

        let relative = cache.relativeObjectPath(key: key, extension: Self.fileExtension(for: state))
        let destination = cache.absolute(relative)
        let now = Date()
        let object = CachedObject(
            key: key.hex, cacheKey: entry.identity, url: entry.url, mirrors: Array(entry.urls.dropFirst()),
            name: entry.outName, path: relative, size: length, sha256: digests[.sha256]!,
            contentType: state.contentType, etag: state.validators.etag, lastModified: state.validators.lastModified,
            faststart: "original", addedAt: now, lastUsedAt: now)
        do {
            let directory = (destination as NSString).deletingLastPathComponent
            try FileSystem.makeDirectory(directory)
            try FileSystem.rename(cache.dataPath(key: key), to: destination)
            try FileSystem.syncDirectory(directory)
            try index.insert(object, aliases: entry.urls + [entry.identity])
        } catch {
            throw JobFailure(.io, "\(error)")
        }
        FileSystem.removeTree(cache.jobDirectory(key: key))
        return Committed(object: object)
    }

    /// A short extension from `out=` or the URL path, so players and `file` recognise
    /// the object; nil when there is none worth keeping.
    static func fileExtension(for state: JobState) -> String? {
        if let name = state.entry.outName, let ext = URLParts("http://x/" + (name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? ""))?.pathExtension {
            return ext
        }
        return URLParts(state.finalURL ?? state.entry.url)?.pathExtension ?? URLParts(state.entry.url)?.pathExtension
    }
}
