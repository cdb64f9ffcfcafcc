import Testing
@testable import MediaCacheKit

/// The order a title's pack is read in: its own, what a player waits for first, and no
/// read reaching into bytes already held.
@Suite struct PackReadOrderTests {
    /// `title.json` of 100 bytes, four segments of 1,000, a media playlist of 50 and the
    /// entry of 20, as a title's pack holds them.
    let members: [TitleManifest.Member] = ["s0.ts", "s1.ts", "s2.ts", "s3.ts", "media.m3u8", "index.m3u8"].map { path in
        .init(path: path, size: path.hasSuffix(".ts") ? 1_000 : path == "index.m3u8" ? 20 : 50, sha256: "")
    }

    func kept(whole: Set<Int> = [], prefixes: [Int: Int64] = [:]) -> KeptPull {
        KeptPull(
            whole: members.indices.map { whole.contains($0) },
            prefixes: prefixes.mapValues { KeptPull.Prefix(bytes: $0, digest: Digest(.sha256)) }, bytes: 0)
    }

    /// Every index `order` gives, holding each as it comes, with the askers' paths asked
    /// before the given steps.
    func drain(_ order: inout PackReadOrder, asking: [Int: [String]] = [:]) -> [Int] {
        var given: [Int] = []
        while let next = order.next(asked: asking[given.count] ?? []) {
            given.append(next)
            order.didHold(next)
        }
        return given
    }

    @Test func nobodyWatchingReadsThePackFrontToBackInOneReach() {
        var order = PackReadOrder(manifestSize: 100, members: members, kept: kept())
        #expect(order.start(of: 0) == 100 && order.start(of: 5) == 4_150)
        #expect(order.readLimit(for: 0) == 4_170)
        #expect(drain(&order) == [0, 1, 2, 3, 4, 5])
    }

    @Test func aPlayerGetsThePlaylistsFirstInOneReadThenWhatItAsksThenWhatFollowsIt() {
        var order = PackReadOrder(manifestSize: 100, members: members, kept: kept(), leading: ["index.m3u8", "media.m3u8"])
        #expect(order.next(asked: []) == 4)
        #expect(order.readLimit(for: 4) == 4_170, "the playlists are one read")
        order.didHold(4)
        #expect(drain(&order, asking: [1: ["s2.ts"]]) == [5, 2, 3, 0, 1])
    }

    @Test func aReadStopsWhereHeldOrKeptBytesBegin() {
        let order = PackReadOrder(manifestSize: 100, members: members, kept: kept(whole: [2], prefixes: [4: 10]))
        #expect(order.readLimit(for: 0) == 2_100, "s2 is held")
        #expect(order.readLimit(for: 3) == 4_100, "media.m3u8's first bytes are kept")
        var draining = order
        #expect(drain(&draining) == [0, 1, 3, 4, 5])
    }

    @Test func askingForWhatIsHeldOrUnknownChangesNothing() {
        var order = PackReadOrder(manifestSize: 100, members: members, kept: kept(whole: [3]))
        #expect(order.next(asked: ["s3.ts", "nothing.ts"]) == 0)
    }
}
