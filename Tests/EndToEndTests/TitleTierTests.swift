import Foundation
import Testing
import TestOrigin
@testable import MediaCacheKit

extension EndToEnd {
    /// Streaming titles through the fleet tier, against SeaweedFS on 127.0.0.1: `push` (and
    /// `prefetch --tier-push`) send a title as one pack, `pull` on a second cache brings it
    /// back whole and checked, as does `prefetch --tier` (the origin only when the tier's
    /// copy fails its check), and it plays offline there frame for frame as the origin's.
    @Suite struct TitleTier {
        let origin: TestOrigin
        let store: SeaweedFS
        let title: StreamingTitle
        let url: String

        init() throws {
            origin = try TestOrigin()
            store = try SeaweedFS.shared()
            title = try TitleFixture.hlsAES.make()
            try Titles.serve(title, on: origin)
            url = origin.url("/t/" + title.entry)
        }

        func run(_ harness: Harness, _ arguments: [String]) throws -> RunResult {
            try MediaCacheProcess.run(
                arguments + ["--cache-dir", harness.scratch.cache], environment: store.environment(), timeout: 120)
        }

        /// A cache that prefetched the title, pushing it to `tier` when `push` says how.
        func prefetched(_ extra: [String] = []) throws -> Harness {
            let machine = Harness()
            let list = machine.scratch.write("list.txt", url + "\n")
            let fetched = try run(machine, ["prefetch", list] + extra)
            try #require(fetched.status == 0, "\(fetched.stderr)")
            return machine
        }

        func expectPlaysAsTheOrigin(_ harness: Harness, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let (path, frames) = try Titles.playOffline(harness, url)
            #expect(path.hasSuffix(".title/index.m3u8"), sourceLocation: sourceLocation)
            #expect(frames == (try TitleFixtures.fingerprint(title)), sourceLocation: sourceLocation)
            let verify = try harness.run(["verify"])
            #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)", sourceLocation: sourceLocation)
        }

        /// A bucket whose tier (`s3://BUCKET/fleet`) holds the title, pushed by a cache
        /// that prefetched it with `--tier-push`.
        func tierHoldingTheTitle() throws -> (bucket: String, tier: String) {
            let bucket = try store.makeBucket()
            let tier = "s3://\(bucket)/fleet"
            _ = try prefetched(["--tier", tier, "--tier-push"])
            return (bucket, tier)
        }

        /// The title pushed to a tier, the origin stopped, and a second, empty cache with a
        /// list naming the title: what each read-through test starts from.
        func secondCacheWithOnlyTheTier() throws -> (tier: String, other: Harness, list: String) {
            let (_, tier) = try tierHoldingTheTitle()
            origin.stop()
            let other = Harness()
            return (tier, other, other.scratch.write("list.txt", url + "\n"))
        }

        /// What `partial/` holds in `harness`'s cache.
        func partialEntries(_ harness: Harness) -> [String] {
            (try? FileManager.default.contentsOfDirectory(atPath: harness.scratch.cache + "/partial")) ?? []
        }

        /// Flips one byte near the end of the title's pack in `bucket`.
        func damagePack(in bucket: String) throws {
            let client = try store.client(bucket: bucket, prefix: "fleet")
            let pack = try #require(try client.listObjects(prefix: "fleet/titles/").first)
            var bytes = try #require(try client.getObject(pack.key, maxBytes: 64 << 20))
            bytes[bytes.count - 100] ^= 0xFF
            try client.putObject(pack.key, bytes: bytes)
        }

        @Test func aPushedTitleIsPulledWholeOnAnotherCacheAndPlaysOffline() throws {
            let bucket = try store.makeBucket()
            let tier = "s3://\(bucket)/fleet"
            let machine = try prefetched()
            let pushed = try run(machine, ["push", "--tier", tier])
            #expect(pushed.status == 0, "\(pushed.stderr)")
            #expect(pushed.stderr.contains("pushed 1 object"), "\(pushed.stderr)")
            // One pack for the whole title, named by its title.json; no object per segment.
            let client = try store.client(bucket: bucket, prefix: "fleet")
            let packs = try client.listObjects(prefix: "fleet/titles/")
            #expect(packs.count == 1, "\(packs.map(\.key))")
            #expect(try client.listObjects(prefix: "fleet/objects/").isEmpty)
            let again = try run(machine, ["push", "--tier", tier])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stderr.contains("in tier"), "\(again.stderr)")
            #expect(!FileManager.default.fileExists(atPath: machine.scratch.cache + "/tier/packs/" + (packs.first.map { ($0.key as NSString).lastPathComponent } ?? "")))

