import Foundation
import Testing
import TestOrigin
@testable import MediaCacheKit

extension EndToEnd {
    /// A fleet sharing one tier: caches ("machines") fill from copies another cache
    /// pushed, against SeaweedFS on 127.0.0.1, with the test origin counting what it sends.
    @Suite struct TierRead {
        let origin: TestOrigin
        let store: SeaweedFS

        init() throws {
            origin = try TestOrigin()
            store = try SeaweedFS.shared()
        }

        func run(_ machine: Harness, _ arguments: [String], timeout: Double = 120) throws -> RunResult {
            try MediaCacheProcess.run(
                arguments + ["--cache-dir", machine.scratch.cache], environment: store.environment(), timeout: timeout)
        }

        func start(_ machine: Harness, _ arguments: [String]) throws -> MediaCacheProcess.Running {
            try MediaCacheProcess.start(arguments + ["--cache-dir", machine.scratch.cache], environment: store.environment())
        }

        /// Random files on the origin.
        func serveFiles(_ sizes: [Int], seed: UInt64) -> [(url: String, path: String, bytes: [UInt8])] {
            sizes.enumerated().map { index, size in
                let path = "/r\(seed)-\(index).bin"
                let bytes = TestBytes.make(size, seed: seed + UInt64(index))
                origin.serve(path, Resource(bytes))
                return (origin.url(path), path, bytes)
            }
        }

        /// A movie whose moov follows mdat: the cache that fetches it from the origin
        /// stores it relocated, and that layout is what the tier holds.
        func serveLateMoovMovie(_ path: String, mdatBytes: Int, seed: UInt64) -> (url: String, bytes: [UInt8]) {
            let mdat = TestBytes.make(mdatBytes, seed: seed)
            let ftyp = SyntheticMP4.box("ftyp", Array("isom".utf8) + [0, 0, 2, 0] + Array("isomiso2".utf8))
            let mdatStart = Int64(ftyp.count + 8)
            let offsets = stride(from: Int64(0), to: Int64(mdat.count), by: 256 << 10).map { mdatStart + $0 }
            let movie = ftyp + SyntheticMP4.box("mdat", mdat) + SyntheticMP4.moov(chunkOffsets: offsets)
            origin.serve(path, Resource(movie, contentType: "video/mp4"))
            return (origin.url(path), movie)
        }

        static func events(_ text: String, _ name: String) -> [[String: Any]] {
            TierPush.jsonLines(text).filter { $0["event"] as? String == name }
        }

        /// Machine A fetches a list from the origin and pushes it; machine B, given the
        /// same list and the tier, gets every object from the tier: the origin sees no
        /// request from B, B's objects are A's bytes (the movie relocated, as A stored
        /// it), and `verify` passes.
        @Test func aSecondCacheFillsFromTheTierWithoutTheOrigin() throws {
            let tier = "s3://\(try store.makeBucket())/fleet"
            let files = serveFiles([150_000, 20 << 20], seed: 1_100)
            let movie = serveLateMoovMovie("/late-moov.mp4", mdatBytes: 3 << 20, seed: 1_110)
            let urls = files.map(\.url) + [movie.url]
            let a = Harness()
            let listA = a.scratch.write("list.txt", urls.joined(separator: "\n"))
            let pushed = try run(a, ["prefetch", listA, "--tier", tier, "--tier-push"])
            #expect(pushed.status == 0, "\(pushed.stderr)")
            #expect(pushed.stderr.contains("pushed 3 objects"), "\(pushed.stderr)")
            origin.clearLog()

            let b = Harness()
            let listB = b.scratch.write("list.txt", urls.joined(separator: "\n"))
            let read = try run(b, ["prefetch", listB, "--tier", tier, "--json"])
            #expect(read.status == 0, "\(read.stderr)")
            #expect(origin.requests.isEmpty, "B asked the origin: \(origin.requests.map(\.path))")
            let started = Self.events(read.stdout, "started")
            #expect(started.count == 3 && started.allSatisfy { $0["source"] as? String == "tier" }, "\(started)")
            for url in urls {
                let fromA = try #require(try a.cachedBytes(url))
                #expect(try b.cachedBytes(url) == fromA, "B's copy of \(url) is not A's")
            }
            #expect(try b.cachedBytes(movie.url) != movie.bytes, "the movie is stored relocated, as A stored it")
            let committed = Self.events(read.stdout, "committed")
            let movieEvent = try #require(committed.first { $0["url"] as? String == movie.url })
            #expect(movieEvent["faststart"] as? String == "relocated")
            let verify = try b.run(["verify"])
            #expect(verify.status == 0, "\(verify.stderr)")
            #expect(verify.stdout.contains("3 objects verified"), "\(verify.stdout)")
        }

