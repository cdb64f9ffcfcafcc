import Foundation
import MediaCacheKit
import Testing
import TestOrigin

extension EndToEnd {
    @Suite struct Bundles {
        @Test func roundTripIntoAnEmptyCacheIsByteExact() throws {
            let origin = try TestOrigin()
            let source = Harness()
            let a = TestBytes.make(1_500_000, seed: 1)
            let b = TestBytes.make(90_000, seed: 2)
            let c = TestBytes.make(0, seed: 3)
            origin.serve("/a.mp4", Resource(a, contentType: "video/mp4"))
            origin.serve("/b.m4a", Resource(b, contentType: "audio/mp4"))
            origin.serve("/c.bin", Resource(c, contentType: "application/octet-stream"))
            let list = """
                \(origin.url("/a.mp4"))\t\(origin.url("/a.mp4"))?mirror
                  out=intro.mp4
                \(origin.url("/b.m4a"))?token=s3cr3t-url-token
                  cache-key=catalog/b
                  header=X-Api-Key: s3cr3t-header
                \(origin.url("/c.bin"))
                """
            let fetched = try source.prefetch(list: list, ["-H", "Authorization: Bearer s3cr3t-bearer", "--no-faststart"])
            #expect(fetched.status == 0, "\(fetched.stderr)")

            let bundle = source.scratch.path + "/kiosk.mcbundle"
            let exported = try source.run(["export", bundle])
            #expect(exported.status == 0, "\(exported.stderr)")
            #expect(exported.stderr.contains("exported 3 objects"), "\(exported.stderr)")
            let names = try FileManager.default.contentsOfDirectory(atPath: source.scratch.path)
            #expect(!names.contains { $0.contains(".partial-") }, "no temporary bundle left: \(names)")

            // No header and no token-bearing query reaches the bundle.
            let raw = String(decoding: try Zstd.decompress(Array(try Data(contentsOf: URL(fileURLWithPath: bundle)))), as: UTF8.self)
            for secret in ["s3cr3t-url-token", "s3cr3t-header", "s3cr3t-bearer", "Authorization"] {
                #expect(!raw.contains(secret), "bundle contains \(secret)")
            }
            let members = try TarArchive.members(of: Zstd.decompress(Array(try Data(contentsOf: URL(fileURLWithPath: bundle)))))
            #expect(members.first?.name == "manifest.json")
            #expect(members.dropFirst().allSatisfy { $0.name.hasPrefix("objects/") && $0.kind == .regular })

            let target = Harness()
            let imported = try target.run(["import", bundle])
            #expect(imported.status == 0, "\(imported.stderr)")
            #expect(imported.stderr.contains("3 imported, 0 already cached, 0 rejected"), "\(imported.stderr)")
            for name in [origin.url("/a.mp4"), origin.url("/a.mp4") + "?mirror"] {
                #expect(try target.cachedBytes(name) == a, "\(name)")
            }
            #expect(try target.cachedBytes("catalog/b") == b)
            #expect(try target.cachedBytes(origin.url("/c.bin")) == c)
            for name in [origin.url("/a.mp4"), "catalog/b", origin.url("/c.bin")] {
                let path = try target.run(["path", name]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                #expect(path.hasPrefix(target.scratch.cache + "/objects/"), "\(path)")
            }
            let verify = try target.run(["verify"])
            #expect(verify.status == 0)
            #expect(verify.stdout.hasPrefix("3 objects verified"), "\(verify.stdout)")
        }

        @Test func importingTwiceChangesNothing() throws {
            let fixture = try BundleFixture()
            let first = try fixture.importBundle(fixture.bundle)
            #expect(first.status == 0, "\(first.stderr)")
            let rows = try CacheIndex(directory: CacheDirectory(root: fixture.target.scratch.cache)).all()
            let objects = fixture.target.scratch.objectFiles.sorted()
            let stamps = try objects.map {
                try FileManager.default.attributesOfItem(atPath: fixture.target.scratch.cache + "/objects/" + $0)[.modificationDate] as? Date
            }

            let second = try fixture.importBundle(fixture.bundle, ["--json"])
            #expect(second.status == 0, "\(second.stderr)")
            #expect(second.stderr.contains("0 imported, 3 already cached, 0 rejected"), "\(second.stderr)")
            let events = second.stdout.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            #expect(events.filter { $0["event"] as? String == "already-cached" }.count == 3)
            #expect(fixture.target.scratch.objectFiles.sorted() == objects)
            let after = try objects.map {
                try FileManager.default.attributesOfItem(atPath: fixture.target.scratch.cache + "/objects/" + $0)[.modificationDate] as? Date
            }
            #expect(after == stamps, "no object file was rewritten")
            #expect(try CacheIndex(directory: CacheDirectory(root: fixture.target.scratch.cache)).all() == rows)
            #expect(try fixture.target.run(["verify"]).status == 0)
        }

        @Test func incrementalExportsBySinceAndByManifest() throws {
            let origin = try TestOrigin()
            let source = Harness()
            let old = TestBytes.make(50_000, seed: 5)
            let new = TestBytes.make(60_000, seed: 6)
            origin.serve("/old.mp4", Resource(old, contentType: "video/mp4"))
            origin.serve("/new.mp4", Resource(new, contentType: "video/mp4"))
            #expect(try source.prefetch(list: origin.url("/old.mp4")).status == 0)
            let full = source.scratch.path + "/full.mcbundle"
            #expect(try source.run(["export", full]).status == 0)
            usleep(1_100_000)
            let cutoff = ISO8601DateFormatter().string(from: Date())
            usleep(1_100_000)
            #expect(try source.prefetch(list: origin.url("/new.mp4")).status == 0)

            let sinceBundle = source.scratch.path + "/since.mcbundle"
            let since = try source.run(["export", sinceBundle, "--since", cutoff])
            #expect(since.status == 0, "\(since.stderr)")
            #expect(since.stderr.contains("exported 1 object"), "\(since.stderr)")
            let deltaBundle = source.scratch.path + "/delta.mcbundle"
            let delta = try source.run(["export", deltaBundle, "--exclude-manifest", full])
            #expect(delta.status == 0, "\(delta.stderr)")
            for bundle in [sinceBundle, deltaBundle] {
                let info = try source.run(["bundle-info", bundle])
                #expect(info.stdout.contains(origin.url("/new.mp4")), "\(info.stdout)")
                #expect(!info.stdout.contains(origin.url("/old.mp4")))
            }

            // A machine that has the full bundle catches up with the small one.
            let target = Harness()
            #expect(try target.run(["import", full]).status == 0)
            #expect(try target.cachedBytes(origin.url("/new.mp4")) == nil)
            let caughtUp = try target.run(["import", deltaBundle])
            #expect(caughtUp.status == 0, "\(caughtUp.stderr)")
            #expect(try target.cachedBytes(origin.url("/new.mp4")) == new)
            #expect(try target.cachedBytes(origin.url("/old.mp4")) == old)

            let bad = try source.run(["export", source.scratch.path + "/x.mcbundle", "--since", "last tuesday"])
            #expect(bad.status == 2)
            #expect(bad.stderr.contains("--since expects a date like 2026-03-01"))
        }

        @Test func namedExportAndUnknownNames() throws {
            let fixture = try BundleFixture()
            let one = fixture.source.scratch.path + "/one.mcbundle"
            let result = try fixture.source.run(["export", one, fixture.files[1].url])
            #expect(result.status == 0, "\(result.stderr)")
            let info = try fixture.source.run(["bundle-info", one, "--json"])
            let manifest = try #require(try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any])
            let entries = try #require(manifest["entries"] as? [[String: Any]])
            #expect(entries.map { $0["url"] as? String } == [fixture.files[1].url])
            #expect(entries.first?["sha256"] as? String == BundleFixture.sha256(fixture.files[1].bytes))

            let missing = fixture.source.scratch.path + "/missing.mcbundle"
            let unknown = try fixture.source.run(["export", missing, "https://nowhere.example/x.mp4"])
            #expect(unknown.status == 1)
            #expect(unknown.stderr.contains("not cached: https://nowhere.example/x.mp4; nothing was exported"))
            #expect(!FileManager.default.fileExists(atPath: missing))

            // An earlier bundle is replaced; a file that is no bundle (arguments swapped,
            // a typo) is never overwritten.
            let again = try fixture.source.run(["export", one, fixture.files[0].url])
            #expect(again.status == 0, "\(again.stderr)")
            let precious = fixture.source.scratch.write("film.mp4", "not a bundle")
            let swapped = try fixture.source.run(["export", precious, fixture.files[0].url])
            #expect(swapped.status == 2 && swapped.stderr.contains("is not a mediacache bundle"), "\(swapped.stderr)")
            #expect(try String(contentsOfFile: precious, encoding: .utf8) == "not a bundle")
            // Nor another zstd file (a .tar.zst backup).
            let backup = fixture.source.scratch.path + "/backup.tar.zst"
            let made = try ExternalTool.run("/bin/sh", ["-c", "tar cf - -C '\(fixture.source.scratch.path)' film.mp4 | zstd -q -o '\(backup)'"])
            #expect(made.status == 0, "\(made.stderr)")
            let backupBytes = TestBytes.read(backup)
            let overBackup = try fixture.source.run(["export", backup, fixture.files[0].url])
            #expect(overBackup.status == 2 && overBackup.stderr.contains("without a bundle's manifest"), "\(overBackup.stderr)")
            #expect(TestBytes.read(backup) == backupBytes)
            // Nor a device, a FIFO, a link or standard output (which crashed).
            let fifo = fixture.source.scratch.path + "/fifo"
            #expect(mkfifo(fifo, 0o600) == 0)
            let link = fixture.source.scratch.path + "/link.mcbundle"
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: one)
            for (target, says) in [("/dev/null", "not a regular file"), (fifo, "not a regular file"), (link, "symbolic link"), ("-", "standard output")] {
                let refused = try fixture.source.run(["export", target, fixture.files[0].url], timeout: 20)
                #expect(refused.status == 2 && refused.stderr.contains(says), "\(target): \(refused.status) \(refused.stderr)")
            }
            #expect(FileManager.default.fileExists(atPath: "/dev/null"))
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == one)
        }