            origin.stop()
            let other = Harness()
            let pulled = try run(other, ["pull", "--tier", tier])
            #expect(pulled.status == 0, "\(pulled.stderr)")
            #expect(pulled.stderr.contains("start    \(url) ("), "\(pulled.stderr)")
            #expect(pulled.stderr.contains("from the tier)"), "\(pulled.stderr)")
            try expectPlaysAsTheOrigin(other)
            let twice = try run(other, ["pull", url, "--tier", tier])
            #expect(twice.status == 0, "\(twice.stderr)")
            #expect(twice.stderr.contains("cached   \(url)"), "\(twice.stderr)")
        }

        @Test func prefetchWithTierPushSendsTheTitleAndPullByNameBringsItBack() throws {
            let (_, tier) = try tierHoldingTheTitle()
            origin.stop()
            let other = Harness()
            let pulled = try run(other, ["pull", url, "--tier", tier])
            #expect(pulled.status == 0, "\(pulled.stderr)")
            try expectPlaysAsTheOrigin(other)
        }

        @Test func prefetchWithTierReadsAPushedTitleWholeWithoutTheOrigin() throws {
            let (tier, other, list) = try secondCacheWithOnlyTheTier()
            let fetched = try run(other, ["prefetch", list, "--tier", tier])
            #expect(fetched.status == 0, "\(fetched.stderr)")
            #expect(fetched.stderr.contains("from the tier)"), "\(fetched.stderr)")
            #expect(fetched.stderr.contains("done     \(url) ("), "\(fetched.stderr)")
            #expect(fetched.stderr.contains(", streaming title)"), "\(fetched.stderr)")
            try expectPlaysAsTheOrigin(other)
            #expect(partialEntries(other).isEmpty, "left in partial/: \(partialEntries(other))")
            let again = try run(other, ["prefetch", list, "--tier", tier])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stderr.contains("cached   \(url)"), "\(again.stderr)")
        }

        /// The pack's reads are the run's transfers: `--limit-rate` holds them as it holds a
        /// file's (stop 39 read the pack outside the limit, in a tenth of a second).
        @Test func aTitlePulledFromTheTierKeepsToTheRunsRateLimit() throws {
            let (tier, other, list) = try secondCacheWithOnlyTheTier()
            let started = Date()
            let fetched = try run(other, ["prefetch", list, "--tier", tier, "--limit-rate", "128K"])
            let seconds = Date().timeIntervalSince(started)
            #expect(fetched.status == 0, "\(fetched.stderr)")
            let kib = try #require(
                fetched.stderr.firstMatch(of: /\(([0-9.]+) KiB from the tier\)/).flatMap { Double($0.1) },
                "\(fetched.stderr)")
            #expect(kib > 200, "the pack is too small to show a limit: \(kib) KiB")
            // What the limit lets through at once: an eighth of a second, and one receive.
            let least = (kib - 128.0 / 8 - 128.0 / 8) / 128
            #expect(seconds >= least, "\(kib) KiB at 128K/s took \(seconds) s, under \(least) s")
            try expectPlaysAsTheOrigin(other)
        }

        /// The pull folder an interrupted pull left in `harness`'s cache (`partial/<key>.title/pull`).
        func pullFolder(_ harness: Harness) -> String? {
            partialEntries(harness).first { $0.hasSuffix(".title") }.map { harness.scratch.cache + "/partial/" + $0 + "/pull" }
        }

        /// The sizes of the files in `folder`, by path inside it.
        func files(in folder: String) -> [String: Int64] {
            var sizes: [String: Int64] = [:]
            for path in (try? FileManager.default.subpathsOfDirectory(atPath: folder)) ?? [] {
                guard let attributes = try? FileManager.default.attributesOfItem(atPath: folder + "/" + path),
                    attributes[.type] as? FileAttributeType == .typeRegular
                else { continue }
                sizes[path] = (attributes[.size] as? NSNumber)?.int64Value ?? 0
            }
            return sizes
        }

        /// A held-back `prefetch --tier` of the title into `other`, stopped by `signal` once
        /// its pull folder holds `bytes`: what it left there.
        func interruptedPull(
            into other: Harness, list: String, tier: String, signal: Int32, once bytes: Int64
        ) throws -> [String: Int64] {
            let running = try MediaCacheProcess.start(
                ["prefetch", list, "--tier", tier, "--limit-rate", "16K", "--cache-dir", other.scratch.cache],
                environment: store.environment())
            let pulling = Harness.waitUntil(timeout: 30) {
                pullFolder(other).map { files(in: $0).values.reduce(0, +) >= bytes } ?? false
            }
            #expect(pulling, "the pull did not hold \(bytes) bytes within 30 s")
            let signalled = Date()
            running.signal(signal)
            let stopped = running.wait(timeout: 30)
            if signal == SIGINT {
                #expect(Date().timeIntervalSince(signalled) < 3, "took \(Date().timeIntervalSince(signalled)) s to stop")
                #expect(stopped.status == 130, "\(stopped.stderr)")
            }
            #expect(!partialEntries(other).contains { $0.hasPrefix("import-") }, "left in partial/: \(partialEntries(other))")
            return pullFolder(other).map { files(in: $0) } ?? [:]
        }

        /// What a `prefetch --json` run said it kept when it started.
        func resumedBytes(_ result: RunResult) -> Int64? {
            let started = TierRead.events(result.stdout, "started").first { $0["source"] as? String == "tier" }
            return (started?["resumed_bytes"] as? NSNumber)?.int64Value
        }

        /// Ctrl-C while a held-back pull reads the pack: the run stops at once (the range
        /// being read ends, the lock is let go), what was pulled stays, and `resume --tier`
        /// (no list needed) goes on from exactly there and brings the title whole.
        @Test func ctrlCDuringATitlePullStopsAtOnceAndTheNextRunGoesOnFromWhatItKept() throws {
            let (tier, other, list) = try secondCacheWithOnlyTheTier()
            let kept = try interruptedPull(into: other, list: list, tier: tier, signal: SIGINT, once: 48 << 10)
            let held = kept.values.reduce(0, +)
            #expect(held >= 48 << 10 && kept["title.json"] != nil, "\(kept)")
            let status = try other.run(["status", "--json"])
            let partial = TierPush.jsonLines(status.stdout).first { $0["state"] as? String == "partial" }
            #expect(partial?["url"] as? String == url && partial?["source"] as? String == "tier", "\(status.stdout)")
            #expect((partial?["bytes_done"] as? NSNumber)?.int64Value == held, "\(status.stdout)")
            #expect(try other.run(["status"]).stdout.contains("from the tier"))

            // The run saved its entry: `resume` with the tier named goes on from there.
            let again = try run(other, ["resume", "--tier", tier, "--json"])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(resumedBytes(again) == held, "kept \(resumedBytes(again) ?? -1) of the \(held) bytes pulled")
            try expectPlaysAsTheOrigin(other)
            #expect(partialEntries(other).isEmpty, "left in partial/: \(partialEntries(other))")
        }

        /// `kill -9` mid-pull, then one kept segment damaged (as a power loss may leave it):
        /// `resume` finds the pull without a saved entry, hashes what it kept, keeps only
        /// what is right, fetches the rest, and the title is the origin's.
        @Test func aPullAfterKillNineKeepsOnlyTheFilesThatPassTheirChecks() throws {
            let (tier, other, list) = try secondCacheWithOnlyTheTier()
            let kept = try interruptedPull(into: other, list: list, tier: tier, signal: SIGKILL, once: 96 << 10)
            let folder = try #require(pullFolder(other))
            let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/title.json")))
            let members = try #require((manifest as? [String: Any])?["members"] as? [[String: Any]])
            let listed = members.compactMap { member -> (String, Int64)? in
                guard let path = member["path"] as? String, let size = (member["size"] as? NSNumber)?.int64Value else { return nil }
                return (path, size)
            }
            // The last member held whole; every other byte kept is kept again.
            let whole = listed.prefix { kept[$0.0] == $0.1 }
            let damaged = try #require(whole.last, "no whole member was pulled: \(kept)")
            let before = kept.values.reduce(0, +) - damaged.1
            var bytes = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + damaged.0))
            bytes[bytes.count / 2] ^= 0xFF
            try bytes.write(to: URL(fileURLWithPath: folder + "/" + damaged.0))

            // `kill -9` saved no entry: `resume` finds the pull itself. With no tier named it
            // says so and touches nothing; with one, it asks the tier's record.
            let unnamed = try run(other, ["resume"])
            #expect(unnamed.status == 0, "\(unnamed.stderr)")
            #expect(
                unnamed.stderr.contains("\(url): its pull from the tier stopped at")
                    && unnamed.stderr.contains("name the tier (--tier or MEDIACACHE_TIER) to go on"), "\(unnamed.stderr)")
            #expect(pullFolder(other).map { files(in: $0).count } == kept.count)
            let again = try run(other, ["resume", "--tier", tier, "--json"])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(resumedBytes(again) == before, "kept \(resumedBytes(again) ?? -1), expected \(before) (all but \(damaged.0))")
            try expectPlaysAsTheOrigin(other)
        }

        @Test func serveWithTierPlaysATitleFromTheTierWithoutTheOrigin() throws {
            let (_, tier) = try tierHoldingTheTitle()
            origin.stop()
            let other = Harness()
            let server = try ServeFixture(cache: other.scratch.cache, ["--tier", tier], environment: store.environment())
            // Throws when ffmpeg fails to play it.
            let played = try TitleFixtures.fingerprint(entry: try server.localURL(url))
            #expect(played == (try TitleFixtures.fingerprint(title)))
            #expect(server.stop().status == 143)
            try expectPlaysAsTheOrigin(other)
        }

        /// `serve --tier` reading the pack at an eighth of its size a second: the title
        /// plays while it is pulled. Its playlists, which come last in the pack, answer at
        /// once; the last segment, asked for, comes long before the pack is whole; ffmpeg
        /// reads every frame through the local URL; the title ends committed.
        @Test func serveWithTierPlaysATitleWhileItsPackIsPulled() throws {
            let (bucket, tier) = try tierHoldingTheTitle()
            origin.stop()
            let client = try store.client(bucket: bucket, prefix: "fleet")
            let pack = try #require(try client.listObjects(prefix: "fleet/titles/").first)
            let other = Harness()
            let server = try ServeFixture(
                cache: other.scratch.cache, ["--tier", tier, "--limit-rate", "\(max(16 << 10, pack.size / 8))"],
                environment: store.environment())
            let local = try server.localURL(url)

            let started = Date()
            let playlist = try CurlResponse.fetch(local)
            #expect(playlist.status == 200 && String(decoding: playlist.body, as: UTF8.self).hasPrefix("#EXTM3U"))
            #expect(Date().timeIntervalSince(started) < 2, "the playlist took \(Date().timeIntervalSince(started)) s")
            let segments = title.resources.filter { $0.hasSuffix(".ts") }.sorted { $0.count == $1.count ? $0 < $1 : $0.count < $1.count }
            let last = (local as NSString).deletingLastPathComponent + "/media/s\(segments.count - 1).ts"
            let answer = try CurlResponse.fetch(last)
            #expect(answer.status == 200 && answer.body == TestBytes.read(title.path(segments[segments.count - 1])))
            let jumped = Date().timeIntervalSince(started)
            #expect((try? other.run(["path", url]).status) != 0, "the pack was already whole: nothing was played while it was pulled")

            #expect(try TitleFixtures.fingerprint(entry: local) == (try TitleFixtures.fingerprint(title)))
            #expect(Harness.waitUntil(timeout: 60) { (try? other.run(["path", url]).status) == 0 })
            let whole = Date().timeIntervalSince(started)
            #expect(jumped < whole * 0.6, "the last segment came after \(jumped) s of the pull's \(whole) s")
            #expect(server.stop().status == 143)
            try expectPlaysAsTheOrigin(other)
        }

        @Test func aTierTitleThatFailsItsCheckIsFetchedFromTheOriginInstead() throws {
            let (bucket, tier) = try tierHoldingTheTitle()
            try damagePack(in: bucket)

            let other = Harness()
            let list = other.scratch.write("list.txt", url + "\n")
            let fetched = try run(other, ["prefetch", list, "--tier", tier])
            #expect(fetched.status == 0, "\(fetched.stderr)")
            #expect(fetched.stderr.contains("the tier's copy of the title cannot be used"), "\(fetched.stderr)")
            #expect(fetched.stderr.contains("fetching it from the origin"), "\(fetched.stderr)")
            try expectPlaysAsTheOrigin(other)
        }

        @Test func aPackThatFailsItsCheckIsRefusedAndNothingIsKept() throws {
            let bucket = try store.makeBucket()
            let tier = "s3://\(bucket)/fleet"
            let machine = try prefetched()
            #expect(try run(machine, ["push", "--tier", tier]).status == 0)
            try damagePack(in: bucket)

            let other = Harness()
            let pulled = try run(other, ["pull", "--tier", tier])
            #expect(pulled.status == 1)
            #expect(pulled.stderr.contains("FAILED   \(url)"), "\(pulled.stderr)")
            #expect(pulled.stderr.contains("has SHA-256"), "\(pulled.stderr)")
            #expect(pulled.stderr.contains("nothing of the title was kept"), "\(pulled.stderr)")
            #expect(other.scratch.objectFiles.isEmpty, "\(other.scratch.objectFiles)")
            #expect(partialEntries(other).isEmpty, "left in partial/: \(partialEntries(other))")
        }
    }
}