        /// A movie pushed in the origin's layout (A ran with `--no-faststart`) is stored by
        /// B as the tier holds it, not relocated by B's default: every cache of the fleet
        /// holds the record's bytes, and B's next push has nothing to change.
        @Test func aCopyFromTheTierIsStoredAsTheTierHoldsIt() throws {
            let tier = "s3://\(try store.makeBucket())/fleet"
            let movie = serveLateMoovMovie("/kept-layout.mp4", mdatBytes: 1 << 20, seed: 1_120)
            let a = Harness()
            let pushed = try run(a, ["prefetch", movie.url, "--no-faststart", "--tier", tier, "--tier-push"])
            #expect(pushed.status == 0, "\(pushed.stderr)")
            #expect(try a.cachedBytes(movie.url) == movie.bytes)

            let b = Harness()
            let read = try run(b, ["prefetch", movie.url, "--tier", tier, "--json"])
            #expect(read.status == 0, "\(read.stderr)")
            #expect(try b.cachedBytes(movie.url) == movie.bytes, "B relocated the tier's copy")
            let again = try run(b, ["push", "--tier", tier, "--json"])
            #expect(again.status == 0, "\(again.stderr)")
            let pushedAgain = TierPush.jsonLines(again.stdout).filter { $0["event"] as? String == "pushed" }
            #expect(pushedAgain.count == 1 && pushedAgain.allSatisfy { $0["uploaded"] as? Bool == false }, "\(pushedAgain)")
        }

        /// A copy in the tier with one byte changed: B finds out by its hash, names the
        /// object, fetches the file from the origin and exits 0 with the right bytes.
        @Test func aDamagedCopyIsNamedAndTheOriginUsed() throws {
            let bucket = try store.makeBucket()
            let tier = "s3://\(bucket)/damaged"
            let file = try #require(serveFiles([3 << 20], seed: 1_200).first)
            let a = Harness()
            #expect(try run(a, ["prefetch", a.scratch.write("list.txt", file.url), "--tier", tier, "--tier-push"]).status == 0)
            let client = try store.client(bucket: bucket, prefix: "damaged")
            let objectKey = "damaged/objects/" + Digest.sha256Hex(file.bytes)
            var damaged = try #require(try client.getObject(objectKey, maxBytes: 8 << 20))
            damaged[1_000_000] ^= 0x40
            try client.putObject(objectKey, bytes: damaged)
            origin.clearLog()

            let b = Harness()
            let result = try run(b, ["prefetch", b.scratch.write("list.txt", file.url), "--tier", tier])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("s3://\(bucket)/\(objectKey)"), "\(result.stderr)")
            #expect(result.stderr.contains("fetching it from the origin"), "\(result.stderr)")
            #expect(try b.cachedBytes(file.url) == file.bytes)
            let served = Harness.bytesServed(origin, file.path)
            #expect(served >= file.bytes.count && served <= file.bytes.count + (1 << 20), "origin sent \(served)")
        }

        /// `serve --tier`: a player's first request for a file the tier holds is answered
        /// from the tier's copy, ranges included, named by the ETag the stored object will
        /// have; the origin is never asked.
        @Test func serveReadsFromTheTierForPlayers() throws {
            let tier = "s3://\(try store.makeBucket())/served"
            let movie = serveLateMoovMovie("/served.mp4", mdatBytes: 2 << 20, seed: 1_700)
            let a = Harness()
            #expect(try run(a, ["prefetch", a.scratch.write("list.txt", movie.url), "--tier", tier, "--tier-push"]).status == 0)
            let stored = try #require(try a.cachedBytes(movie.url))
            origin.clearLog()

            let b = Harness()
            let server = try ServeFixture(cache: b.scratch.cache, ["--tier", tier], environment: store.environment())
            let local = try server.localURL(movie.url)
            let range = try CurlResponse.fetch(local, ["-r", "1000-1999"])
            #expect(range.status == 206)
            #expect(range.body == Array(stored[1000..<2000]))
            #expect(range.headers["etag"] == "\"\(Digest.sha256Hex(stored).prefix(32))\"", "\(range.headers)")
            let whole = try CurlResponse.fetch(local)
            #expect(whole.status == 200 && whole.body == stored)
            #expect(Harness.waitUntil(timeout: 10) { (try? b.cachedBytes(movie.url)) == stored }, "the copy was not cached")
            #expect(origin.requests.isEmpty, "serve asked the origin: \(origin.requests.map(\.path))")
            #expect(server.stop().status == 143)
        }

