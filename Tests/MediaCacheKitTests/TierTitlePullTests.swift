import Foundation
import Testing
@testable import MediaCacheKit

/// A title's pull from the tier, driven through its range reader with a pack on disk (no
/// S3): a stopped pull keeps what it wrote, the next one asks only for the rest, and
/// nothing kept is trusted without its hash.
@Suite("TierTitlePull")
struct TierTitlePullTests {
    let url = "https://a.example/show/master.m3u8"

    /// A title of six 100 kB segments packed as `push` packs it, and an empty cache to
    /// pull it into.
    final class Setup {
        let source: BundleTestCache
        let target: BundleTestCache
        let title: TitleFixture
        let record: TierRecord
        let pack: [UInt8]
        let layout: TierLayout
        /// What each pull asked the tier for.
        let asked = LockedValue<[ByteRange]>([])
        /// The members the last pull wrote, in its order.
        let held = LockedValue<[String]>([])
        /// What the last pull told of each member as it arrived.
        let arrivals = LockedValue<[String: [String]]>([:])

        init(url: String) throws {
            source = try BundleTestCache("mediacache-pull-source")
            target = try BundleTestCache("mediacache-pull-target")
            title = try TitleFixture.write(url: url, segments: 6, segmentSize: 100_000, in: source.directory, index: source.index)
            let intact = try #require(try TitleOnDisk.intactManifest(of: title.object, in: source.directory))
            let path = source.root + "/pack"
            try TitlePack.write(intact, folder: title.directoryPath, to: path)
            pack = try #require(FileManager.default.contents(atPath: path).map(Array.init))
            record = TierRecord(of: title.object, titleManifestSize: Int64(title.manifestBytes.count))
            layout = TierLayout(location: try TierLocation(parsing: "s3://bucket/fleet"))
        }

        var pullFolder: String { TitleLayout.staging(key: title.key, in: target.directory) + "/" + TitleLayout.pullFolder }

        /// Where member `index` starts in the pack (`members.count`: the pack's end).
        func start(of index: Int) -> Int64 {
            title.manifest.members[..<index].reduce(Int64(title.manifestBytes.count)) { $0 + $1.size }
        }

        /// The index in `title.json` of the first segment (the playlists come before it).
        var firstSegment: Int { title.manifest.members.firstIndex { $0.path.hasSuffix(".ts") }! }

        /// Pulls into the target, stopping once `reads` ranges were read, each taking at least
        /// `delay` seconds; what it said it kept.
        func pull(
            stoppingAfter reads: Int = .max, delay: Double = 0, asking: [Int: [String]] = [:],
            askingOnceBegun begun: (member: String, asks: String)? = nil
        ) throws(TierError) -> (object: CachedObject, resumed: Int64?) {
            let pack = pack
            asked.withLock { $0 = [] }
            let puller = TierTitlePuller(layout: layout, objects: ObjectStore(directory: target.directory, index: target.index)) {
                [asked] _, range throws(TierError) in
                asked.withLock { $0.append(range) }
                if delay > 0 { Thread.sleep(forTimeInterval: delay) }
                return Array(pack[Int(range.start)..<Int(range.end)])
            }
            guard let lock = try? KeyLock.tryAcquire(key: title.key, in: target.directory) else { throw .cancelled }
            var resumed: Int64?
            var asking = asking
            let watch = TitlePullWatch(
                isCancelled: { [asked] in asked.withLock { $0.count } >= reads }, resuming: { resumed = $0 },
                arriving: { [arrivals] path, note in
                    let text = switch note {
                    case .from(let bytes): "from \(bytes)"
                    case .accepted(let length): "accepted \(length ?? -1)"
                    case .wrote(let bytes): "wrote \(bytes)"
                    case .pieces(let length, let held): "pieces \(length) \(held)"
                    case .wrotePiece(let range): "wrote piece \(range)"
                    }
                    arrivals.withLock { $0[path, default: []].append(text) }
                },
                held: { [held] member in held.withLock { $0.append(member.path) } },
                asked: { [asked, pullFolder] in
                    // What a player asks for once `begun.member` holds bytes.
                    if let (member, path) = begun, asking[-1] == nil,
                        ((try? FileManager.default.attributesOfItem(atPath: pullFolder + "/" + member))?[.size] as? Int ?? 0) > 0
                    {
                        asking[-1] = []
                        return [path]
                    }
                    // What a player asks for once this many ranges were read.
                    return asking.removeValue(forKey: asked.withLock { $0.count }) ?? []
                })
            held.withLock { $0 = [] }
            arrivals.withLock { $0 = [:] }
            let object = try puller.pull(record, identity: title.object.cacheKey, lockedBy: lock, watch: watch)
            return (object, resumed)
        }

        var bytesAsked: Int64 { asked.withLock { $0.reduce(0) { $0 + $1.count } } }

