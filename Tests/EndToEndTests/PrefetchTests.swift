import Foundation
import Testing
import TestOrigin

extension EndToEnd {
    @Suite struct Prefetch {
        @Test func manyFilesAtOnceAreCachedByteExact() throws {
            let origin = try TestOrigin()
            let harness = Harness()
            var files: [(url: String, bytes: [UInt8])] = []
            for index in 0..<24 {
                let bytes = TestBytes.make(50_000 + index * 37_000, seed: UInt64(index))
                origin.serve("/clip\(index).mp4", Resource(bytes, contentType: "video/mp4"))
                files.append((origin.url("/clip\(index).mp4"), bytes))
            }
            let result = try harness.prefetch(
                list: files.map(\.url).joined(separator: "\n"), ["-j", "6", "-x", "3", "--min-fragment", "16K"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("24 done, 0 failed, 0 already cached"))
            for file in files {
                #expect(try harness.cachedBytes(file.url) == file.bytes, "\(file.url)")
            }
            #expect(harness.scratch.objectFiles.count == 24)

            let again = try harness.prefetch(list: files.map(\.url).joined(separator: "\n"))
            #expect(again.status == 0)
            #expect(again.stderr.contains("0 done, 0 failed, 24 already cached"))
        }

        /// A URL spelled another way that names the same resource (the scheme's case, the
        /// default port written out, an empty path, a fragment) is the cached object: no
        /// request goes out, and the cache commands find it by either spelling.
        @Test func anotherSpellingOfACachedURLIsTheSameObject() throws {
            let origin = try TestOrigin()
            let harness = Harness()
            let bytes = TestBytes.make(90_000, seed: 3)
            origin.serve("/Clip.mp4", Resource(bytes, contentType: "video/mp4"))
            origin.serve("/", Resource(bytes, contentType: "video/mp4"))
            let url = origin.url("/Clip.mp4")
            let root = String(origin.url("/").dropLast())
            #expect(try harness.prefetch(list: url + "\n" + root).status == 0)
            #expect(origin.requests.count == 2)
            let spelled = "HTTP" + url.dropFirst(4)
            let again = try harness.prefetch(list: spelled + "\n" + origin.url("/") + "#t=3")
            #expect(again.status == 0 && again.stderr.contains("0 done, 0 failed, 2 already cached"), "\(again.stderr)")
            #expect(origin.requests.count == 2)
            let path = try harness.run(["path", url]).stdout
            let spelledPath = try harness.run(["path", spelled]).stdout
            #expect(!path.isEmpty && spelledPath == path)
            // The path's case is the resource's own: another case is another file.
            let other = try harness.prefetch(list: origin.url("/clip.mp4"))
            #expect(other.status == 1 && origin.requests(for: "/clip.mp4").count == 1, "\(other.stderr)")
        }

        @Test func bigFileIsFetchedOverConcurrentRanges() throws {
            let origin = try TestOrigin()
            let harness = Harness()
            let bytes = TestBytes.make(6 << 20, seed: 7)
            var faults = Faults()
            faults.bytesPerSecond = 2_000_000
            origin.serve("/big.mov", Resource(bytes, contentType: "video/quicktime", faults: faults))
            let run = try harness.startPrefetch(list: origin.url("/big.mov"), ["-x", "4", "--min-fragment", "256K"])
            var mostAtOnce = 0
            while run.process.isRunning {
                let open = origin.requests(for: "/big.mov").filter { !$0.finished && $0.range != nil }
                mostAtOnce = max(mostAtOnce, Set(open.map(\.connectionID)).count)
                usleep(20_000)
            }
            let result = run.wait()
            #expect(result.status == 0, "\(result.stderr)")
            #expect(mostAtOnce >= 2, "ranges in flight at once: \(mostAtOnce)")
            let starts = Set(origin.requests(for: "/big.mov").compactMap { $0.range?.lowerBound })
            #expect(starts.count >= 4, "distinct range starts: \(starts.sorted())")
            #expect(try harness.cachedBytes(origin.url("/big.mov")) == bytes)
            // Every byte arrived once: no range was fetched twice.
            #expect(Harness.bytesServed(origin, "/big.mov") < bytes.count + bytes.count / 20)
        }

        @Test func badListLinesAreReportedAndValidEntriesStillRun() throws {
            let origin = try TestOrigin()
            let harness = Harness()
            let bytes = TestBytes.make(100_000, seed: 3)
            origin.serve("/ok.m4a", Resource(bytes, contentType: "audio/mp4"))
            let list = """
                \u{FEFF}# a comment\r
                ftp://example.invalid/file.mp4\r
                  out=never.mp4\r
                \(origin.url("/ok.m4a"))\r
                  out=song.m4a\r
                  split=4\r
                  checksum=sha-256=zz\r
                \(origin.url("/ok.m4a"))?second\r
                """
            let result = try harness.prefetch(list: list)
            #expect(result.status == 1)
            #expect(result.stderr.contains("list.txt:2: unsupported scheme 'ftp'"))
            #expect(result.stderr.contains("list.txt:6: warning: unknown option 'split' ignored"))
            #expect(result.stderr.contains("list.txt:7: sha-256 digest must be 64 hex digits"))
            // The entry with the bad checksum is skipped; the one after it is fetched.
            #expect(try harness.cachedBytes(origin.url("/ok.m4a") + "?second") == bytes)
            #expect(try harness.cachedBytes(origin.url("/ok.m4a")) == nil)
        }

        @Test func urlsOnTheCommandLineMixWithListsAndInputFiles() throws {
            let origin = try TestOrigin()
            let harness = Harness()
            var bytes: [String: [UInt8]] = [:]
            for (index, name) in ["a", "b", "c", "d"].enumerated() {
                bytes[name] = TestBytes.make(90_000 + index * 1_000, seed: UInt64(40 + index))
                origin.serve("/\(name).mp4", Resource(bytes[name]!, contentType: "video/mp4"))
            }
            let listC = harness.scratch.write("c.txt", origin.url("/c.mp4") + "\n")
            let listD = harness.scratch.write("d.txt", origin.url("/d.mp4") + "\n")
            let result = try harness.run(["prefetch", origin.url("/a.mp4"), listC, "-i", listD, origin.url("/b.mp4")])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("4 done, 0 failed, 0 already cached"), "\(result.stderr)")
            for name in ["a", "b", "c", "d"] {
                #expect(try harness.cachedBytes(origin.url("/\(name).mp4")) == bytes[name], "\(name)")
            }
        }

