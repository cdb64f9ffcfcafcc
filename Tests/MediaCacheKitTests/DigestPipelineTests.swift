import Foundation
import Testing
@testable import MediaCacheKit

@Suite("DigestPipeline")
struct DigestPipelineTests {
    /// Feeds `data` in blocks of at most `step` bytes; returns what `use` saw.
    private func feed(_ data: [UInt8], step: Int, into pipeline: DigestPipeline) throws -> [UInt8] {
        var offset = 0
        var seen: [UInt8] = []
        while try pipeline.feed(
            fill: { buffer in
                let n = min(step, buffer.count, data.count - offset)
                data.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<offset + n])) }
                offset += n
                return n
            },
            use: { seen.append(contentsOf: $0) })
        {}
        return seen
    }

    private func sha256(_ data: [UInt8]) -> String {
        let digest = Digest(.sha256)
        digest.update(data)
        return digest.finalizeHex()
    }

    @Test func streamsHashLikeOneDigestAndUseSeesEveryByteInOrder() throws {
        // Small buffers and a short ring so the producer keeps overtaking the hasher.
        let pipeline = DigestPipeline(blockSize: 4096, depth: 2)
        for size in [0, 1, 4095, 4096, 4097, 1 << 20] {
            let data = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
            pipeline.start([.sha256, .md5])
            let seen = try feed(data, step: 1000, into: pipeline)
            let digests = pipeline.finish()
            #expect(seen == data)
            #expect(digests[.sha256] == sha256(data), "size \(size)")
            let md5 = Digest(.md5)
            md5.update(data)
            #expect(digests[.md5] == md5.finalizeHex(), "size \(size)")
        }
    }

    @Test func failuresPropagateAndTheNextStreamStartsClean() throws {
        struct Boom: Error {}
        let pipeline = DigestPipeline(blockSize: 64, depth: 2)
        pipeline.start([.sha256])
        #expect(throws: Boom.self) { _ = try pipeline.feed(fill: { _ in throw Boom() }, use: { _ in }) }
        #expect(throws: Boom.self) { _ = try pipeline.feed(fill: { $0.count }, use: { _ in throw Boom() }) }
        _ = pipeline.finish()
        // Every buffer came back: more blocks than the ring holds still go through.
        let data = [UInt8](repeating: 7, count: 64 * 10)
        pipeline.start([.sha256])
        #expect(try feed(data, step: 64, into: pipeline) == data)
        #expect(pipeline.finish()[.sha256] == sha256(data))
    }
}
