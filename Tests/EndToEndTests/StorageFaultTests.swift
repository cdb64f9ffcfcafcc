import Foundation
import MediaCacheKit
import Testing
import TestOrigin

extension EndToEnd {
    /// The disk under the cache misbehaves: full, read-only, damaged state, index or
    /// partial data. Each time: a clear message, and never a corrupt object.
    @Suite struct StorageFaults {
        let origin: TestOrigin
        let harness = Harness()

        init() throws { origin = try TestOrigin() }

        func throttled(_ path: String, _ bytes: [UInt8], rate: Int?) {
            var faults = Faults()
            faults.bytesPerSecond = rate
            origin.serve(path, Resource(bytes, contentType: "video/mp4", faults: faults))
        }

        /// Starts a throttled download of `/movie.mp4` and SIGKILLs it once its saved
        /// state holds at least `fraction` of it; returns the bytes saved.
        func interrupt(_ bytes: [UInt8], fraction: Double = 0.3) throws -> Int64 {
            throttled("/movie.mp4", bytes, rate: 1_000_000)
            let run = try harness.startPrefetch(list: origin.url("/movie.mp4"), ["-x", "2", "--min-fragment", "512K"])
            let saved = Harness.waitUntil(timeout: 30) {
                ((try? harness.savedBytes()) ?? 0) >= Int64(fraction * Double(bytes.count))
            }
            run.signal(SIGKILL)
            _ = run.wait()
            try #require(saved, "the state never held \(fraction) of the file")
            origin.clearLog()
            return try harness.savedBytes()
        }

        var key: String { CacheKey(identity: origin.url("/movie.mp4")).hex }
        var jobDirectory: String { harness.scratch.cache + "/partial/" + key }

        @Test(.enabled(if: TmpfsMount.available, "needs root and mount"))
        func fullDiskIsReportedAndAResumeAfterGrowingItIsExact() throws {
            let mount = try TmpfsMount(at: harness.scratch.cache, size: "8m")
            defer { mount.unmount() }
            let large = TestBytes.make(24 << 20, seed: 101)
            let small = TestBytes.make(1 << 20, seed: 102)
            origin.serve("/large.bin", Resource(large))
            origin.serve("/small.bin", Resource(small))
            let list = origin.url("/small.bin") + "\n" + origin.url("/large.bin")
            let full = try harness.prefetch(list: list)
            #expect(full.status == 1, "\(full.stderr)")
            #expect(full.stderr.contains("the disk is full"), "\(full.stderr)")
            #expect(full.stderr.contains(harness.scratch.cache + "/partial/"), "names the file: \(full.stderr)")
            #expect(try harness.cachedBytes(origin.url("/large.bin")) == nil)
            #expect(try harness.cachedBytes(origin.url("/small.bin")) == small, "what fitted is kept")

            try mount.remount("size=64m")
            let grown = try harness.prefetch(list: list)
            #expect(grown.status == 0, "\(grown.stderr)")
            #expect(try harness.cachedBytes(origin.url("/large.bin")) == large)
            #expect(try harness.run(["verify"]).status == 0)
        }

        /// A stream no range can continue (no Content-Length, no Range) fills the disk: its
        /// bytes are given back, the entry is kept for `resume` (and `status` lists it),
        /// and the resume once there is room starts it again and is exact.
        @Test(.enabled(if: TmpfsMount.available, "needs root and mount"))
        func aStreamThatFillsTheDiskGivesItsBytesBack() throws {
            let mount = try TmpfsMount(at: harness.scratch.cache, size: "8m")
            defer { mount.unmount() }
            let bytes = TestBytes.make(12 << 20, seed: 105)
            var stream = Faults()
            stream.chunked = true
            stream.ignoreRange = true
            origin.serve("/stream.bin", Resource(bytes, faults: stream))
            let full = try harness.prefetch(list: origin.url("/stream.bin"))
            #expect(full.status == 1 && full.stderr.contains("the disk is full"), "\(full.stderr)")
            #expect(full.stderr.contains("kept for resume"), "\(full.stderr)")
            let held = (try? FileManager.default.subpathsOfDirectory(atPath: harness.scratch.cache + "/partial")) ?? []
            let sizes = held.compactMap { try? FileManager.default.attributesOfItem(atPath: harness.scratch.cache + "/partial/" + $0)[.size] as? Int }
            #expect(sizes.reduce(0, +) < 1 << 20, "the stream's bytes still fill the disk: \(held) \(sizes)")
            let status = try harness.run(["status"])
            #expect(status.stdout.contains("stream.bin"), "\(status.stdout) \(status.stderr)")

            try mount.remount("size=64m")
            let resumed = try harness.run(["resume"])
            #expect(resumed.status == 0, "\(resumed.stderr)")
            #expect(try harness.cachedBytes(origin.url("/stream.bin")) == bytes)
        }

