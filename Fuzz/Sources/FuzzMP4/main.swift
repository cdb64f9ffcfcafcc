import Foundation
import FuzzDriver
@testable import MediaCacheKit

/// Any bytes as a finished download: the box walker, the moov locator, the faststart
/// planner and rewriter and the structure check never trap or loop, and a relocation
/// they plan keeps every chunk's bytes where its offset points.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let source = MemoryBytes(bytes)
    let length = Int64(bytes.count)

    let boxes = try? TopLevelBoxes.scan(source, length: length)
    try? MP4StructureCheck.check(source, length: length)
    locate(bytes, boxes: boxes)
    // The rewriter on its own, with the input as a moov (tables at any depth).
    let rewriter = MoovRewriter(moov: bytes)
    if (try? rewriter.summary()) != nil {
        _ = try? rewriter.rewritten(shift: 0, widen: false)
        _ = try? rewriter.rewritten(shift: 4096, widen: true)
    }
    guard case .relocate(let plan)? = try? FaststartPlanner.plan(source, length: length) else { return 0 }
    checkRelocation(bytes, plan)
    return 0
}

/// The locator, fed everything at once and then only a growing prefix, must agree with
/// the full scan and finish in a bounded number of steps.
private func locate(_ bytes: [UInt8], boxes: [BoxHeader]?) {
    let length = Int64(bytes.count)
    for held in [length, length / 2] {
        var locator = MoovLocator(length: length)
        var steps = 0
        while steps < 2000 {
            steps += 1
            let step = locator.advance(
                isHeld: { $0.end <= held },
                read: { Array(bytes[Int($0.start)..<Int($0.end)]) })
            if step == .finished { break }
            if case .needs(let range) = step {
                precondition(range.end > held, "asked for bytes that are held")
                break
            }
        }
        precondition(steps < 2000, "locator did not finish")
        if held == length, let boxes, let moov = locator.moov {
            precondition(boxes.first { $0.type == "moov" } == moov, "locator and scan disagree on moov")
        }
    }
}

/// Builds the planned layout in memory, then checks sizes, offsets, the one-pass digest
/// and that the result is faststart.
private func checkRelocation(_ bytes: [UInt8], _ plan: RelocationPlan) {
    let length = Int64(bytes.count)
    precondition(0 <= plan.mediaStart && plan.mediaStart <= plan.moovOffset, "bad plan \(plan)")
    precondition(plan.moovOffset < plan.moovEnd && plan.moovEnd <= length, "bad plan \(plan)")
    let output = Array(bytes[0..<Int(plan.mediaStart)]) + plan.newMoov
        + Array(bytes[Int(plan.mediaStart)..<Int(plan.moovOffset)]) + Array(bytes[Int(plan.moovEnd)...])
    precondition(Int64(output.count) == length + plan.shift - (plan.moovEnd - plan.moovOffset))

    let before = try! MoovRewriter(moov: Array(bytes[Int(plan.moovOffset)..<Int(plan.moovEnd)])).summary().allOffsets
    let after = try! MoovRewriter(moov: plan.newMoov).summary().allOffsets
    precondition(before.count == after.count, "relocation lost chunk offsets")
    for (old, new) in zip(before, after) {
        precondition(new == old + plan.shift, "offset \(old) became \(new), shift \(plan.shift)")
        precondition(output[Int(new)] == bytes[Int(old)], "chunk at \(old) does not follow its offset")
    }

    // The digest of the layout computed from origin blocks of an awkward size.
    let relocated = RelocatedDigest(plan: plan)
    var offset = 0
    while offset < bytes.count {
        let end = min(bytes.count, offset + 7)
        bytes[offset..<end].withUnsafeBytes { relocated.update(at: Int64(offset), $0) }
        offset = end
    }
    let direct = Digest(.sha256)
    output.withUnsafeBytes { direct.update($0) }
    precondition(relocated.finalizeHex() == direct.finalizeHex(), "relocated digest differs from the output's")

    let decision = try? FaststartPlanner.plan(MemoryBytes(output), length: Int64(output.count))
    precondition(decision == .original, "relocated layout is not faststart: \(String(describing: decision))")
    try? MP4StructureCheck.check(MemoryBytes(output), length: Int64(output.count))
}

exit(FuzzDriver_run(CommandLine.argc, CommandLine.unsafeArgv, fuzzOne))
