import Foundation
import Testing
import TestOrigin

extension EndToEnd {
    /// Interruptions of every kind, then a second run: byte-exact, little refetched.
    @Suite struct Resume {
        let origin: TestOrigin
        let harness = Harness()

        init() throws { origin = try TestOrigin() }

        func throttled(_ bytes: [UInt8], rate: Int, path: String = "/movie.mp4") {
            var faults = Faults()
            faults.bytesPerSecond = rate
            origin.serve(path, Resource(bytes, contentType: "video/mp4", faults: faults))
        }

        /// Starts a prefetch and SIGKILLs it once the saved state holds `fraction` of the file.
        func killWhenSaved(fraction: Double, of size: Int, _ extra: [String]) throws {
            let run = try harness.startPrefetch(list: origin.url("/movie.mp4"), extra)
            let saved = Harness.waitUntil(timeout: 30) {
                (try? harness.savedBytes()).map { Double($0) >= fraction * Double(size) } ?? false
            }
            run.signal(SIGKILL)
            let result = run.wait()
            #expect(saved, "state never reached \(fraction) of the file")
            #expect(result.status == 128 + SIGKILL)
        }

        @Test func killDashNineThenRerunIsByteExactAndRefetchesLittle() throws {
            let bytes = TestBytes.make(12 << 20, seed: 9)
            throttled(bytes, rate: 1_500_000)
            let options = ["-x", "4", "--min-fragment", "512K"]
            try killWhenSaved(fraction: 0.4, of: bytes.count, options)
            let status = try harness.run(["status"])
            #expect(status.stdout.contains(origin.url("/movie.mp4")))

            origin.serve("/movie.mp4", Resource(bytes, contentType: "video/mp4"))
            let result = try harness.prefetch(list: origin.url("/movie.mp4"), options)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("resume   movie.mp4 at"))
            #expect(try harness.cachedBytes(origin.url("/movie.mp4")) == bytes)
            let refetched = Harness.bytesServed(origin, "/movie.mp4") - bytes.count
            let percent = Double(refetched) * 100 / Double(bytes.count)
            print("kill -9 resume: refetched \(refetched) bytes = \(String(format: "%.1f", percent)) % of the file")
            // The journal keeps what arrived after the last checkpoint: only bytes in flight are lost.
            #expect(percent < 5, "refetched \(percent) % of the file")
            #expect(try harness.run(["status"]).stdout.isEmpty, "no partial job is left")
        }

        /// After power loss only what the durable state lists is on disk; the rest of the
        /// data file may be anything. The journal written in the old boot must not vouch
        /// for those bytes.
        @Test func afterPowerLossOnlyTheDurableStateIsTrusted() throws {
            let bytes = TestBytes.make(8 << 20, seed: 31)
            throttled(bytes, rate: 1_500_000)
            let options = ["-x", "4", "--min-fragment", "512K"]
            try killWhenSaved(fraction: 0.3, of: bytes.count, options)
            let jobs = (try? FileManager.default.contentsOfDirectory(atPath: harness.scratch.cache + "/partial")) ?? []
            #expect(jobs.count == 1)
            let job = harness.scratch.cache + "/partial/" + (jobs.first ?? "?")
            #expect(FileManager.default.fileExists(atPath: job + "/journal"), "a kill -9 leaves a journal")
            try PowerLoss.garbleBytesNotInState(job: job)

            origin.serve("/movie.mp4", Resource(bytes, contentType: "video/mp4"))
            let list = harness.scratch.write("list.txt", origin.url("/movie.mp4"))
            let result = try MediaCacheProcess.run(
                ["prefetch", list, "--cache-dir", harness.scratch.cache] + options,
                environment: ["MEDIACACHE_BOOT_ID": "a-boot-after-power-loss"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try harness.cachedBytes(origin.url("/movie.mp4")) == bytes)
        }

        @Test func repeatedKillsAtRandomMomentsNeverCorrupt() throws {
            let bytes = TestBytes.make(6 << 20, seed: 21)
            throttled(bytes, rate: 3_000_000)
            var generator = SystemRandomNumberGenerator()
            for _ in 0..<4 {
                let run = try harness.startPrefetch(list: origin.url("/movie.mp4"), ["-x", "3", "--min-fragment", "256K"])
                usleep(UInt32.random(in: 150_000...900_000, using: &generator))
                run.signal(SIGKILL)
                _ = run.wait()
            }
            origin.serve("/movie.mp4", Resource(bytes, contentType: "video/mp4"))
            let result = try harness.prefetch(list: origin.url("/movie.mp4"))
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try harness.cachedBytes(origin.url("/movie.mp4")) == bytes)
        }

        @Test func ctrlCSavesProgressPromptlyAndResumeFinishes() throws {
            let bytes = TestBytes.make(8 << 20, seed: 4)
            throttled(bytes, rate: 1_000_000)
            let run = try harness.startPrefetch(list: origin.url("/movie.mp4"), ["-x", "2", "--min-fragment", "512K"])
            Harness.waitUntil(timeout: 10) { Harness.bytesServed(origin, "/movie.mp4") > 0 || origin.requests.count >= 2 }
            usleep(800_000)
            let stopAsked = Date()
            run.signal(SIGINT)
            let result = run.wait(timeout: 10)
            let stopTook = Date().timeIntervalSince(stopAsked)
            #expect(result.status == 130)
            #expect(stopTook < 2, "took \(stopTook) s to stop")
            #expect(result.stderr.contains("progress is saved"))
            let saved = try harness.savedBytes()
            #expect(saved > 0)

            origin.serve("/movie.mp4", Resource(bytes, contentType: "video/mp4"))
            let resumed = try harness.run(["resume"])
            #expect(resumed.status == 0, "\(resumed.stderr)")
            #expect(try harness.cachedBytes(origin.url("/movie.mp4")) == bytes)
            let nothing = try harness.run(["resume"])
            #expect(nothing.status == 0)
            #expect(nothing.stderr.contains("nothing to resume"))
        }