        /// The disk fills up while a download is half done: the run fails clearly, the
        /// saved progress survives, and once there is room the resume is exact.
        @Test(.enabled(if: TmpfsMount.available, "needs root and mount"))
        func diskFillingUpKeepsTheSavedProgress() throws {
            let mount = try TmpfsMount(at: harness.scratch.cache, size: "32m")
            defer { mount.unmount() }
            let bytes = TestBytes.make(8 << 20, seed: 103)
            let saved = try interrupt(bytes)
            try mount.fill("filler")
            throttled("/movie.mp4", bytes, rate: 1_000_000)
            let failed = try harness.run(["resume"])
            #expect(failed.status == 1 || failed.status == 3, "\(failed.stderr)")
            #expect(failed.stderr.contains("the disk is full"), "\(failed.stderr)")
            #expect(try harness.savedBytes() >= saved, "the saved progress is kept")
            #expect(try harness.cachedBytes(origin.url("/movie.mp4")) == nil)

            try FileManager.default.removeItem(atPath: harness.scratch.cache + "/filler")
            origin.clearLog()
            origin.serve("/movie.mp4", Resource(bytes, contentType: "video/mp4"))
            let resumed = try harness.run(["resume"])
            #expect(resumed.status == 0, "\(resumed.stderr)")
            #expect(try harness.cachedBytes(origin.url("/movie.mp4")) == bytes)
            #expect(Harness.bytesServed(origin, "/movie.mp4") <= bytes.count - Int(saved) + (1 << 20), "resumed, not restarted")
            #expect(try harness.run(["verify"]).status == 0)
        }

        @Test(.enabled(if: TmpfsMount.available, "needs root and mount"))
        func readOnlyCacheIsAClearErrorWithExitThree() throws {
            let mount = try TmpfsMount(at: harness.scratch.cache, size: "8m")
            defer { mount.unmount() }
            let bytes = TestBytes.make(300_000, seed: 104)
            origin.serve("/a.bin", Resource(bytes))
            origin.serve("/b.bin", Resource(bytes))
            try #require(try harness.prefetch(list: origin.url("/a.bin")).status == 0)
            try mount.remount("ro")
            let written = try harness.prefetch(list: origin.url("/b.bin"))
            #expect(written.status == 3, "\(written.stderr)")
            #expect(written.stderr.contains("read-only") && written.stderr.contains(harness.scratch.cache), "\(written.stderr)")
            for command in [["path", origin.url("/a.bin")], ["ls"], ["verify"], ["gc"], ["rm", origin.url("/a.bin")]] {
                let result = try harness.run(command)
                #expect(result.status == 0 || result.status == 3, "\(command): \(result.status) \(result.stderr)")
                if result.status == 3 { #expect(result.stderr.contains("read-only"), "\(command): \(result.stderr)") }
            }

            // An empty read-only directory: nothing can be created in it.
            let empty = try TmpfsMount(at: harness.scratch.path + "/empty", size: "1m")
            defer { empty.unmount() }
            try empty.remount("ro")
            let list = harness.scratch.write("b.txt", origin.url("/b.bin"))
            let fresh = try MediaCacheProcess.run(["prefetch", list, "--cache-dir", empty.path])
            #expect(fresh.status == 3, "\(fresh.stderr)")
            #expect(fresh.stderr.contains("read-only") && fresh.stderr.contains(empty.path), "\(fresh.stderr)")
        }

        @Test(arguments: ["garbage", "truncated", "empty"])
        func damagedStateIsReportedAndTheJobStartsAgain(damage: String) throws {
            let bytes = TestBytes.make(4 << 20, seed: 105)
            _ = try interrupt(bytes)
            let statePath = jobDirectory + "/state"
            let state = try #require(TestBytes.read(statePath))
            switch damage {
            case "garbage": _ = harness.scratch.writeBytes("garbage", TestBytes.make(state.count, seed: 1))
            case "truncated": _ = harness.scratch.writeBytes("garbage", Array(state.prefix(state.count / 2)))
            default: _ = harness.scratch.writeBytes("garbage", [])
            }
            try FileManager.default.removeItem(atPath: statePath)
            try FileManager.default.copyItem(atPath: harness.scratch.path + "/garbage", toPath: statePath)
            origin.serve("/movie.mp4", Resource(bytes, contentType: "video/mp4"))
            let result = try harness.prefetch(list: origin.url("/movie.mp4"))
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains(statePath) && result.stderr.contains("starting this file again"), "\(result.stderr)")
            #expect(try harness.cachedBytes(origin.url("/movie.mp4")) == bytes)
            #expect(try harness.run(["verify"]).status == 0)
        }