        func expectPulledWhole(_ object: CachedObject, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(object.sha256 == title.object.sha256, sourceLocation: sourceLocation)
            let folder = target.directory.absolute(TitleLayout.directory(key: title.key))
            for (member, bytes) in title.members {
                #expect(FileManager.default.contents(atPath: folder + "/" + member).map(Array.init) == bytes, "\(member)", sourceLocation: sourceLocation)
            }
            #expect(!FileManager.default.fileExists(atPath: pullFolder), "the pull folder is left", sourceLocation: sourceLocation)
        }
    }

    @Test func aStoppedPullKeepsWhatItWroteAndTheNextAsksOnlyForTheRest() throws {
        let setup = try Setup(url: url)
        // title.json, then one window of the smallest size.
        #expect(throws: TierError.cancelled) { try setup.pull(stoppingAfter: 2) }
        let kept = Int64(setup.title.manifestBytes.count) + TierTitlePuller.windows.lowerBound
        #expect(setup.bytesAsked == kept)

        let (object, resumed) = try setup.pull()
        #expect(resumed == kept)
        #expect(setup.bytesAsked == Int64(setup.pack.count) - kept, "\(setup.asked.withLock { $0 })")
        setup.expectPulledWhole(object)
    }

    @Test func aKeptFileThatFailsItsHashIsFetchedAgainAndWhatFollowsItIsKept() throws {
        let setup = try Setup(url: url)
        // title.json, 64 KiB, then 128 KiB (the rate of the first window): the first
        // segment is whole, the second begun.
        #expect(throws: TierError.cancelled) { try setup.pull(stoppingAfter: 3, delay: 0.5) }
        // The first segment, whole, damaged as a power loss may leave it.
        let members = setup.title.manifest.members
        let damaged = setup.firstSegment
        let path = setup.pullFolder + "/" + members[damaged].path
        var bytes = try #require(FileManager.default.contents(atPath: path))
        #expect(bytes.count == 100_000)
        bytes[500] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: path))
        let begun = try #require(FileManager.default.contents(atPath: setup.pullFolder + "/" + members[damaged + 1].path))
        #expect(begun.count > 0 && begun.count < 100_000)

        let (object, resumed) = try setup.pull()
        let before = setup.start(of: damaged)
        #expect(resumed == before + Int64(begun.count))
        // The damaged segment is read again, and nothing else twice.
        #expect(setup.asked.withLock { $0.first?.start } == before)
        #expect(setup.bytesAsked == Int64(setup.pack.count) - before - Int64(begun.count), "\(setup.asked.withLock { $0 })")
        setup.expectPulledWhole(object)
    }

    /// `serve` while the title is pulled: the file a player waits for is read next, out
    /// of the pack's order, the pull goes on after it and comes back for what it skipped,
    /// and no byte of the pack is read twice.
    @Test func aFileAPlayerAsksForIsPulledFirstAndNothingIsReadTwice() throws {
        let setup = try Setup(url: url)
        let members = setup.title.manifest.members.map(\.path)
        let segments = members.filter { $0.hasSuffix(".ts") }
        let (object, _) = try setup.pull(asking: [1: [segments[3]]])
        let order = setup.held.withLock { $0 }
        #expect(order.first == segments[3], "\(order)")
        #expect(order.firstIndex(of: segments[4])! < order.firstIndex(of: segments[0])!, "\(order)")
        #expect(order.sorted() == members.sorted())
        #expect(setup.bytesAsked == Int64(setup.pack.count), "\(setup.asked.withLock { $0 })")
        setup.expectPulledWhole(object)
    }

    /// A player's ask while a member is half-written: the member is set aside before the
    /// next read, the asked one written, and the first finished later from where it
    /// stopped, nothing read twice.
    @Test func aHalfWrittenFileIsSetAsideForOneAPlayerAsksFor() throws {
        let setup = try Setup(url: url)
        let segments = setup.title.manifest.members.map(\.path).filter { $0.hasSuffix(".ts") }
        // After title.json and 64 KiB the first segment (100 kB) is half-written.
        let (object, _) = try setup.pull(askingOnceBegun: (segments[0], segments[4]))
        let order = setup.held.withLock { $0 }
        #expect(order.firstIndex(of: segments[4])! < order.firstIndex(of: segments[0])!, "\(order)")
        let asked = setup.asked.withLock { $0 }
        try #require(asked.count == 4, "\(asked)")
        #expect(asked[1].start == setup.start(of: 0) && asked[2].start == setup.start(of: setup.firstSegment + 4), "\(asked)")
        // s0 goes on from the end of the first window.
        #expect(asked[3].start == asked[1].end, "\(asked)")
        #expect(setup.bytesAsked == Int64(setup.pack.count), "\(setup.asked.withLock { $0 })")
        setup.expectPulledWhole(object)
    }

    /// What is written of a member is told as it lands, so `serve` can stream it; the
    /// first bytes an earlier pull left are not, until the member has passed its check.
    @Test func aMemberIsToldAsItArrivesButNotOnBytesAnEarlierPullLeft() throws {
        let setup = try Setup(url: url)
        #expect(throws: TierError.cancelled) { try setup.pull(stoppingAfter: 2) }
        let members = setup.title.manifest.members
        let cut = setup.firstSegment
        let kept = try #require(FileManager.default.contents(atPath: setup.pullFolder + "/" + members[cut].path)).count
        #expect(kept > 0 && kept < 100_000)

        _ = try setup.pull()
        let arrivals = setup.arrivals.withLock { $0 }
        #expect(arrivals[members[cut].path] == nil, "\(arrivals[members[cut].path] ?? [])")
        let next = members[cut + 1]
        let told = try #require(arrivals[next.path])
        #expect(Array(told.prefix(2)) == ["from 0", "accepted \(next.size)"], "\(told)")
        #expect(told.last == "wrote \(next.size)", "\(told)")
        let wrote = told.dropFirst(2).compactMap { Int64($0.dropFirst("wrote ".count)) }
        #expect(wrote.count == told.count - 2 && wrote == wrote.sorted(), "\(told)")
    }

    /// A pull stopped after a jump keeps the file it jumped to; the next reads only the rest.
    @Test func aFilePulledOutOfOrderIsKeptByTheNextPull() throws {
        let setup = try Setup(url: url)
        let members = setup.title.manifest.members
        let last = try #require(members.lastIndex { $0.path.hasSuffix(".ts") })
        // title.json, then from the last segment (64 KiB, then the rest of the pack).
        #expect(throws: TierError.cancelled) { try setup.pull(stoppingAfter: 3, asking: [1: [members[last].path]]) }
        let (object, resumed) = try setup.pull()
        #expect(resumed == Int64(setup.title.manifestBytes.count) + Int64(setup.pack.count) - setup.start(of: last))
        #expect(setup.bytesAsked == Int64(setup.pack.count) - resumed!, "\(setup.asked.withLock { $0 })")
        setup.expectPulledWhole(object)
    }

    @Test func aKeptPrefixThatTurnsOutWrongCostsOnlyItsMemberAgain() throws {
        let setup = try Setup(url: url)
        #expect(throws: TierError.cancelled) { try setup.pull(stoppingAfter: 2) }
        // The first segment was cut short; its first bytes are damaged.
        let members = setup.title.manifest.members
        let cut = setup.firstSegment
        let path = setup.pullFolder + "/" + members[cut].path
        var bytes = try #require(FileManager.default.contents(atPath: path))
        #expect(bytes.count > 0 && bytes.count < 100_000)
        bytes[0] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: path))

        let (object, _) = try setup.pull()
        let start = setup.start(of: cut)
        // Asked again from the member's start, never for what comes before it.
        let asked = setup.asked.withLock { $0 }
        #expect(asked.contains { $0.start == start } && asked.allSatisfy { $0.start >= start }, "\(asked)")
        setup.expectPulledWhole(object)
    }

    @Test func aPullOfAnotherPackStartsOver() throws {
        let setup = try Setup(url: url)
        #expect(throws: TierError.cancelled) { try setup.pull(stoppingAfter: 2) }
        // Another version's title.json in the folder: nothing of it is this pack's.
        try Data("{}".utf8).write(to: URL(fileURLWithPath: setup.pullFolder + "/" + TitleManifest.fileName))
        let (object, resumed) = try setup.pull()
        #expect(resumed == 0)
        #expect(setup.bytesAsked == Int64(setup.pack.count))
        setup.expectPulledWhole(object)
    }

    @Test func aPackThatFailsItsCheckLeavesNothingToResume() throws {
        let setup = try Setup(url: url)
        let damaged = {
            var bytes = setup.pack
            bytes[bytes.count - 10] ^= 0xFF
            return bytes
        }()
        let puller = TierTitlePuller(
            layout: setup.layout, objects: ObjectStore(directory: setup.target.directory, index: setup.target.index)
        ) { _, range throws(TierError) in Array(damaged[Int(range.start)..<Int(range.end)]) }
        let lock = try #require(try KeyLock.tryAcquire(key: setup.title.key, in: setup.target.directory))
        let error = try #require(throws: TierError.self) {
            try puller.pull(setup.record, identity: url, lockedBy: lock)
        }
        #expect("\(error)".contains("nothing of the title was kept"), "\(error)")
        let partial = (try? FileManager.default.contentsOfDirectory(atPath: setup.target.directory.partialDirectory)) ?? []
        #expect(!partial.contains { $0.hasSuffix(".title") }, "\(partial)")
    }

    @Test func windowsGrowToAboutASecondOfThePullWithinTheirBounds() {
        let (least, most) = (TierTitlePuller.windows.lowerBound, TierTitlePuller.windows.upperBound)
        #expect(TierTitlePuller.nextWindow(after: 64 << 10, took: 4) == least)
        #expect(TierTitlePuller.nextWindow(after: 64 << 10, took: 0.25) == 256 << 10)
        #expect(TierTitlePuller.nextWindow(after: 8 << 20, took: 0.001) == most)
        #expect(TierTitlePuller.nextWindow(after: 1 << 20, took: 0) == most)
    }
}