        @Test func changedETagBetweenRunsStartsOver() throws {
            let old = TestBytes.make(4 << 20, seed: 1)
            throttled(old, rate: 1_000_000)
            try killWhenSaved(fraction: 0.2, of: old.count, ["-x", "2", "--min-fragment", "256K"])
            let new = TestBytes.make(4 << 20, seed: 2)
            origin.serve("/movie.mp4", Resource(new, contentType: "video/mp4"))
            let result = try harness.prefetch(list: origin.url("/movie.mp4"))
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("changed on the origin since the last run"))
            #expect(try harness.cachedBytes(origin.url("/movie.mp4")) == new)
        }

        /// Interrupts a one-connection download from an origin that sends no validators;
        /// returns the bytes the durable state holds (a prefix, with one connection) and
        /// the bytes the origin sent (the journal may vouch for up to that many).
        func interruptWithoutValidators(_ bytes: [UInt8]) throws -> (saved: Int64, sent: Int64) {
            var faults = Faults()
            faults.bytesPerSecond = 1_000_000
            origin.serve("/movie.mp4", .noValidators(bytes, contentType: "video/mp4", faults: faults))
            try killWhenSaved(fraction: 0.2, of: bytes.count, ["-x", "1"])
            let sent = Int64(Harness.bytesServed(origin, "/movie.mp4"))
            origin.clearLog()
            return (try harness.savedBytes(), sent)
        }

        @Test func withoutValidatorsResumeRechecksAnOverlap() throws {
            let bytes = TestBytes.make(4 << 20, seed: 6)
            let (saved, sent) = try interruptWithoutValidators(bytes)
            origin.serve("/movie.mp4", .noValidators(bytes, contentType: "video/mp4"))
            let same = try harness.prefetch(list: origin.url("/movie.mp4"))
            #expect(same.status == 0, "\(same.stderr)")
            #expect(try harness.cachedBytes(origin.url("/movie.mp4")) == bytes)
            // The resume starts 64 KiB before the first byte it lacks, which lies between
            // what the durable state held and what the origin had sent.
            let first = try #require(origin.requests(for: "/movie.mp4").first?.range)
            let resumedAt = Int64(first.lowerBound) + 64 * 1024
            #expect(resumedAt >= saved && resumedAt <= sent, "resumed at \(resumedAt); saved \(saved), sent \(sent)")
            #expect(!same.stderr.contains("starting over"))
        }

        @Test func withoutValidatorsAChangedFileIsDetectedByTheOverlap() throws {
            let bytes = TestBytes.make(4 << 20, seed: 6)
            _ = try interruptWithoutValidators(bytes)
            let changed = TestBytes.make(4 << 20, seed: 7)
            origin.serve("/movie.mp4", .noValidators(changed, contentType: "video/mp4"))
            let result = try harness.prefetch(list: origin.url("/movie.mp4"))
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("differ"))
            #expect(try harness.cachedBytes(origin.url("/movie.mp4")) == changed)
        }

        @Test func expiringURLKeepsProgressUnderItsCacheKey() throws {
            let bytes = TestBytes.make(4 << 20, seed: 8)
            throttled(bytes, rate: 1_000_000)
            let run = try harness.startPrefetch(
                list: origin.url("/movie.mp4") + "?sig=old\n  cache-key=movie\n", ["-x", "2", "--min-fragment", "256K"])
            Harness.waitUntil(timeout: 20) { ((try? harness.savedBytes()) ?? 0) > 1 << 20 }
            run.signal(SIGKILL)
            _ = run.wait()
            origin.clearLog()
            origin.serve("/movie.mp4", Resource(bytes, contentType: "video/mp4"))
            let result = try harness.prefetch(list: origin.url("/movie.mp4") + "?sig=new\n  cache-key=movie\n")
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try harness.cachedBytes("movie") == bytes)
            let requests = origin.requests(for: "/movie.mp4")
            #expect(requests.allSatisfy { $0.query == "sig=new" })
            #expect((requests.first?.range?.lowerBound ?? 0) > 0, "the new URL resumed the old progress")
            #expect(Harness.bytesServed(origin, "/movie.mp4") < bytes.count - (1 << 20) / 2)
        }

        @Test func twoProcessesOnOneListShareTheWork() throws {
            let bytes = TestBytes.make(3 << 20, seed: 12)
            throttled(bytes, rate: 2_000_000)
            let list = harness.scratch.write("shared.txt", origin.url("/movie.mp4"))
            let args = ["prefetch", list, "--cache-dir", harness.scratch.cache, "-x", "2"]
            let first = try MediaCacheProcess.start(args)
            Harness.waitUntil(timeout: 10) { !origin.requests(for: "/movie.mp4").isEmpty }
            let second = try MediaCacheProcess.start(args)
            let a = first.wait(timeout: 60)
            let b = second.wait(timeout: 60)
            #expect(a.status == 0, "\(a.stderr)")
            #expect(b.status == 0, "\(b.stderr)")
            #expect(b.stderr.contains("1 already cached"))
            #expect(b.stderr.contains("another mediacache process (pid \(first.pid)) is downloading it; waiting"))
            #expect(try harness.cachedBytes(origin.url("/movie.mp4")) == bytes)
            #expect(Harness.bytesServed(origin, "/movie.mp4") < bytes.count + bytes.count / 10, "fetched once")
        }
    }
}
