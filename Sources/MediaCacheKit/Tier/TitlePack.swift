import Foundation

/// How a streaming title travels through the tier: as one S3 object,
/// `PREFIX/titles/<SHA-256 of title.json>`, holding `title.json` followed by every file it
/// lists, in its order, with nothing between them.
///
/// One packed object rather than one S3 object per member: a title is hundreds or
/// thousands of small segments, and one object each would mean as many signed PUTs on
/// `push` and GETs on `pull` (a round trip and a billed request apiece), with no way to
/// make them appear together, so a reader could find half a title. One object goes up
/// through the same resumable multipart upload as a large file, comes down in a few large
/// ranged GETs, and appears whole or not at all; its record is written after it.
/// `title.json` is the index: the record gives its size, and it lists every member's
/// size in order, so the offsets need no table of their own (a tar would add a header
/// per member saying nothing `title.json` does not, and another parser for hostile
/// input). It is named by `title.json`'s SHA-256, which fixes every member's bytes, so
/// two caches pushing the same title write the same key; the prefix keeps it apart from
/// `objects/`, whose names are the SHA-256 of the object's own bytes.
enum TitlePack {
    /// Writes `title`'s pack into a new file at `path`, re-hashing every member on the
    /// way: bytes that no longer match `title.json` are never pushed.
    static func write(_ title: TitleOnDisk.Manifest, folder: String, to path: String) throws(TierError) {
        do {
            let pack = try DataFile(path: path, mode: .readWrite)
            try pack.truncate(length: 0)
            try pack.write(title.bytes, at: 0)
            var offset = Int64(title.bytes.count)
            for member in title.manifest.members {
                let file = try DataFile(path: folder + "/" + member.path, mode: .readOnly)
                let digest = Digest(.sha256)
                var done: Int64 = 0
                while done < member.size {
                    let bytes = try file.read(count: Int(min(Int64(1 << 20), member.size - done)), at: done)
                    guard !bytes.isEmpty else { break }
                    digest.update(bytes)
                    try pack.write(bytes, at: offset + done)
                    done += Int64(bytes.count)
                }
                let sha256 = digest.finalizeHex()
                guard done == member.size, sha256 == member.sha256, try file.size() == member.size else {
                    throw TierError.localFile(
                        "\(folder)/\(member.path) no longer matches title.json; run `mediacache verify` and fetch the title again")
                }
                offset += member.size
            }
        } catch let error as TierError {
            throw error
        } catch {
            throw .localFile("writing the pack of \(folder) to \(path): \(error)")
        }
    }
}
