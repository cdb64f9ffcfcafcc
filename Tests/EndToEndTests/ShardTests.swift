import Foundation
import Testing
import TestOrigin

extension EndToEnd {
    /// `prefetch --shard K/N`: N runs over one list take disjoint parts that together are
    /// the whole list, and a duplicate entry never makes two shards fetch one file.
    @Suite struct Shard {
        @Test func twoShardsSplitOneListWithoutOverlap() throws {
            let origin = try TestOrigin()
            var urls: [String] = []
            for index in 0..<16 {
                origin.serve("/s\(index).bin", Resource(TestBytes.make(4096 + index, seed: UInt64(900 + index))))
                urls.append(origin.url("/s\(index).bin"))
            }
            // The first URL again: a duplicate belongs to its original's shard.
            let list = (urls + [urls[0]]).joined(separator: "\n")
            let machines = [Harness(), Harness()]
            var taken: [Set<String>] = []
            for (index, machine) in machines.enumerated() {
                let result = try machine.prefetch(list: list, ["--shard", "\(index)/2", "-j", "4"])
                #expect(result.status == 0, "\(result.stderr)")
                var mine = Set<String>()
                for url in urls where try machine.cachedBytes(url) != nil { mine.insert(url) }
                let others = urls.count - mine.count
                #expect(result.stderr.contains("shard \(index)/2: \(others) entries left to the other shards"), "\(result.stderr)")
                taken.append(mine)
            }
            #expect(taken[0].isDisjoint(with: taken[1]))
            #expect(taken[0].union(taken[1]) == Set(urls))
            // With 16 keys, either shard being empty would mean the split is not by key.
            #expect(!taken[0].isEmpty && !taken[1].isEmpty)
            for url in urls {
                let path = "/" + url.split(separator: "/").last!
                #expect(origin.requests(for: path).count >= 1)
                #expect(Harness.bytesServed(origin, path) == 4096 + Int(path.dropFirst(2).dropLast(4))!, "\(path) fetched twice")
            }
            // The same shard again fetches nothing more.
            let again = try machines[0].prefetch(list: list, ["--shard", "0/2", "--json"])
            #expect(again.status == 0)
            let kinds = again.stdout.split(separator: "\n").compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["event"] as? String
            }
            #expect(kinds.filter { $0 == "skipped" }.count == taken[0].count, "\(again.stdout)")
            #expect(!kinds.contains("started"), "\(again.stdout)")
        }

        @Test(arguments: [
            ("2/2", "shard 2 does not exist in 2: shards are numbered 0 to 1"),
            ("1", "'1' is not K/N"),
            ("-1/3", "shard -1 does not exist in 3"),
            ("0/0", "the shard count must be between 1 and 4096"),
        ])
        func badShardsAreUsageErrors(value: String, message: String) throws {
            let result = try Harness().prefetch(list: "http://127.0.0.1:9/a.mp4", ["--shard=" + value])
            #expect(result.status == 2)
            #expect(result.stderr.contains("--shard: " + message), "\(result.stderr)")
        }
    }
}