        @Test(arguments: ["truncated", "extended"])
        func partialDataOfTheWrongSizeIsNotTrusted(change: String) throws {
            let bytes = TestBytes.make(4 << 20, seed: 106)
            _ = try interrupt(bytes, fraction: 0.5)
            let dataPath = jobDirectory + "/data"
            let handle = try #require(FileHandle(forUpdatingAtPath: dataPath))
            if change == "truncated" {
                try handle.truncate(atOffset: UInt64(bytes.count / 4))
            } else {
                try handle.seekToEnd()
                try handle.write(contentsOf: Data(TestBytes.make(1 << 20, seed: 3)))
            }
            try handle.close()
            origin.serve("/movie.mp4", Resource(bytes, contentType: "video/mp4"))
            let result = try harness.prefetch(list: origin.url("/movie.mp4"))
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains(dataPath) && result.stderr.contains("starting this file again"), "\(result.stderr)")
            #expect(try harness.cachedBytes(origin.url("/movie.mp4")) == bytes)
            #expect(try harness.run(["verify"]).status == 0)
        }

        /// Garbage over the index, or the file cut short: the next command notices, keeps
        /// the damaged copy, rebuilds the index from `objects/`, and every object stays
        /// reachable by its URL without being fetched again.
        @Test(arguments: ["garbage", "truncated", "empty"])
        func damagedIndexIsRebuiltFromTheObjects(damage: String) throws {
            let files = (0..<3).map { ("/clip\($0).bin", TestBytes.make(250_000 + $0 * 10_000, seed: 110 + UInt64($0))) }
            for (path, bytes) in files { origin.serve(path, Resource(bytes)) }
            var list = files.map { origin.url($0.0) }
            list[2] += "?sig=old\n  cache-key=third"
            let fetched = try harness.prefetch(list: list.joined(separator: "\n"))
            try #require(fetched.status == 0, "\(fetched.stderr)")
            let indexPath = harness.scratch.cache + "/index.sqlite"
            let index = try #require(TestBytes.read(indexPath))
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: indexPath + suffix) }
            switch damage {
            case "garbage": _ = harness.scratch.writeBytes("cache/index.sqlite", TestBytes.make(index.count, seed: 2))
            case "truncated": _ = harness.scratch.writeBytes("cache/index.sqlite", Array(index.prefix(index.count / 3)))
            default: _ = harness.scratch.writeBytes("cache/index.sqlite", [])
            }
            origin.clearLog()

            let first = try harness.run(["path", origin.url("/clip0.bin")])
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stderr.contains("rebuilt") && first.stderr.contains(indexPath), "\(first.stderr)")
            #expect(first.stderr.contains("3 objects"), "\(first.stderr)")
            #expect(FileManager.default.fileExists(atPath: indexPath + ".damaged"), "the damaged index is kept")
            #expect(try harness.cachedBytes(origin.url("/clip0.bin")) == files[0].1)
            #expect(try harness.cachedBytes("third") == files[2].1, "found by its cache key")
            let listing = try harness.run(["ls"])
            #expect(listing.status == 0 && listing.stdout.split(separator: "\n").count == 4, "\(listing.stdout)")
            let verify = try harness.run(["verify"])
            #expect(verify.status == 0 && verify.stdout.hasPrefix("3 objects verified"), "\(verify.stdout)\(verify.stderr)")
            #expect(!verify.stderr.contains("orphan"), "\(verify.stderr)")
            #expect(try harness.run(["gc"]).status == 0)
            #expect(harness.scratch.objectFiles.count == 3, "gc kept every recovered object")

            let again = try harness.prefetch(list: list.joined(separator: "\n"))
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stderr.contains("3 already cached"), "\(again.stderr)")
            #expect(origin.requests.isEmpty, "nothing fetched again")
            let rows = try harness.run(["ls", "--json"]).stdout.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            #expect(Set(rows.compactMap { $0["url"] as? String }) == Set(list.prefix(2) + [origin.url("/clip2.bin") + "?sig=old"]))
            #expect(try harness.cachedBytes(origin.url("/clip2.bin") + "?sig=old") == files[2].1, "its URL is known again")
        }

        /// Damage inside the index (pages of its tables, not its header) shows only when a
        /// query reads it: that command says so and exits 3, and the next one rebuilds the
        /// index from `objects/`, as for an index damaged all through.
        @Test(arguments: ["ls", "path"])
        func anIndexDamagedInsideIsRebuiltByTheNextCommand(first command: String) throws {
            let files = (0..<6).map { ("/in\($0).bin", TestBytes.make(20_000 + $0, seed: 120 + UInt64($0))) }
            for (path, bytes) in files { origin.serve(path, Resource(bytes)) }
            try #require(try harness.prefetch(list: files.map { origin.url($0.0) }.joined(separator: "\n")).status == 0)
            let indexPath = harness.scratch.cache + "/index.sqlite"
            // Its last connection closing moves the WAL's pages into the file.
            _ = try CacheIndex(directory: CacheDirectory(root: harness.scratch.cache)).all()
            var index = try #require(TestBytes.read(indexPath))
            try #require(index.count >= 5 * 4096 && !FileManager.default.fileExists(atPath: indexPath + "-wal"), "\(index.count)")
            index.replaceSubrange(3 * 4096..<5 * 4096, with: TestBytes.make(2 * 4096, seed: 3))
            _ = harness.scratch.writeBytes("cache/index.sqlite", index)

            let met = try harness.run(command == "ls" ? ["ls"] : ["path", origin.url("/in0.bin")])
            #expect(met.status == 3, "\(met.stderr)")
            #expect(met.stderr.contains("mediacache: cache index \(indexPath): the database is malformed"), "\(met.stderr)")
            #expect(met.stderr.contains("the next mediacache command rebuilds it from the objects: run this one again"))
            let verify = try harness.run(["verify"])
            #expect(verify.status == 0, "\(verify.stderr)")
            #expect(verify.stderr.contains("rebuilt from the 6 objects"), "\(verify.stderr)")
            #expect(verify.stdout.hasPrefix("6 objects verified"), "\(verify.stdout)")
            #expect(FileManager.default.fileExists(atPath: indexPath + ".damaged"), "the damaged index is kept")
            for (path, bytes) in files { #expect(try harness.cachedBytes(origin.url(path)) == bytes) }
            #expect(!(try harness.run(["stats"]).stderr.contains("rebuilt")), "rebuilt once")
        }

        /// The index file deleted: every command that reads the cache rebuilds it from
        /// `objects/` (verify too), none takes the cache as empty or its objects as orphans.
        @Test(arguments: ["verify", "ls", "path"])
        func aDeletedIndexIsRebuiltByAnyReadingCommand(command: String) throws {
            let files = (0..<3).map { ("/gone\($0).bin", TestBytes.make(30_000 + $0, seed: 130 + UInt64($0))) }
            for (path, bytes) in files { origin.serve(path, Resource(bytes)) }
            try #require(try harness.prefetch(list: files.map { origin.url($0.0) }.joined(separator: "\n")).status == 0)
            let indexPath = harness.scratch.cache + "/index.sqlite"
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: indexPath + suffix) }

            let result = try harness.run(command == "path" ? ["path", origin.url("/gone1.bin")] : [command])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("rebuilt from the 3 objects"), "\(result.stderr)")
            #expect(!result.stderr.contains("orphan") && !result.stdout.contains("empty"), "\(result.stdout)\(result.stderr)")
            if command == "verify" { #expect(result.stdout.hasPrefix("3 objects verified"), "\(result.stdout)") }
            if command == "ls" { #expect(result.stdout.split(separator: "\n").count == 4, "\(result.stdout)") }
            #expect(try harness.cachedBytes(origin.url("/gone1.bin")) == files[1].1)
        }
    }
}