        /// Not on a terminal (a log, CI), a progress line comes every --summary-interval
        /// seconds with the run's totals; -q leaves it out.
        @Test func aLogGetsASummaryLineAtAnInterval() throws {
            let origin = try TestOrigin()
            let harness = Harness()
            var faults = Faults()
            faults.bytesPerSecond = 400_000
            origin.serve("/slow.mp4", Resource(TestBytes.make(1_200_000, seed: 71), contentType: "video/mp4", faults: faults))
            origin.serve("/quick.mp4", Resource(TestBytes.make(20_000, seed: 72), contentType: "video/mp4"))
            let list = origin.url("/quick.mp4") + "\n" + origin.url("/slow.mp4") + "\n"
            let result = try harness.prefetch(list: list, ["--summary-interval", "1", "-x", "1"])
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("progress ") }
            #expect(lines.count >= 1, "\(result.stderr)")
            #expect(lines.contains { $0.hasPrefix("progress 1 active, 1 of 2 files done, ") }, "\(lines)")
            let quiet = try harness.prefetch(list: list.replacingOccurrences(of: ".mp4", with: ".mp4?q"), ["--summary-interval", "1", "-q"])
            #expect(quiet.status == 0)
            #expect(!quiet.stderr.contains("progress "))
        }

        @Test func aWordThatIsNeitherAURLNorAFileIsAUsageErrorBeforeAnythingIsFetched() throws {
            let origin = try TestOrigin()
            let harness = Harness()
            origin.serve("/a.mp4", Resource(TestBytes.make(10_000, seed: 1), contentType: "video/mp4"))
            let result = try harness.run(["prefetch", origin.url("/a.mp4"), "example.com/clip.mp4"])
            #expect(result.status == 2)
            #expect(result.stderr.contains(
                "example.com/clip.mp4 is neither a URL nor a list file: no file has that name, and a URL starts "
                    + "with http:// or https:// (for a URL, write https://example.com/clip.mp4)"), "\(result.stderr)")
            let badScheme = try harness.run(["prefetch", "ftp://127.0.0.1/a.mp4"])
            #expect(badScheme.status == 2)
            #expect(badScheme.stderr.contains("unsupported scheme 'ftp'"), "\(badScheme.stderr)")
            // A pasted name with a space: the space is what to fix, not a mirror.
            let spaced = try harness.run(["prefetch", origin.url("/a b.mp4")])
            #expect(spaced.status == 2)
            #expect(spaced.stderr.contains("a URL cannot hold a space: write it as %20"), "\(spaced.stderr)")
            #expect(spaced.stderr.components(separatedBy: "%20").count == 2, "the advice is given once: \(spaced.stderr)")
            #expect(spaced.stderr.contains("Usage: mediacache prefetch"), "\(spaced.stderr)")
            // A mistyped option is named as such, not its value as a word that is no URL.
            let mistyped = try harness.run(["prefetch", "--cache-dri", harness.scratch.path, origin.url("/a.mp4")])
            #expect(mistyped.status == 2)
            #expect(mistyped.stderr.contains("Unknown option '--cache-dri'. Did you mean '--cache-dir'?"), "\(mistyped.stderr)")
            #expect(origin.requests(for: "/a.mp4").isEmpty)
        }

        @Test func unreadableListIsAUsageError() throws {
            let harness = Harness()
            let missing = harness.scratch.path + "/missing.txt"
            let result = try harness.run(["prefetch", "-i", missing])
            #expect(result.status == 2)
            #expect(result.stderr.contains("cannot read list \(missing): no such file"))
            let asArgument = try harness.run(["prefetch", missing])
            #expect(asArgument.status == 2)
            #expect(asArgument.stderr.contains("\(missing) is neither a URL nor a list file: no file has that name"))
        }

        @Test func listFromStandardInputWithMirrorsAndCacheKey() throws {
            let origin = try TestOrigin()
            let harness = Harness()
            let bytes = TestBytes.make(300_000, seed: 11)
            origin.serve("/v.mp4", Resource(bytes, contentType: "video/mp4"))
            let list = "\(origin.url("/v.mp4"))?token=1\t\(origin.url("/v.mp4"))?mirror\n  cache-key=catalog/v\n"
            let result = try MediaCacheProcess.run(
                ["prefetch", "-", "--cache-dir", harness.scratch.cache], stdin: list)
            #expect(result.status == 0, "\(result.stderr)")
            for name in ["catalog/v", origin.url("/v.mp4") + "?token=1", origin.url("/v.mp4") + "?mirror"] {
                #expect(try harness.cachedBytes(name) == bytes, "path \(name)")
            }
            #expect(try harness.cachedBytes(origin.url("/v.mp4")) == nil)
        }

        @Test func matchingChecksumCommitsAndMismatchCachesNothing() throws {
            let origin = try TestOrigin()
            let harness = Harness()
            let bytes = Array("hello media\n".utf8) + TestBytes.make(200_000, seed: 5)
            origin.serve("/good.mp4", Resource(bytes, contentType: "video/mp4"))
            origin.serve("/bad.mp4", Resource(bytes, contentType: "video/mp4"))
            let sha = Self.sha256Hex(bytes)
            let wrong = String(repeating: "0", count: 64)
            let list = """
                \(origin.url("/good.mp4"))
                  checksum=sha-256=\(sha)
                \(origin.url("/bad.mp4"))
                  checksum=sha-256=\(wrong)
                """
            let result = try harness.prefetch(list: list)
            #expect(result.status == 1)
            #expect(result.stderr.contains("checksum mismatch: the list says sha-256=\(wrong), the origin sent sha-256=\(sha)"))
            #expect(try harness.cachedBytes(origin.url("/good.mp4")) == bytes)
            let path = try harness.run(["path", origin.url("/bad.mp4")])
            #expect(path.status == 1)
            #expect(path.stderr.contains("not cached: \(origin.url("/bad.mp4"))"))
            #expect(harness.scratch.objectFiles.count == 1)
            #expect(try harness.resumableURLs().isEmpty, "nothing of the bad file is kept")
        }

        /// A list's checksum holds for a file cached already: cached bytes that have it
        /// count as cached (nothing fetched), others (the origin changed since, or the
        /// object was written in place) are fetched again and checked, and a checksum no
        /// bytes of the origin have fails the entry, as on an empty cache.
        @Test func aChecksumIsCheckedAgainstTheCachedFileToo() throws {
            let origin = try TestOrigin()
            let harness = Harness()
            let old = TestBytes.make(100_000, seed: 7)
            let new = TestBytes.make(100_000, seed: 8)
            origin.serve("/f.bin", Resource(old))
            #expect(try harness.run(["prefetch", origin.url("/f.bin")]).status == 0)
            origin.serve("/f.bin", Resource(new))
            let listed = { (bytes: [UInt8]) in origin.url("/f.bin") + "\n  checksum=sha-256=\(Self.sha256Hex(bytes))\n" }

            let same = try harness.prefetch(list: listed(old))
            #expect(same.status == 0, "\(same.stderr)")
            #expect(same.stderr.contains("1 already cached"), "\(same.stderr)")
            #expect(Harness.bytesServed(origin, "/f.bin") == old.count, "fetched again though the cached bytes match")

            let changed = try harness.prefetch(list: listed(new))
            #expect(changed.status == 0, "\(changed.stderr)")
            #expect(changed.stderr.contains("the cached copy does not have the list's checksum; fetching it again"),
                "\(changed.stderr)")
            #expect(try harness.cachedBytes(origin.url("/f.bin")) == new)

            let wrong = try harness.prefetch(list: origin.url("/f.bin") + "\n  checksum=sha-256=\(String(repeating: "0", count: 64))\n")
            #expect(wrong.status == 1, "\(wrong.stderr)")
            #expect(wrong.stderr.contains("checksum mismatch"), "\(wrong.stderr)")
            #expect(try harness.cachedBytes(origin.url("/f.bin")) == new, "a failed check leaves the cached object as it was")
        }

        /// With --json, each bad list line is an event naming its file, line and reason (the
        /// first entry's lines too), besides its line on stderr.
        @Test func badListLinesAreJSONEvents() throws {
            let origin = try TestOrigin()
            let harness = Harness()
            origin.serve("/a.mp4", Resource(TestBytes.make(10_000, seed: 3), contentType: "video/mp4"))
            let list = "  out=orphan.mp4\n\(origin.url("/a.mp4"))\n  bogus\n"
            let result = try harness.prefetch(list: list, ["--json"])
            #expect(result.status == 1, "\(result.stderr)")
            let problems = result.stdout.split(separator: "\n").compactMap { line -> [String: Any]? in
                let event = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                return event?["event"] as? String == "list_problem" ? event : nil
            }
            #expect(problems.map { $0["line"] as? Int } == [1, 3], "\(result.stdout)")
            #expect(problems.allSatisfy { ($0["file"] as? String)?.hasSuffix("list.txt") == true && $0["severity"] as? String == "error" })
            #expect((problems.first?["message"] as? String)?.contains("no URL line above it") == true, "\(problems)")
            #expect(result.stderr.contains("list.txt:3: expected key=value, got 'bogus'"), "\(result.stderr)")
        }

        @Test func jsonEventsAreNDJSONInOrder() throws {
            let origin = try TestOrigin()
            let harness = Harness()
            origin.serve("/a.mp4", Resource(TestBytes.make(400_000, seed: 1), contentType: "video/mp4"))
            origin.serve("/missing.mp4", Resource([1], contentType: "video/mp4"))
            origin.remove("/missing.mp4")
            let result = try harness.prefetch(
                list: origin.url("/a.mp4") + "\n" + origin.url("/missing.mp4"), ["--json", "-j", "1"])
            #expect(result.status == 1)
            let events = result.stdout.split(separator: "\n").map { line -> [String: Any] in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]) ?? [:]
            }
            #expect(events.allSatisfy { !$0.isEmpty }, "every stdout line is a JSON object")
            let kinds = events.compactMap { $0["event"] as? String }
            #expect(kinds.first == "started")
            #expect(kinds.firstIndex(of: "verified")! < kinds.firstIndex(of: "committed")!)
            let failed = try #require(events.first { $0["event"] as? String == "failed" })
            #expect(failed["code"] as? String == "http-status")
            #expect((failed["reason"] as? String)?.hasPrefix("HTTP 404 Not Found; check the URL") == true)
            #expect(kinds.last == "summary")
        }

        static func sha256Hex(_ bytes: [UInt8]) -> String {
            let file = NSTemporaryDirectory() + "sha-\(UUID().uuidString)"
            FileManager.default.createFile(atPath: file, contents: Data(bytes))
            defer { try? FileManager.default.removeItem(atPath: file) }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
            process.arguments = [file]
            let pipe = Pipe()
            process.standardOutput = pipe
            try? process.run()
            process.waitUntilExit()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            return String(output.prefix(64))
        }
    }
}

