import Foundation
import Testing
@testable import MediaCacheKit

/// A finished download the committer refuses: the store says why in its own terms, and
/// the download layer turns that into the code and message a user or script reads.
@Suite("ObjectCommitter errors")
struct ObjectCommitterTests {
    let temporary: TemporaryCache
    var cache: CacheDirectory { temporary.directory }

    init() throws {
        temporary = try TemporaryCache("mediacache-committer")
    }

    /// A job whose state claims `length` bytes held, with `bytes` in its data file.
    func finishedJob(
        _ bytes: [UInt8], length: Int64? = nil, checksum: ExpectedChecksum? = nil
    ) throws -> (CacheKey, DataFile, JobState) {
        let entry = ListEntry(urls: ["https://o.example/clip.bin"], checksum: checksum)
        let key = CacheKey(identity: entry.identity)
        var state = JobState(entry: entry, commandHeaders: [])
        let claimed = length ?? Int64(bytes.count)
        state.validators = Validators(etag: "\"v1\"", length: claimed)
        state.completed.insert(ByteRange(0, claimed))
        try FileSystem.makeDirectory(cache.jobDirectory(key: key))
        let file = try DataFile(path: cache.dataPath(key: key), mode: .readWrite)
        try file.write(bytes, at: 0)
        return (key, file, state)
    }

    func prepare(_ job: (CacheKey, DataFile, JobState)) -> Result<CommitBatcher.Publication, CommitError> {
        let committer = ObjectCommitter(cache: cache, faststart: true)
        return Result { () throws(CommitError) in try committer.prepare(key: job.0, file: job.1, state: job.2, finishedAt: Date()) }
    }

    @Test func checksumMismatchNamesBothDigestsAndLeavesNothing() throws {
        defer { temporary.remove() }
        let bytes = Array("not the bytes the list promised".utf8)
        let promised = ExpectedChecksum(algorithm: .sha256, hex: String(repeating: "0", count: 64))
        let job = try finishedJob(bytes, checksum: promised)
        guard case .failure(.checksumMismatch(let expected, let actual)) = prepare(job) else {
            Issue.record("a wrong checksum was committed")
            return
        }
        let digest = Digest(.sha256)
        digest.update(bytes)
        #expect(expected == promised)
        #expect(actual == digest.finalizeHex())
        #expect(!FileSystem.exists(cache.jobDirectory(key: job.0)), "nothing of it is kept")

        let failure = JobFailure(CommitError.checksumMismatch(expected: expected, actual: actual))
        #expect(failure.code == .checksumMismatch)
        #expect(
            failure.message
                == "checksum mismatch: the list says sha-256=\(promised.hex), the origin sent sha-256=\(actual!); nothing was cached"
        )
    }

    /// A copy fetched from the tier: committed only if its SHA-256 is the record's, and
    /// filed with what the record knows (origin validators, type, how it was laid out),
    /// not with what the store answered.
    @Test func aCopyFromTheTierIsCheckedAgainstItsRecordAndFiledByIt() throws {
        defer { temporary.remove() }
        let bytes = Array("bytes another cache pushed".utf8)
        let digest = Digest(.sha256)
        digest.update(bytes)
        let sha256 = digest.finalizeHex()
        var job = try finishedJob(bytes)
        job.2.validators = Validators(etag: "\"seaweed-etag\"", length: Int64(bytes.count))
        job.2.contentType = "application/octet-stream"
        job.2.tier = TierRecord(
            key: job.0, sha256: sha256, size: Int64(bytes.count), contentType: "video/mp4",
            faststart: .relocated, etag: "\"origin-v7\"", lastModified: "Mon, 23 Nov 2026 10:00:00 GMT",
            url: "https://o.example/clip.bin")
        let object = try prepare(job).get().object
        #expect(object.sha256 == sha256)
        #expect(object.faststart == .relocated)
        #expect(object.etag == "\"origin-v7\"" && object.lastModified == "Mon, 23 Nov 2026 10:00:00 GMT")
        #expect(object.contentType == "video/mp4")

        var damaged = job
        damaged.2.tier?.sha256 = String(repeating: "0", count: 64)
        guard case .failure(let error) = prepare(damaged),
            case .tierCopyDiffers(let expected, let actual) = error
        else {
            Issue.record("a copy whose hash is not its record's was committed")
            return
        }
        #expect(expected == String(repeating: "0", count: 64) && actual == sha256)
        #expect(error.blamesTheBytes, "the job fetches it from the origin instead")
        #expect(JobFailure(error).code == .tier)
    }

    @Test func dataFileShorterThanTheStateClaimsIsAnIOFailure() throws {
        defer { temporary.remove() }
        let job = try finishedJob(Array(repeating: 7, count: 50), length: 100)
        guard case .failure(let error) = prepare(job), case .shortDataFile(let path, 50, 100) = error else {
            Issue.record("a short data file was committed")
            return
        }
        #expect(path == cache.dataPath(key: job.0))
        let failure = JobFailure(error)
        #expect(failure.code == .io)
        #expect(failure.message == "\(path) holds 50 bytes, expected 100; run again to re-fetch")
    }

    /// The origin's file as it is, as curl would save it: not relocated, and why.
    @Test func mp4WhoseBoxesDoNotTileTheFileIsStoredAsItIs() throws {
        defer { temporary.remove() }
        // An ftyp box, then an mdat that claims more bytes than the file holds.
        var bytes: [UInt8] = [0, 0, 0, 16] + Array("ftypisom".utf8) + [0, 0, 2, 0]
        bytes += [0, 0, 0x10, 0] + Array("mdat".utf8) + Array(repeating: 1, count: 64)
        let job = try finishedJob(bytes)
        guard case .success(let publication) = prepare(job) else {
            Issue.record("a damaged MP4 was not committed: \(prepare(job))")
            return
        }
        #expect(publication.object.size == Int64(bytes.count) && publication.object.sha256 == Digest.sha256Hex(bytes))
        guard case .skipped(let reason) = publication.object.faststart else {
            Issue.record("recorded as \(publication.object.faststart)")
            return
        }
        #expect(reason.hasPrefix("its MP4 structure is damaged ("), "\(reason)")
    }

    @Test func cacheFailureKeepsTheSystemErrorAndIsAnIOFailure() {
        let system = SystemError("rename", path: "/c/partial/k/data -> /c/objects/ab/k", code: ENOSPC)
        let error = CommitError(classifying: system)
        guard case .cache(.io(let kept)) = error else {
            Issue.record("the system error was not kept: \(error)")
            return
        }
        #expect(kept == system)
        let failure = JobFailure(error)
        #expect(failure.code == .io)
        #expect(failure.message == system.description)
        #expect(failure.message.hasSuffix("(the disk is full)"))
    }
}
