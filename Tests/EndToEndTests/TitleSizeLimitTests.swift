import Foundation
import Testing
import TestOrigin

extension EndToEnd {
    /// A title's files obey the limits a file does: a segment that never says its length
    /// is cut at `--max-stream-size`, and a "key" that is not 16 bytes is refused before
    /// it fills the disk.
    @Suite struct TitleSizeLimits {
        let origin: TestOrigin
        let harness = Harness()

        init() throws { origin = try TestOrigin() }

        /// A media playlist of one good segment and `second` (a segment or, with `key`, a
        /// key named by `#EXT-X-KEY`), served at `/t/`.
        func servePlaylist(second: String, key: Bool = false) {
            let keyLine = key ? "#EXT-X-KEY:METHOD=AES-128,URI=\"\(second)\"\n" : ""
            let segments = key ? "#EXTINF:1,\nseg0.ts\n" : "#EXTINF:1,\nseg0.ts\n#EXTINF:1,\n\(second)\n"
            let playlist = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-PLAYLIST-TYPE:VOD\n\(keyLine)\(segments)#EXT-X-ENDLIST\n"
            origin.serve("/t/title.m3u8", Resource(Array(playlist.utf8), contentType: "application/vnd.apple.mpegurl"))
            origin.serve("/t/seg0.ts", Resource(TestBytes.make(50_000, seed: 61), contentType: "video/mp2t"))
        }

        /// Bytes of files under the cache's `partial/` (what a failed title keeps).
        func partialBytes() -> Int {
            let root = harness.scratch.cache + "/partial"
            let walker = FileManager.default.enumerator(atPath: root)
            var total = 0
            while let path = walker?.nextObject() as? String {
                let attributes = try? FileManager.default.attributesOfItem(atPath: root + "/" + path)
                if attributes?[.type] as? FileAttributeType == .typeRegular { total += (attributes?[.size] as? Int) ?? 0 }
            }
            return total
        }

        @Test func aSegmentWithoutALengthIsCutAtTheStreamLimit() throws {
            var endless = Faults()
            endless.chunked = true
            servePlaylist(second: "seg1.ts")
            origin.serve("/t/seg1.ts", Resource(TestBytes.make(3 << 20, seed: 62), contentType: "video/mp2t", faults: endless))
            let result = try harness.prefetch(list: origin.url("/t/title.m3u8"), ["--max-stream-size", "1M"])
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.contains("seg1.ts") && result.stderr.contains("--max-stream-size"), "\(result.stderr)")
            #expect(partialBytes() < 1 << 20, "\(partialBytes()) bytes kept under partial/")
        }

        /// A key URL answering 5 MB with its length is refused from its head; one of no
        /// stated length, at its 17th byte. Neither is taken whole.
        @Test(arguments: [false, true])
        func aKeyThatIsNot16BytesIsRefusedBeforeItsBody(chunked: Bool) throws {
            var faults = Faults()
            faults.chunked = chunked
            faults.bytesPerSecond = 2_000_000
            servePlaylist(second: "key.bin", key: true)
            origin.serve("/t/key.bin", Resource(TestBytes.make(5_000_000, seed: 63), faults: faults))
            let result = try harness.prefetch(list: origin.url("/t/title.m3u8"))
            #expect(result.status == 1, "\(result.stderr)")
            let said = chunked ? "is more than 16 bytes, not 16" : "is 5000000 bytes, not 16"
            #expect(result.stderr.contains("the AES-128 key") && result.stderr.contains(said), "\(result.stderr)")
            #expect(result.seconds < 2, "the key was read for \(result.seconds) s")
            #expect(partialBytes() < 1 << 20, "\(partialBytes()) bytes kept under partial/")
        }
    }
}
