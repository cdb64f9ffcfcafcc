import Foundation
import Testing
import TestOrigin

extension EndToEnd {
    /// How a file's bytes are shared among its connections when the origin is slow: no
    /// connection sits idle while another still has seconds of work.
    @Suite struct Scheduling {
        let origin: TestOrigin
        let harness = Harness()

        init() throws { origin = try TestOrigin() }

        /// Serves `size` bytes paced at `bytesPerSecond` per response, prefetches them
        /// with `-x connections` and checks the run and the cached bytes.
        func fetchPaced(
            _ path: String, size: Int, bytesPerSecond: Int, connections: Int, seed: UInt64
        ) throws -> (bytes: [UInt8], result: RunResult) {
            var faults = Faults()
            faults.bytesPerSecond = bytesPerSecond
            let bytes = TestBytes.make(size, seed: seed)
            origin.serve(path, Resource(bytes, faults: faults))
            let url = origin.url(path)
            let result = try harness.prefetch(list: url, ["-x", "\(connections)"], timeout: 60)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try harness.cachedBytes(url) == bytes)
            return (bytes, result)
        }

        /// 12 MiB at 1 MiB/s per connection with -x 8 and the default 4 MiB minimum: the
        /// planner gives three connections 4 MiB each, and the probe one piece like them
        /// (it asked for 8 MiB). The endgame hands the idle connections the backs of those
        /// ranges, below the minimum, so the file takes about 12 / 8 seconds, not 4 (or 8,
        /// the probe's share before).
        @Test func idleConnectionsTakeTheBacksOfSlowRangesBelowMinFragment() throws {
            let (bytes, result) = try fetchPaced("/slow.bin", size: 12 << 20, bytesPerSecond: 1 << 20, connections: 8, seed: 90)
            let requests = origin.requests(for: "/slow.bin")
            let ranges = requests.compactMap(\.range)
            #expect(ranges.contains { $0.count < 4 << 20 && $0.upperBound + 1 < bytes.count }, "\(ranges)")
            #expect(Set(requests.map(\.connectionID)).count >= 6, "\(requests.count) requests")
            // Cut ranges cost at most what was in flight past each cut.
            #expect(Harness.bytesServed(origin, "/slow.bin") < bytes.count + bytes.count / 10)
            #expect(result.seconds < 5, "took \(result.seconds) s; one connection alone needs 4")
        }

        /// Two files started together on one plain-http host each get a connection at
        /// once: neither waits until the other's response has ended (libcurl's PIPEWAIT,
        /// meant for HTTP/2, did that over http).
        @Test func filesStartedTogetherOnOneHostRunAtOnce() throws {
            var faults = Faults()
            faults.bytesPerSecond = 1 << 20
            origin.serve("/first.bin", Resource(TestBytes.make(1 << 20, seed: 92), faults: faults))
            origin.serve("/second.bin", Resource(TestBytes.make(1 << 20, seed: 93), faults: faults))
            let list = origin.url("/first.bin") + "\n" + origin.url("/second.bin")
            let result = try harness.prefetch(list: list, ["-j", "2", "-x", "1"], timeout: 60)
            #expect(result.status == 0, "\(result.stderr)")
            let first = try #require(origin.requests(for: "/first.bin").first)
            let second = try #require(origin.requests(for: "/second.bin").first)
            let (a, b) = (try #require(first.startedAt), try #require(second.startedAt))
            let ends = try [#require(first.finishedAt), #require(second.finishedAt)]
            #expect(max(a, b) < ends.min()!, "one response began only after the other had ended")
        }

        /// The probe asks for two fragments (so a file of that size takes one request); in
        /// a file split anyway, it stops after one piece, like every other connection.
        @Test func theProbeOfALargeFileStopsAfterOnePiece() throws {
            _ = try fetchPaced("/big.bin", size: 64 << 20, bytesPerSecond: 4 << 20, connections: 16, seed: 91)
            let probe = try #require(origin.requests(for: "/big.bin").first)
            #expect(probe.range == 0...(8 << 20) - 1)
            // Stopped after its piece: what passed the cut was only what was in flight.
            #expect(probe.bodyBytesSent < (4 << 20) + (1 << 20), "the probe sent \(probe.bodyBytesSent) bytes")
        }
    }
}
