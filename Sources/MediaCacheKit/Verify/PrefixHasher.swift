import Foundation
import Synchronization

/// Hashes a download's contiguous prefix on its own queue while the rest still
/// arrives, so the commit hashes only the last bytes instead of the whole file.
///
/// For an MP4 whose moov comes last, the relocated layout's digest is computed in the
/// same pass once its plan is known (the tail is fetched first, so it is known early);
/// the transfer loop starts the hasher only after that.
// @unchecked: the digests belong to `queue`, `requested` to the loop; `cancelled` is atomic.
final class PrefixHasher: @unchecked Sendable {
    private let queue = DispatchQueue(label: "mediacache.prefix-hash", qos: .utility)
    private let file: DataFile
    private let cancelled = Atomic<Bool>(false)

    // Confined to `queue`.
    private var digests: [(DigestAlgorithm, Digest)]
    private var relocated: (plan: RelocationPlan, digest: RelocatedDigest)?
    private var hashedUpTo: Int64 = 0
    private var failed = false

    // Confined to the transfer loop.
    private var requested: Int64 = 0

    init(file: DataFile, algorithms: Set<DigestAlgorithm>) {
        self.file = file
        digests = algorithms.map { ($0, Digest($0)) }
    }

    /// Plans the faststart layout from the bytes on disk (headers and moov) so the
    /// relocated digest can be computed alongside. Call before the first `advance`.
    func planLayout(length: Int64) {
        queue.async { [self] in
            guard hashedUpTo == 0, case .relocate(let plan)? = try? FaststartPlanner.plan(file, length: length)
            else { return }
            relocated = (plan, RelocatedDigest(plan: plan))
        }
    }

    /// Hashes up to `prefix` in the background; cheap to call on every write.
    func advance(to prefix: Int64) {
        guard prefix >= requested + (8 << 20) else { return }
        requested = prefix
        queue.async { [self] in hash(upTo: prefix) }
    }

    func cancel() { cancelled.store(true, ordering: .relaxed) }

    struct Result {
        var digests: [DigestAlgorithm: String]
        /// The relocated layout's SHA-256, when it was computed for `plan`.
        var relocated: (plan: RelocationPlan, sha256: String)?
    }

    /// Hashes what is left up to `length` and returns the digests; nil if hashing
    /// failed (the caller then hashes from scratch).
    func finish(length: Int64) -> Result? {
        queue.sync { [self] in
            hash(upTo: length)
            guard !failed, hashedUpTo == length else { return nil }
            return Result(
                digests: Dictionary(uniqueKeysWithValues: digests.map { ($0.0, $0.1.finalizeHex()) }),
                relocated: relocated.map { ($0.plan, $0.digest.finalizeHex()) })
        }
    }

    private func hash(upTo target: Int64) {
        guard !failed, target > hashedUpTo, !cancelled.load(ordering: .relaxed) else { return }
        var position = hashedUpTo
        do {
            try file.forEachBlock(from: hashedUpTo, length: target - hashedUpTo) { block in
                for (_, digest) in digests { digest.update(block) }
                relocated?.digest.update(at: position, block)
                position += Int64(block.count)
            }
            hashedUpTo = target
        } catch {
            failed = true
        }
    }
}
