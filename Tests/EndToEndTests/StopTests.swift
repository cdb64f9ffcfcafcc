import Foundation
import Testing
import TestOrigin

extension EndToEnd {
    /// Ways a run is stopped from outside besides Ctrl-C and SIGTERM (ResumeTests): the
    /// terminal hanging up, and the reader of `--json` going away.
    @Suite struct Stop {
        let origin: TestOrigin
        let harness = Harness()

        init() throws { origin = try TestOrigin() }

        func serveSlowly(_ bytes: [UInt8]) {
            var faults = Faults()
            faults.bytesPerSecond = 1_000_000
            origin.serve("/movie.mp4", Resource(bytes, contentType: "video/mp4", faults: faults))
        }

        /// SIGHUP (terminal closed, ssh dropped) stops like SIGTERM: progress saved, the
        /// NDJSON stream ends with its summary, exit 129, and `resume` finishes the file.
        @Test func hangupSavesProgressEndsTheEventStreamAndResumes() throws {
            let bytes = TestBytes.make(8 << 20, seed: 12)
            serveSlowly(bytes)
            let run = try harness.startPrefetch(list: origin.url("/movie.mp4"), ["-x", "2", "--min-fragment", "512K", "--json"])
            let saved = Harness.waitUntil(timeout: 15) { ((try? harness.savedBytes()) ?? 0) > 0 }
            run.signal(SIGHUP)
            let result = run.wait(timeout: 10)
            #expect(saved)
            #expect(result.status == 129, "\(result.stderr)")
            #expect(result.stderr.contains("progress is saved"), "\(result.stderr)")
            let stream = EventStream(result.stdout)
            #expect(stream.isValid, "\(result.stdout)")
            #expect(stream.last?["event"] as? String == "summary", "\(result.stdout)")
            #expect(stream.last?["interrupted"] as? Bool == true)
            #expect(try harness.savedBytes() > 0)

            origin.serve("/movie.mp4", Resource(bytes, contentType: "video/mp4"))
            let resumed = try harness.run(["resume"])
            #expect(resumed.status == 0, "\(resumed.stderr)")
            #expect(try harness.cachedBytes(origin.url("/movie.mp4")) == bytes)
        }

        /// SIGHUP during `import` removes the temporary file like SIGTERM does.
        @Test func hangupDuringImportRemovesTemporaryFiles() throws {
            let fixture = try BundleFixture(sizes: Array(repeating: 6 << 20, count: 8))
            let run = try MediaCacheProcess.start(["import", fixture.bundle, "--cache-dir", fixture.target.scratch.cache])
            let partial = fixture.target.scratch.cache + "/partial"
            Harness.waitUntil(timeout: 30) {
                ((try? FileManager.default.contentsOfDirectory(atPath: partial)) ?? []).contains { $0.hasPrefix("import-") }
            }
            run.signal(SIGHUP)
            let result = run.wait(timeout: 30)
            #expect(result.status == 129, "\(result.stderr)")
            #expect(result.stderr.contains("interrupted"), "\(result.stderr)")
            let left = (try? FileManager.default.contentsOfDirectory(atPath: partial)) ?? []
            #expect(!left.contains { $0.hasPrefix("import-") }, "\(left)")
            #expect(try fixture.target.run(["verify"]).status == 0)
        }

        /// `mediacache prefetch --json list | head -1`: the reader leaves after one line.
        /// The run stops as if interrupted, keeps its progress, says so on stderr and
        /// exits 141 (128 + SIGPIPE) itself instead of being killed by the signal.
        @Test func closedJSONReaderStopsTheRunAndKeepsProgress() throws {
            let bytes = TestBytes.make(8 << 20, seed: 13)
            serveSlowly(bytes)
            let list = harness.scratch.write("list.txt", origin.url("/movie.mp4"))
            let process = Process()
            process.executableURL = URL(fileURLWithPath: MediaCacheProcess.binary)
            // Not through MediaCacheProcess: --no-config keeps a developer's config out.
            process.arguments = [
                "prefetch", list, "--cache-dir", harness.scratch.cache, "-x", "2", "--min-fragment", "512K", "--json",
                "--no-config",
            ]
            let out = Pipe()
            let err = Pipe()
            process.standardOutput = out
            process.standardError = err
            let errText = MediaCacheProcess.Collector()
            errText.drain(err.fileHandleForReading)
            try process.run()
            // Read the first line (`started`), wait until progress is saved, then go away.
            var first = Data()
            while !first.contains(UInt8(ascii: "\n")) {
                let chunk = out.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                first.append(chunk)
            }
            let saved = Harness.waitUntil(timeout: 15) { ((try? harness.savedBytes()) ?? 0) > 0 }
            try out.fileHandleForReading.close()
            let deadline = Date().addingTimeInterval(15)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            let stderr = errText.finish()

            #expect(saved)
            #expect(String(decoding: first, as: UTF8.self).contains("\"event\":\"started\""))
            #expect(process.terminationReason == .exit, "killed by signal \(process.terminationStatus)")
            #expect(process.terminationStatus == 141, "\(stderr)")
            #expect(stderr.contains("standard output was closed"), "\(stderr)")
            #expect(stderr.contains("progress is saved"), "\(stderr)")
            #expect(try harness.savedBytes() > 0)
            #expect(try harness.run(["status"]).stdout.contains(origin.url("/movie.mp4")))
        }
    }
}
