import Foundation
import Testing
import TestOrigin

extension EndToEnd {
    /// `--max-connections-per-host` caps the connections one origin sees, whatever -j
    /// and -x ask for; the option ranges are checked.
    @Suite struct ConnectionCap {
        /// Three paced files over -x 8: the most connections the origin had open at once.
        static func peakConnections(_ extra: [String]) throws -> (RunResult, Int) {
            let origin = try TestOrigin()
            let harness = Harness()
            var paced = Faults()
            paced.bytesPerSecond = 3_000_000
            var urls: [String] = []
            for index in 0..<3 {
                origin.serve("/f\(index).mp4", Resource(TestBytes.make(1 << 20, seed: UInt64(60 + index)), faults: paced))
                urls.append(origin.url("/f\(index).mp4"))
            }
            let result = try harness.prefetch(
                list: urls.joined(separator: "\n"), ["-j", "3", "-x", "8", "--min-fragment", "64K"] + extra)
            for url in urls { #expect(try harness.cachedBytes(url) != nil) }
            return (result, origin.peakConnections)
        }

        @Test func theCapHoldsAcrossFiles() throws {
            let (capped, peak) = try Self.peakConnections(["--max-connections-per-host", "2"])
            #expect(capped.status == 0, "\(capped.stderr)")
            #expect(peak <= 2 && peak >= 1, "peak \(peak)")
            // The same run without the cap opens more: the test can tell.
            let (free, wider) = try Self.peakConnections([])
            #expect(free.status == 0)
            #expect(wider > 2, "peak without the cap \(wider)")
        }

        @Test(arguments: [
            (["--max-connections-per-host", "0"], "--max-connections-per-host must be between 1 and 64"),
            (["--max-connections-per-host", "65"], "--max-connections-per-host must be between 1 and 64"),
            (["-j", "65"], "--jobs must be between 1 and 64"),
            (["-x", "33"], "--connections must be between 1 and 32"),
        ])
        func outOfRangeValuesAreUsageErrors(arguments: [String], message: String) throws {
            let harness = Harness()
            let result = try harness.prefetch(list: "http://127.0.0.1:9/a.mp4", arguments)
            #expect(result.status == 2)
            #expect(result.stderr.contains(message), "\(result.stderr)")
            let resume = try harness.run(["resume"] + arguments)
            #expect(resume.status == 2)
            #expect(resume.stderr.contains(message))
        }
    }
}