extension EndToEnd.Prefetch {
    @Test func badOptionIsAUsageErrorWithExitTwo() throws {
        let harness = Harness()
        let list = harness.scratch.write("l.txt", "http://127.0.0.1:9/a.mp4\n")
        let result = try harness.run(["prefetch", list, "-x", "0"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--connections must be between 1 and 32"))
        let header = try harness.run(["prefetch", list, "-H", "no colon here"])
        #expect(header.status == 2)
        #expect(header.stderr.contains("-H expects 'Name: value'"))
    }

    @Test func versionNamesTheLibrariesItRunsWith() throws {
        let result = try MediaCacheProcess.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("mediacache "))
        #expect(result.stdout.contains("libcurl/"))
        #expect(result.stdout.contains("libarchive "))
        let short = try MediaCacheProcess.run(["-V"])
        #expect(short.status == 0)
        #expect(short.stdout == result.stdout)
    }

    /// `--cache-dir`, `-q` and `--json` may come before the command's name, as in git.
    @Test func optionsEveryCommandTakesMayComeBeforeItsName() throws {
        let origin = try TestOrigin()
        let harness = Harness()
        let bytes = TestBytes.make(40_000, seed: 8)
        origin.serve("/a.mp4", Resource(bytes, contentType: "video/mp4"))
        let cache = harness.scratch.cache
        let fetched = try MediaCacheProcess.run(["--cache-dir", cache, "-q", "prefetch", origin.url("/a.mp4")])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(!fetched.stderr.contains("done     a.mp4"), "-q before the command is -q")
        let path = try MediaCacheProcess.run(["--cache-dir=\(cache)", "path", origin.url("/a.mp4")])
        #expect(path.status == 0, "\(path.stderr)")
        #expect(TestBytes.read(path.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) == bytes)
        let status = try MediaCacheProcess.run(["--cache-dir", cache, "status"])
        #expect(status.status == 0)
        #expect(status.stderr.contains("no interrupted downloads in \(cache)"))
        // An option no command takes is still refused, by name.
        let unknown = try MediaCacheProcess.run(["--frobnicate", "status"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("--frobnicate"))
        // ... also with nothing else given.
        let bare = try MediaCacheProcess.run(["prefetch", "--bogus"])
        #expect(bare.status == 2 && bare.stderr.contains("Unknown option '--bogus'"), "\(bare.stderr)")
        // A list named twice is read once, not warned of line by line as its own duplicate.
        let list = harness.scratch.write("twice.txt", origin.url("/a.mp4"))
        let twice = try MediaCacheProcess.run(["prefetch", list, list, "--cache-dir", cache])
        #expect(twice.status == 0 && !twice.stderr.contains("duplicate"), "\(twice.stderr)")
    }

    /// The long help lives in topics: `mediacache help list-format` and the others.
    @Test func helpTopicsPrintOneSectionOfTheManual() throws {
        let list = try MediaCacheProcess.run(["help", "list-format"])
        #expect(list.status == 0)
        #expect(list.stdout.hasPrefix("LIST FORMAT\n"))
        #expect(list.stdout.contains("cache-key=KEY"))
        let exit = try MediaCacheProcess.run(["help", "exit-status"])
        #expect(exit.stdout.hasPrefix("EXIT STATUS\n"))
        // A command's name still gives that command's help.
        let prefetch = try MediaCacheProcess.run(["help", "prefetch"])
        #expect(prefetch.status == 0)
        #expect(prefetch.stdout.contains("-i, --input-file <list>"))
        // Neither a topic nor a command: said, not answered with the general help.
        let bogus = try MediaCacheProcess.run(["help", "bogus"])
        #expect(bogus.status == 2 && bogus.stdout.isEmpty, "\(bogus.stdout)")
        #expect(bogus.stderr.contains("no command or help topic 'bogus'; topics: list-format, titles"), "\(bogus.stderr)")
    }
}