        /// `kill -9` while a file comes from the tier: the next run fetches only what was
        /// not saved, from the tier again; the origin is never asked; the saved state
        /// holds no credential.
        @Test func killedWhileReadingFromTheTierResumesThere() throws {
            let tier = "s3://\(try store.makeBucket())/resumed"
            let file = try #require(serveFiles([24 << 20], seed: 1_300).first)
            let a = Harness()
            #expect(try run(a, ["prefetch", a.scratch.write("list.txt", file.url), "--tier", tier, "--tier-push"]).status == 0)
            origin.clearLog()

            let b = Harness()
            let list = b.scratch.write("list.txt", file.url)
            let running = try start(b, ["prefetch", list, "--tier", tier, "--limit-rate", "3M", "-x", "4"])
            let saving = Harness.waitUntil(timeout: 20) { ((try? b.savedBytes()) ?? 0) >= 4 << 20 }
            let savedAtKill = (try? b.savedBytes()) ?? 0
            running.signal(SIGKILL)
            _ = running.wait(timeout: 10)
            #expect(saving, "no progress was saved within 20 s")
            let partial = b.scratch.cache + "/partial"
            for name in (try? FileManager.default.subpathsOfDirectory(atPath: partial)) ?? [] {
                let text = String(decoding: TestBytes.read(partial + "/" + name) ?? [], as: UTF8.self)
                #expect(!text.contains(store.secretKey) && !text.contains("Signature="), "\(name) holds a credential")
            }

            let again = try run(b, ["prefetch", list, "--tier", tier, "--json"])
            #expect(again.status == 0, "\(again.stderr)")
            let started = try #require(Self.events(again.stdout, "started").first)
            #expect(started["source"] as? String == "tier")
            let resumed = (started["resumed_bytes"] as? NSNumber)?.int64Value ?? 0
            #expect(resumed >= savedAtKill, "kept \(resumed) of the \(savedAtKill) saved")
            let fetched = (Self.events(again.stdout, "summary").first?["bytes"] as? NSNumber)?.int64Value ?? -1
            #expect(fetched <= Int64(file.bytes.count) - resumed + (1 << 20), "fetched \(fetched) after keeping \(resumed)")
            #expect(origin.requests.isEmpty, "the origin was asked: \(origin.requests.map(\.path))")
            #expect(try b.cachedBytes(file.url) == file.bytes)
        }

