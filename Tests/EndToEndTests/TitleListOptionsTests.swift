import Foundation
import Testing
import TestOrigin

extension EndToEnd.Titles {
    /// `--shard` acts on list entries before any title is known: two machines given one
    /// list of titles cache disjoint sets of them that together are the list, each title
    /// whole on the machine that took it.
    @Test func twoShardsSplitAListOfTitlesWithoutOverlap() throws {
        let title = try TitleFixture.hlsMaster.make()
        let origin = try TestOrigin()
        try Self.serve(title, on: origin)
        // Six titles by their cache keys, one set of files (the query is not the files').
        let urls = (0..<6).map { origin.url("/t/master.m3u8?title=\($0)") }
        let machines = [Harness(), Harness()]
        var taken: [Set<String>] = []
        for (index, machine) in machines.enumerated() {
            let result = try machine.prefetch(list: urls.joined(separator: "\n"), ["--shard", "\(index)/2"], timeout: 120)
            #expect(result.status == 0, "\(result.stderr)")
            var mine = Set<String>()
            for url in urls where try machine.run(["path", url]).status == 0 { mine.insert(url) }
            let summary = mine.isEmpty ? "nothing to do" : "\(mine.count) done, 0 failed"
            #expect(result.stderr.contains(summary), "\(result.stderr)")
            taken.append(mine)
        }
        #expect(taken[0].isDisjoint(with: taken[1]))
        #expect(taken[0].union(taken[1]) == Set(urls))
    }

    /// The config file's title settings apply to a title as the command line's do:
    /// `max-height = 144` takes the 256x144 variant, and the command line wins over it.
    @Test func theConfigFilesTitleSettingsApplyToATitle() throws {
        let title = try TitleFixture.hlsMaster.make()
        let origin = try TestOrigin()
        try Self.serve(title, on: origin)
        let url = origin.url("/t/master.m3u8")
        func prefetch(_ harness: Harness, _ extra: [String]) throws -> Set<String> {
            let xdg = harness.scratch.path + "/xdg"
            try FileManager.default.createDirectory(atPath: xdg + "/mediacache", withIntermediateDirectories: true)
            FileManager.default.createFile(
                atPath: xdg + "/mediacache/config", contents: Data("# titles on a small screen\nmax-height = 144\n".utf8))
            let list = harness.scratch.write("list.txt", url)
            origin.clearLog()
            let result = try MediaCacheProcess.run(
                ["prefetch", list, "--cache-dir", harness.scratch.cache] + extra, environment: ["XDG_CONFIG_HOME": xdg],
                timeout: 120)
            #expect(result.status == 0, "\(result.stderr)")
            // The video variants asked for (the subtitle rendition's files are named v0… too).
            return Set(origin.requests.map(\.path).filter { $0.hasSuffix(".ts") }.map { String($0.prefix(6)) })
        }
        let fromFile = try prefetch(Harness(), [])
        #expect(fromFile == ["/t/v1_", "/t/v3_"], "\(fromFile.sorted())")
        let fromCommandLine = try prefetch(Harness(), ["--max-height", "180"])
        // Another video variant (the 320x180 one), with the same audio.
        #expect(
            fromCommandLine.count == 2 && !fromCommandLine.contains("/t/v1_") && fromCommandLine.contains("/t/v3_"),
            "\(fromCommandLine.sorted())")
    }
}