        @Test func bundleInfoAndDryRunReadWithoutImporting() throws {
            let fixture = try BundleFixture()
            let info = try fixture.target.run(["bundle-info", fixture.bundle])
            #expect(info.status == 0, "\(info.stderr)")
            #expect(info.stdout.contains("mediacache bundle version 1"))
            #expect(info.stdout.contains("3 objects"))
            for file in fixture.files { #expect(info.stdout.contains(file.url)) }
            // The target cache holds none of them (it has no index yet): "no", not "?".
            #expect(info.stdout.components(separatedBy: "cached: no").count == 4, "\(info.stdout)")

            let dry = try fixture.importBundle(fixture.bundle, ["--dry-run"])
            #expect(dry.status == 0, "\(dry.stderr)")
            #expect(dry.stderr.contains("3 would be imported (verified)"), "\(dry.stderr)")
            #expect(fixture.target.scratch.objectFiles.isEmpty)
            #expect(try fixture.target.cachedBytes(fixture.files[0].url) == nil)

            var members = try fixture.members()
            let index = try #require(members.firstIndex { $0.name == fixture.entryName(1) })
            members[index].data[10] ^= 0xFF
            let tampered = try fixture.write(members)
            let dryTampered = try fixture.importBundle(tampered, ["--dry-run"])
            #expect(dryTampered.status == 1)
            #expect(dryTampered.stderr.contains("SHA-256 mismatch"))
            #expect(fixture.target.scratch.objectFiles.isEmpty)

            let absent = try fixture.target.run(["bundle-info", fixture.target.scratch.path + "/absent.mcbundle"])
            #expect(absent.status == 2)
            let absentImport = try fixture.importBundle(fixture.target.scratch.path + "/absent.mcbundle")
            #expect(absentImport.status == 2)
            #expect(absentImport.stderr.contains("cannot read bundle \(fixture.target.scratch.path)/absent.mcbundle: no such file"))
        }

        /// Stopped while level 19 crawls through incompressible bytes, on one thread or
        /// several (whose compressor holds seconds of work when the last byte is read):
        /// the run ends at once, and nothing of the bundle is left.
        @Test(arguments: [["--threads", "1"], []])
        func interruptedExportLeavesNoFile(threads: [String]) throws {
            let fixture = try BundleFixture(sizes: [24 << 20])
            let bundle = fixture.source.scratch.path + "/slow.mcbundle"
            let run = try MediaCacheProcess.start(
                ["export", bundle, "--level", "19", "--cache-dir", fixture.source.scratch.cache] + threads)
            usleep(700_000)
            run.signal(SIGINT)
            let signalled = Date()
            let result = run.wait(timeout: 30)
            #expect(result.status == 130, "\(result.stderr)")
            #expect(Date().timeIntervalSince(signalled) < 5, "the export went on for \(Date().timeIntervalSince(signalled)) s")
            #expect(result.stderr.contains("export failed: interrupted; temporary files were removed"), "\(result.stderr)")
            let names = try FileManager.default.contentsOfDirectory(atPath: fixture.source.scratch.path)
            #expect(!names.contains { $0.hasPrefix("slow.mcbundle") || $0.hasPrefix(".slow.mcbundle") }, "\(names)")
        }

        @Test func unreadableBundlesAreInputErrorsNamingTheFile() throws {
            let fixture = try BundleFixture(sizes: [20_000])
            let scratch = fixture.target.scratch
            let directory = scratch.path + "/a-directory.mcbundle"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let empty = scratch.write("empty.mcbundle", "")
            let garbage = scratch.writeBytes("garbage.mcbundle", TestBytes.make(5000, seed: 7))
            for path in [directory, empty, garbage] {
                let result = try fixture.importBundle(path)
                #expect(result.status == 2, "\(path): \(result.stderr)")
                #expect(result.stderr.contains(path), "\(result.stderr)")
            }
            for path in [empty, garbage] {
                let result = try fixture.target.run(["bundle-info", path])
                #expect(result.status == 2, "\(path): \(result.stderr)")
                #expect(result.stderr.contains(path), "\(result.stderr)")
            }
            // The good bundle named with a bad one is still imported; the exit code says
            // that an input was unusable.
            let mixed = try fixture.target.run(["import", garbage, fixture.bundle])
            #expect(mixed.status == 2, "\(mixed.stderr)")
            #expect(try fixture.target.cachedBytes(fixture.files[0].url) == fixture.files[0].bytes)
        }

        @Test func quietImportAndVerifyPrintOnlyProblems() throws {
            let fixture = try BundleFixture(sizes: [20_000])
            for flag in ["-q", "--quiet"] {
                let imported = try fixture.importBundle(fixture.bundle, [flag])
                #expect(imported.status == 0, "\(flag): \(imported.stderr)")
                #expect(imported.stdout.isEmpty && imported.stderr.isEmpty, "\(flag): \(imported.stdout) \(imported.stderr)")
                let verified = try fixture.target.run(["verify", flag])
                #expect(verified.status == 0, "\(flag): \(verified.stderr)")
                #expect(verified.stdout.isEmpty && verified.stderr.isEmpty, "\(flag): \(verified.stdout) \(verified.stderr)")
            }
            // Errors and exit codes are unchanged.
            let unknown = try fixture.target.run(["verify", "-q", "https://nowhere.example/x.mp4"])
            #expect(unknown.status == 1)
            #expect(unknown.stderr.contains("bad object https://nowhere.example/x.mp4: not cached"), "\(unknown.stderr)")
            let missing = try fixture.target.run(["import", "-q", fixture.target.scratch.path + "/absent.mcbundle"])
            #expect(missing.status == 2)
            #expect(missing.stderr.contains("absent.mcbundle"))
        }

        /// An object being imported is staged in `partial/import-*`. While the import
        /// lives, `gc` leaves it alone; once the import is killed, `stats` shows it and
        /// `gc` removes it at once (not only a minute later, on the next import).
        @Test func stagedImportFilesAreSeenAndCollectedOnceNoImportHoldsThem() throws {
            let fixture = try BundleFixture(sizes: [4 << 20])
            let bytes = try Data(contentsOf: URL(fileURLWithPath: fixture.bundle))
            let fifo = fixture.target.scratch.path + "/stream.mcbundle"
            try #require(mkfifo(fifo, 0o600) == 0)
            // Read-write: opening does not wait for the reader, and writing never raises SIGPIPE.
            let writer = open(fifo, O_RDWR)
            try #require(writer >= 0)
            defer { close(writer) }
            let run = try MediaCacheProcess.start(["import", fifo, "--cache-dir", fixture.target.scratch.cache])
            // Half the bundle, then nothing: the import waits with its object staged.
            let written = DispatchSemaphore(value: 0)
            let half = bytes.prefix(bytes.count / 2)
            Thread.detachNewThread {
                half.withUnsafeBytes { buffer in
                    var offset = 0
                    while offset < buffer.count {
                        let n = write(writer, buffer.baseAddress! + offset, buffer.count - offset)
                        if n <= 0 { break }
                        offset += n
                    }
                }
                written.signal()
            }
            try #require(written.wait(timeout: .now() + 30) == .success, "the import stopped reading")
            let partial = fixture.target.scratch.cache + "/partial"
            func staged() -> [String] {
                ((try? FileManager.default.contentsOfDirectory(atPath: partial)) ?? []).filter { $0.hasPrefix("import-") }
            }
            func stagedBytes() -> Int64 {
                staged().reduce(0) { $0 + ((try? FileManager.default.attributesOfItem(atPath: partial + "/" + $1)[.size] as? NSNumber)?.int64Value ?? 0) }
            }
            try #require(Harness.waitUntil(timeout: 20) { staged().count == 1 && stagedBytes() >= 1 << 20 }, "\(staged())")

            let whileLive = try fixture.target.run(["gc"])
            #expect(whileLive.status == 0, "\(whileLive.stderr)")
            #expect(staged().count == 1, "a live import keeps its file")
            func stats() throws -> [String: Any] {
                let result = try fixture.target.run(["stats", "--json"])
                return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            }
            #expect(try stats()["staged_imports"] as? Int == 1)
            #expect((try stats()["staged_import_bytes"] as? Int ?? 0) >= 1 << 20)

            run.signal(SIGKILL)
            _ = run.wait()
            try #require(staged().count == 1, "kill -9 leaves the staged file")
            let verify = try fixture.target.run(["verify"])
            #expect(verify.stderr.contains("orphan \(partial)/import-"), "\(verify.stderr)")
            let collected = try fixture.target.run(["gc"])
            #expect(collected.status == 0, "\(collected.stderr)")
            #expect(collected.stderr.contains("1 staged import file"), "\(collected.stderr)")
            #expect(staged().isEmpty, "\(staged())")
            #expect(try stats()["staged_imports"] as? Int == 0)
            #expect(try fixture.target.run(["verify"]).stderr.isEmpty)
        }

        /// `kill -9` in the middle of an import: the cache stays consistent (`verify`
        /// passes, `path` answers only complete objects) and the next import finishes.
        @Test func killedImportLeavesAConsistentCache() throws {
            let fixture = try BundleFixture(sizes: Array(repeating: 6 << 20, count: 8))
            let run = try MediaCacheProcess.start(["import", fixture.bundle, "--cache-dir", fixture.target.scratch.cache])
            Harness.waitUntil(timeout: 30) { fixture.target.scratch.objectFiles.count >= 2 }
            run.signal(SIGKILL)
            _ = run.wait()

            let verify = try fixture.target.run(["verify"])
            #expect(verify.status == 0, "\(verify.stderr)")
            for file in fixture.files {
                let bytes = try fixture.target.cachedBytes(file.url)
                #expect(bytes == nil || bytes == file.bytes, "path answers only complete objects")
            }
            let again = try fixture.importBundle(fixture.bundle)
            #expect(again.status == 0, "\(again.stderr)")
            for file in fixture.files { #expect(try fixture.target.cachedBytes(file.url) == file.bytes) }
            #expect(try fixture.target.run(["verify"]).status == 0)
        }
    }
}

extension BundleFixture {
    static func sha256(_ bytes: [UInt8]) -> String {
        EndToEnd.Prefetch.sha256Hex(bytes)
    }
}
