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

        /// `resume` takes no list and none of the first run's options, yet its requests carry
        /// that run's --user-agent and --referer (an origin checking them refused them).
        @Test func resumeSendsTheFirstRunsUserAgentAndReferer() throws {
            let bytes = TestBytes.make(6 << 20, seed: 33)
            throttled(bytes, rate: 1_000_000)
            try killWhenSaved(
                fraction: 0.2, of: bytes.count,
                ["-x", "2", "--min-fragment", "512K", "--user-agent", "Player/7", "--referer", "https://app.example/"])
            origin.serve("/movie.mp4", Resource(bytes, contentType: "video/mp4"))
            origin.clearLog()
            let resumed = try harness.run(["resume"])
            #expect(resumed.status == 0, "\(resumed.stderr)")
            #expect(try harness.cachedBytes(origin.url("/movie.mp4")) == bytes)
            let sent = origin.requests.map { [$0.headers["user-agent"] ?? "-", $0.headers["referer"] ?? "-"] }
            #expect(!sent.isEmpty && sent.allSatisfy { $0 == ["Player/7", "https://app.example/"] }, "\(sent)")
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
            #expect(result.stderr.contains("resume   \(origin.url("/movie.mp4")) at"), "\(result.stderr)")
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
            // About 2 s in all: the kill must land before the end even on a loaded machine.
            throttled(bytes, rate: 1_000_000)
            let options = ["-x", "4", "--min-fragment", "512K"]
            let partial = harness.scratch.cache + "/partial"
            func job() -> String? {
                ((try? FileManager.default.contentsOfDirectory(atPath: partial)) ?? []).first.map { partial + "/" + $0 }
            }
            func beyondState() -> Int64 { job().flatMap { try? PowerLoss.journalBeyondState(job: $0) } ?? 0 }
            // Killed once the journal holds bytes the durable state does not: otherwise the
            // garbling below would not touch a byte the journal claims, and the test could
            // not tell a trusted journal from an ignored one. A checkpoint may land between
            // the look and the kill; then the download is started and killed again.
            var onlyInJournal: Int64 = 0
            for _ in 0..<3 where onlyInJournal == 0 {
                let run = try harness.startPrefetch(list: origin.url("/movie.mp4"), options)
                let ready = Harness.waitUntil(timeout: 30) {
                    ((try? harness.savedBytes()) ?? 0) >= Int64(bytes.count * 3 / 10) && beyondState() > 0
                }
                run.signal(SIGKILL)
                _ = run.wait()
                #expect(ready)
                onlyInJournal = beyondState()
            }
            #expect(onlyInJournal > 0, "the journal holds bytes the durable state does not")
            let job = try #require(job())
            try PowerLoss.garbleBytesNotInState(job: job)

            origin.serve("/movie.mp4", Resource(bytes, contentType: "video/mp4"))
            let list = harness.scratch.write("list.txt", origin.url("/movie.mp4"))
            let result = try MediaCacheProcess.run(
                ["prefetch", list, "--cache-dir", harness.scratch.cache] + options,
                environment: ["MEDIACACHE_BOOT_ID": "a-boot-after-power-loss"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try harness.cachedBytes(origin.url("/movie.mp4")) == bytes)
        }

        /// Ctrl-C (SIGINT) and SIGTERM: out within 2 s with progress saved.
        @Test(arguments: [SIGINT, SIGTERM])
        func stopSignalSavesProgressPromptlyAndResumeFinishes(signal: Int32) throws {
            let bytes = TestBytes.make(8 << 20, seed: 4)
            throttled(bytes, rate: 1_000_000)
            let run = try harness.startPrefetch(list: origin.url("/movie.mp4"), ["-x", "2", "--min-fragment", "512K"])
            Harness.waitUntil(timeout: 10) { Harness.bytesServed(origin, "/movie.mp4") > 0 || origin.requests.count >= 2 }
            usleep(800_000)
            let stopAsked = Date()
            run.signal(signal)
            let result = run.wait(timeout: 10)
            let stopTook = Date().timeIntervalSince(stopAsked)
            #expect(result.status == 128 + signal)
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

        /// Ctrl-C while the first of five entries downloads (-j 1): the four that never
        /// started are saved with the run, `status` lists them, `rm` drops one, and
        /// `resume` fetches the other four.
        @Test func resumeFinishesTheRunNotOnlyTheDownloadsThatHadBegun() throws {
            let first = TestBytes.make(2 << 20, seed: 21)
            throttled(first, rate: 300_000, path: "/first.mp4")
            var rest: [String: [UInt8]] = [:]
            for index in 2...5 {
                rest["/e\(index).mp4"] = TestBytes.make(70_000 + index, seed: UInt64(20 + index))
                origin.serve("/e\(index).mp4", Resource(rest["/e\(index).mp4"]!, contentType: "video/mp4"))
            }
            let urls = [origin.url("/first.mp4")] + (2...5).map { origin.url("/e\($0).mp4") }
            let run = try harness.startPrefetch(list: urls.joined(separator: "\n"), ["-j", "1"])
            #expect(Harness.waitUntil(timeout: 10) { Harness.bytesServed(origin, "/first.mp4") > 100_000 })
            run.signal(SIGINT)
            let stopped = run.wait(timeout: 10)
            #expect(stopped.status == 128 + SIGINT)
            #expect(stopped.stderr.contains("0 done, 0 failed, 0 already cached, 5 unfinished"), "\(stopped.stderr)")
            #expect(origin.requests.allSatisfy { $0.path == "/first.mp4" })

            let status = try harness.run(["status"])
            for index in 2...5 { #expect(status.stdout.contains("\(origin.url("/e\(index).mp4"))  not started")) }
            #expect(status.stderr.contains("4 entries not started; `mediacache resume` fetches them"))

            // `rm` forgets an entry not started, as it does a partial download.
            let removed = try harness.run(["rm", origin.url("/e5.mp4")])
            #expect(removed.status == 0, "\(removed.stderr)")
            #expect(removed.stderr.contains("removed \(origin.url("/e5.mp4")) from the entries `resume` would start"))

            throttled(first, rate: 50_000_000, path: "/first.mp4")
            let resumed = try harness.run(["resume"])
            #expect(resumed.status == 0, "\(resumed.stderr)")
            #expect(resumed.stderr.contains("4 done, 0 failed"), "\(resumed.stderr)")
            #expect(try harness.cachedBytes(origin.url("/first.mp4")) == first)
            for (path, bytes) in rest {
                #expect(try harness.cachedBytes(origin.url(path)) == (path == "/e5.mp4" ? nil : bytes), "\(path)")
            }
            #expect(origin.requests(for: "/e5.mp4").isEmpty)
            let nothing = try harness.run(["resume"])
            #expect(nothing.stderr.contains("nothing to resume"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: harness.scratch.cache + "/runs").isEmpty)
        }

        /// Ctrl-C, then the same command again, as the guide says to resume: the entries
        /// the first run never started are done by the second, and `status` no longer
        /// lists them as not started (it did, until a `resume` cleared them).
        @Test func theSameCommandAgainClearsTheEntriesItDid() throws {
            let first = TestBytes.make(2 << 20, seed: 31)
            throttled(first, rate: 300_000, path: "/first.mp4")
            for index in 2...3 { origin.serve("/e\(index).mp4", Resource(TestBytes.make(50_000, seed: UInt64(31 + index)))) }
            let list = ([origin.url("/first.mp4")] + (2...3).map { origin.url("/e\($0).mp4") }).joined(separator: "\n")
            let run = try harness.startPrefetch(list: list, ["-j", "1"])
            #expect(Harness.waitUntil(timeout: 10) { Harness.bytesServed(origin, "/first.mp4") > 100_000 })
            run.signal(SIGINT)
            #expect(run.wait(timeout: 10).status == 128 + SIGINT)
            #expect(try harness.run(["status"]).stderr.contains("2 entries not started"))

            throttled(first, rate: 50_000_000, path: "/first.mp4")
            let again = try harness.prefetch(list: list, ["-j", "1"])
            #expect(again.status == 0, "\(again.stderr)")
            let status = try harness.run(["status"])
            #expect(!status.stdout.contains("not started") && status.stderr.contains("no interrupted downloads"), "\(status)")
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
            // The origin counts a response's bytes as it writes them: wait until the
            // killed connection's count stops moving (at most 2 s).
            var sent = Int64(Harness.bytesServed(origin, "/movie.mp4"))
            for _ in 0..<10 {
                usleep(200_000)
                let now = Int64(Harness.bytesServed(origin, "/movie.mp4"))
                if now == sent { break }
                sent = now
            }
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

        /// Two or three `prefetch` runs of one list on one cache: each file is fetched and
        /// committed once, the others wait for it, and every run exits 0.
        @Test(arguments: [2, 3])
        func processesOnOneListShareTheWork(count: Int) throws {
            var files = [("/movie.mp4", TestBytes.make(3 << 20, seed: 12))]
            for index in 0..<3 { files.append(("/clip\(index).bin", TestBytes.make(300_000 + index * 150_000, seed: 13 + UInt64(index)))) }
            // About 3 s for the movie on two connections: the other runs (a second or more
            // to start on a busy machine) must find it still downloading.
            var faults = Faults()
            faults.bytesPerSecond = 500_000
            for (path, bytes) in files { origin.serve(path, Resource(bytes, contentType: "video/mp4", faults: faults)) }
            let list = harness.scratch.write("shared.txt", files.map { origin.url($0.0) }.joined(separator: "\n"))
            let args = ["prefetch", list, "--cache-dir", harness.scratch.cache, "-x", "2"]
            let first = try MediaCacheProcess.start(args)
            Harness.waitUntil(timeout: 10) { !origin.requests(for: "/movie.mp4").isEmpty }
            let others = try (1..<count).map { _ in try MediaCacheProcess.start(args) }
            let results = ([first] + others).map { $0.wait(timeout: 60) }
            for result in results { #expect(result.status == 0, "\(result.stderr)") }
            for result in results.dropFirst() {
                #expect(result.stderr.contains("another mediacache process (pid \(first.pid)) is downloading it; waiting"))
            }
            // Each file was committed by exactly one run; the others found it cached.
            let committed = results.map { Self.summaryCount("done", in: $0.stderr) }
            let cached = results.map { Self.summaryCount("already cached", in: $0.stderr) }
            #expect(committed.reduce(0, +) == files.count, "\(results.map(\.stderr))")
            #expect(zip(committed, cached).allSatisfy { $0 + $1 == files.count })
            for (path, bytes) in files {
                #expect(try harness.cachedBytes(origin.url(path)) == bytes)
                #expect(Harness.bytesServed(origin, path) < bytes.count + bytes.count / 10, "\(path) fetched once")
            }
            let verify = try harness.run(["verify"])
            #expect(verify.status == 0 && verify.stdout.hasPrefix("\(files.count) objects verified"), "\(verify.stderr)")
        }

        /// `N <what>` from a run's summary line (`1 done, 0 failed, 3 already cached; …`).
        static func summaryCount(_ what: String, in stderr: String) -> Int {
            guard let line = stderr.split(separator: "\n").last(where: { $0.contains("already cached") }),
                let part = line.split(separator: ";").first?.split(separator: ",").first(where: { $0.hasSuffix(what) })
            else { return -1 }
            return Int(part.trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "") ?? -1
        }

        /// `rm` and `gc` while a prefetch runs: no crash, the download still finishes
        /// exact, the removed objects are gone, and the index stays consistent.
        @Test func rmAndGcWhileAPrefetchRuns() throws {
            let old = (0..<3).map { TestBytes.make(200_000, seed: 80 + UInt64($0)) }
            for (index, bytes) in old.enumerated() { origin.serve("/old\(index).bin", Resource(bytes)) }
            let seeded = try harness.prefetch(list: (0..<3).map { origin.url("/old\($0).bin") }.joined(separator: "\n"))
            try #require(seeded.status == 0, "\(seeded.stderr)")
            let bytes = TestBytes.make(4 << 20, seed: 90)
            throttled(bytes, rate: 500_000)

            let run = try harness.startPrefetch(list: origin.url("/movie.mp4"), ["-x", "4", "--min-fragment", "256K"])
            Harness.waitUntil(timeout: 10) { Harness.bytesServed(origin, "/movie.mp4") > 0 }
            let removed = try harness.run(["rm", origin.url("/old0.bin")])
            #expect(removed.status == 0, "\(removed.stderr)")
            let busy = try harness.run(["rm", origin.url("/movie.mp4")])
            #expect(busy.status == 1, "not cached yet: \(busy.stderr)")
            let evict = try harness.run(["gc", "--max-size", "0"])
            #expect(evict.status == 0, "\(evict.stderr)")
            #expect(run.process.isRunning, "the eviction ran during the download")
            // Orphan cleaning again and again, so one races the commit.
            var rounds = 0
            while run.process.isRunning && rounds < 200 {
                let gc = try harness.run(["gc"])
                #expect(gc.status == 0, "\(gc.stderr)")
                rounds += 1
            }
            let result = run.wait()
            #expect(result.status == 0, "\(result.stderr)")
            #expect(rounds > 1, "gc ran while the download did")
            #expect(try harness.cachedBytes(origin.url("/old0.bin")) == nil)
            #expect(try harness.cachedBytes(origin.url("/old1.bin")) == nil, "evicted by gc --max-size 0")
            #expect(try harness.cachedBytes(origin.url("/movie.mp4")) == bytes)
            let verify = try harness.run(["verify"])
            #expect(verify.status == 0, "\(verify.stderr)")
            #expect(verify.stdout.hasPrefix("1 object verified"), "\(verify.stdout)")
            #expect(!verify.stderr.contains("orphan"), "\(verify.stderr)")
            #expect(harness.scratch.objectFiles.count == 1, "\(harness.scratch.objectFiles)")
        }
    }
}