        /// Two machines each take one shard of a list and push it; a third pulls the
        /// whole tier without a list and never asks the origin. A name the tier lacks
        /// makes `pull` exit 1, naming it.
        @Test func shardsFillTheTierAndAThirdCachePullsIt() throws {
            let tier = "s3://\(try store.makeBucket())/shards"
            let files = serveFiles([40_000, 50_000, 60_000, 70_000, 80_000, 90_000], seed: 1_400)
            let text = files.map(\.url).joined(separator: "\n")
            for shard in ["0/2", "1/2"] {
                let machine = Harness()
                let list = machine.scratch.write("list.txt", text)
                let result = try run(machine, ["prefetch", list, "--shard", shard, "--tier", tier, "--tier-push"])
                #expect(result.status == 0, "\(result.stderr)")
            }
            #expect(origin.requests.count >= files.count)
            for file in files { #expect(Harness.bytesServed(origin, file.path) == file.bytes.count, "\(file.path)") }
            origin.clearLog()

            let c = Harness()
            let pulled = try run(c, ["pull", "--tier", tier])
            #expect(pulled.status == 0, "\(pulled.stderr)")
            #expect(pulled.stderr.contains("\(files.count) done"), "\(pulled.stderr)")
            #expect(origin.requests.isEmpty)
            for file in files { #expect(try c.cachedBytes(file.url) == file.bytes, "\(file.url)") }
            #expect(try c.run(["verify"]).status == 0)

            let again = try run(c, ["pull", "--tier", tier])
            #expect(again.status == 0)
            #expect(again.stderr.contains("\(files.count) already cached"), "\(again.stderr)")

            let missing = origin.url("/never-pushed.bin")
            let one = try run(Harness(), ["pull", files[0].url, missing, "--tier", tier])
            #expect(one.status == 1)
            #expect(one.stderr.contains(missing) && one.stderr.contains("the tier has no copy"), "\(one.stderr)")
            #expect(one.stderr.contains("1 done, 1 failed"), "\(one.stderr)")
            #expect(origin.requests.isEmpty, "pull asked the origin")
        }

        /// `kill -9` in the middle of a multipart upload: the upload is left in the
        /// bucket, and the next `push` finishes it from the parts already there; then no
        /// incomplete upload is left and the object is the cached bytes.
        @Test func killedDuringAMultipartUploadFinishesAtTheNextPush() throws {
            let bucket = try store.makeBucket()
            let tier = "s3://\(bucket)/parts"
            let file = try #require(serveFiles([96 << 20], seed: 1_500).first)
            let machine = Harness()
            #expect(try machine.run(["prefetch", machine.scratch.write("list.txt", file.url)], timeout: 120).status == 0)
            let client = try store.client(bucket: bucket, prefix: "parts")
            let sha = Digest.sha256Hex(file.bytes)
            let uploadState = machine.scratch.cache + "/tier/uploads/\(sha).json"

            let running = try start(machine, ["push", "--tier", tier])
            // Killed once the store confirmed a part, before the upload was completed.
            let partConfirmed = Harness.waitUntil(timeout: 60) {
                let text = String(decoding: TestBytes.read(uploadState) ?? [], as: UTF8.self)
                return text.contains("\"etag\"") || !running.process.isRunning
            }
            running.signal(SIGKILL)
            let killed = running.wait(timeout: 10)
            #expect(partConfirmed && killed.status == 128 + SIGKILL, "push ended before it could be killed: \(killed.stderr)")
            #expect(try client.listMultipartUploads(prefix: "parts/").count == 1, "the killed upload is in the bucket")
            #expect(try client.headObject("parts/objects/\(sha)") == nil)

            let again = try run(machine, ["push", "--tier", tier])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(try client.listMultipartUploads(prefix: "parts/").isEmpty, "an incomplete upload was left")
            #expect(try client.headObject("parts/objects/\(sha)")?.size == Int64(file.bytes.count))
            let stored = try client.getObject("parts/objects/\(sha)", maxBytes: 100 << 20)
            #expect(stored.map(Digest.sha256Hex) == sha)
            #expect(!FileManager.default.fileExists(atPath: uploadState))
        }
    }

    /// A tier of its own, stopped part-way: a run reading from it falls back to the
    /// origin and still exits 0; with `--tier-required` a tier that cannot be used is an
    /// error before anything is fetched.
    @Suite struct TierOutage {
        @Test func aTierThatStopsMidRunHandsItsFilesToTheOrigin() throws {
            let origin = try TestOrigin()
            let store = try SeaweedFS()
            defer { store.stop() }
            let tier = "s3://\(try store.makeBucket())/outage"
            let files = (0..<2).map { index in
                let bytes = TestBytes.make(6 << 20, seed: 1_600 + UInt64(index))
                origin.serve("/o\(index).bin", Resource(bytes))
                return (url: origin.url("/o\(index).bin"), bytes: bytes)
            }
            let text = files.map(\.url).joined(separator: "\n")
            let environment = store.environment()
            let a = Harness()
            let pushed = try MediaCacheProcess.run(
                ["prefetch", a.scratch.write("list.txt", text), "--tier", tier, "--tier-push", "--cache-dir", a.scratch.cache],
                environment: environment, timeout: 120)
            #expect(pushed.status == 0, "\(pushed.stderr)")

            let b = Harness()
            let running = try MediaCacheProcess.start(
                ["prefetch", b.scratch.write("list.txt", text), "--tier", tier, "--limit-rate", "2M", "--cache-dir", b.scratch.cache],
                environment: environment)
            #expect(Harness.waitUntil(timeout: 20) { ((try? b.savedBytes()) ?? 0) > 512 << 10 }, "B read nothing from the tier")
            store.stop(grace: 0)
            let result = running.wait(timeout: 90)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("from the origin"), "\(result.stderr)")
            #expect(result.stderr.components(separatedBy: "the tier cannot be used").count == 2, "one warning: \(result.stderr)")
            for file in files { #expect(try b.cachedBytes(file.url) == file.bytes) }

            let c = Harness()
            let required = try MediaCacheProcess.run(
                ["prefetch", c.scratch.write("list.txt", text), "--tier", tier, "--tier-required", "--cache-dir", c.scratch.cache],
                environment: environment, timeout: 90)
            #expect(required.status == 1)
            #expect(required.stderr.contains("the tier cannot be used") && required.stderr.contains(store.endpoint), "\(required.stderr)")
            #expect(try c.cachedBytes(files[0].url) == nil, "a required tier that cannot be used stops the run first")
        }
    }
}
