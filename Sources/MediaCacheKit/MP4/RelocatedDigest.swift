/// SHA-256 of a file's faststart layout, computed from the origin bytes in the same
/// read pass that hashes them, so relocation never costs a second pass to hash.
final class RelocatedDigest {
    private let plan: RelocationPlan
    private let digest = Digest(.sha256)
    private var moovFed = false

    init(plan: RelocationPlan) { self.plan = plan }

    /// Feeds origin bytes `block` that start at `offset`; blocks must come in order.
    func update(at offset: Int64, _ block: UnsafeRawBufferPointer) {
        let end = offset + Int64(block.count)
        func feed(_ range: ByteRange) {
            let clamped = range.clamped(to: ByteRange(offset, end))
            guard !clamped.isEmpty else { return }
            digest.update(UnsafeRawBufferPointer(rebasing: block[Int(clamped.start - offset)..<Int(clamped.end - offset)]))
        }
        feed(ByteRange(0, plan.mediaStart))
        if !moovFed && end > plan.mediaStart {
            digest.update(plan.newMoov)
            moovFed = true
        }
        feed(ByteRange(plan.mediaStart, plan.moovOffset))
        feed(ByteRange(plan.moovEnd, plan.length))
    }

    func finalizeHex() -> String { digest.finalizeHex() }
}
