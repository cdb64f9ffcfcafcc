import Foundation
import Testing
import TestOrigin

extension EndToEnd {
    /// `prefetch -d DIR` and `dir=`: each finished file also appears as DIR/NAME, whole,
    /// never over another file; the cache keeps the object.
    @Suite struct Placement {
        let origin: TestOrigin
        let harness = Harness()

        init() throws { origin = try TestOrigin() }

        static func inode(_ path: String) -> UInt64? {
            (try? FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? NSNumber)?.uint64Value
        }

        /// A streaming title appears as a folder named by its URL, holding its playlists
        /// and members (hard links), and plays from there with the origin gone; a second
        /// run finds it there.
        @Test func aTitleAppearsAsAFolderThatPlaysOffline() throws {
            let title = try TitleFixture.hlsTS.make()
            try Titles.serve(title, on: origin)
            let url = origin.url("/t/" + title.entry)
            let folder = harness.scratch.path + "/Videos"
            let result = try harness.prefetch(list: url, ["-d", folder])
            #expect(result.status == 0, "\(result.stderr)")
            let placed = folder + "/t/index.m3u8"
            #expect(result.stderr.contains("saved    \(placed)"), "\(result.stderr)")
            origin.stop()
            let play = try ExternalTool.run(
                "/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-xerror", "-i", placed, "-map", "0", "-c", "copy", "-f", "framemd5", "-"],
                timeout: 60)
            #expect(play.status == 0, "\(play.stderr)")
            #expect(play.stdout == (try TitleFixtures.fingerprint(title)))
            let cached = try harness.run(["path", url]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(Self.inode(cached) != nil && Self.inode(cached) == Self.inode(placed))
            let again = try harness.prefetch(list: url, ["-d", folder])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stderr.contains("saved    \(placed) (already there)"), "\(again.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["t"])
        }

        /// Copied to another file system, an encrypted title's key stays its owner's
        /// alone (it decrypts the title); its segments may be read by anyone.
        @Test func aCopiedTitleKeepsItsKeyPrivate() throws {
            let title = try TitleFixture.hlsAES.make()
            try Titles.serve(title, on: origin)
            let shm = "/dev/shm/mediacache-placement-" + UUID().uuidString.prefix(8)
            defer { try? FileManager.default.removeItem(atPath: shm) }
            let result = try harness.prefetch(list: origin.url("/t/" + title.entry), ["-d", shm])
            #expect(result.status == 0, "\(result.stderr)")
            let files = try FileManager.default.subpathsOfDirectory(atPath: shm + "/t")
            func mode(_ file: String) -> Int? {
                (try? FileManager.default.attributesOfItem(atPath: shm + "/t/" + file)[.posixPermissions] as? NSNumber)?.intValue
            }
            let keys = files.filter { $0.hasSuffix(".key.ts") }
            let segments = files.filter { $0.hasSuffix(".ts") && !$0.hasSuffix(".key.ts") }
            #expect(!keys.isEmpty && !segments.isEmpty, "\(files)")
            #expect(keys.allSatisfy { mode($0) == 0o600 }, "\(keys.map { ($0, mode($0)) })")
            #expect(segments.allSatisfy { mode($0) == 0o644 })
        }

        @Test func filesAppearInTheFolderAsHardLinksNamedByOutOrTheURL() throws {
            let clip = TestBytes.make(120_000, seed: 61)
            let episode = TestBytes.make(90_000, seed: 62)
            origin.serve("/media/clip.mp4", Resource(clip, contentType: "video/mp4"))
            origin.serve("/watch/6", Resource(episode, contentType: "video/mp4"))
            let folder = harness.scratch.path + "/Videos/new"
            let list = "\(origin.url("/media/clip.mp4"))\n\(origin.url("/watch/6"))\n  out=Episode 6.mp4\n"
                + "\(origin.url("/watch/7"))\n  out=Season 1/Episode 7.mp4\n"
            origin.serve("/watch/7", Resource(episode, contentType: "video/mp4"))
            let result = try harness.prefetch(list: list, ["-d", folder])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("saved    \(folder)/clip.mp4"), "\(result.stderr)")
            #expect(TestBytes.read(folder + "/clip.mp4") == clip)
            #expect(TestBytes.read(folder + "/Episode 6.mp4") == episode)
            // Folders in out= are made inside the folder, as aria2 makes them.
            #expect(TestBytes.read(folder + "/Season 1/Episode 7.mp4") == episode)
            // Same file system: the cached object itself, no second copy on disk.
            let cached = try harness.run(["path", origin.url("/media/clip.mp4")]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(Self.inode(cached) != nil && Self.inode(cached) == Self.inode(folder + "/clip.mp4"))
            // Read-only: writing the user's file in place would change the cached object.
            let mode = (try FileManager.default.attributesOfItem(atPath: folder + "/clip.mp4")[.posixPermissions] as? NSNumber)?
                .intValue
            #expect(mode == 0o444)

            // The name `ls` shows is the name the run's lines showed, and a name `path`
            // and `info` take: out=, else the whole URL (never a bare "clip.mp4" that
            // forty objects could share).
            let listed = try harness.run(["ls"]).stdout
            #expect(listed.contains("Episode 6.mp4") && listed.contains(origin.url("/media/clip.mp4")), "\(listed)")
            #expect(result.stderr.contains("done     Episode 6.mp4"), "\(result.stderr)")
            #expect(result.stderr.contains("done     \(origin.url("/media/clip.mp4"))"), "\(result.stderr)")
            let byName = try harness.run(["path", "Episode 6.mp4"])
            #expect(byName.status == 0, "\(byName.stderr)")
            #expect(TestBytes.read(byName.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) == episode)
            #expect(try harness.run(["info", "Episode 6.mp4"]).stdout.contains(origin.url("/watch/6")))

            // Again: the files are there already; nothing is renamed or doubled.
            let again = try harness.prefetch(list: list, ["-d", folder])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stderr.contains("saved    \(folder)/clip.mp4 (already there)"), "\(again.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["Episode 6.mp4", "Season 1", "clip.mp4"])

            // `rm` forgets the object; the user's file stays.
            #expect(try harness.run(["rm", origin.url("/media/clip.mp4")]).status == 0)
            #expect(TestBytes.read(folder + "/clip.mp4") == clip)
        }

        /// A file the origin names (`Content-Disposition`, as aria2 reads it) gets that
        /// name in the folder, from the cache too (a later run); `out=` still wins.
        @Test func theOriginsNameForAFileIsItsNameInTheFolder() throws {
            let bytes = TestBytes.make(50_000, seed: 65)
            var resource = Resource(bytes, contentType: "video/mp4")
            resource.contentDisposition = #"attachment; filename="Episode 7.mp4"; filename*=UTF-8''%C3%89pisode%207.mp4"#
            origin.serve("/download", resource)
            let url = origin.url("/download?id=7")
            let folder = harness.scratch.path + "/Videos"
            let result = try harness.prefetch(list: url, ["-d", folder])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(TestBytes.read(folder + "/Épisode 7.mp4") == bytes, "\(result.stderr)")
            let later = try harness.prefetch(list: url, ["-d", folder + "/later"])
            #expect(later.status == 0, "\(later.stderr)")
            #expect(TestBytes.read(folder + "/later/Épisode 7.mp4") == bytes, "\(later.stderr)")
            #expect(try harness.run(["info", url]).stdout.contains("Épisode 7.mp4"))
            let named = try harness.prefetch(list: url + "\n  out=Mine.mp4\n", ["-d", folder + "/named"])
            #expect(named.status == 0, "\(named.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/named") == ["Mine.mp4"])
        }

        /// One URL listed twice under two names (or folders), as aria2 takes it: fetched
        /// once, put in both places.
        @Test func aURLListedUnderTwoNamesIsFetchedOnceAndPutInBoth() throws {
            let bytes = TestBytes.make(80_000, seed: 66)
            origin.serve("/same.mp4", Resource(bytes, contentType: "video/mp4"))
            let url = origin.url("/same.mp4")
            let folder = harness.scratch.path + "/Videos"
            let list = "\(url)\n  out=one.mp4\n\(url)\n  out=two.mp4\n\(url)\n  dir=\(folder)/other\n"
            let result = try harness.prefetch(list: list, ["-d", folder])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!result.stderr.contains("duplicate"), "\(result.stderr)")
            #expect(TestBytes.read(folder + "/one.mp4") == bytes && TestBytes.read(folder + "/two.mp4") == bytes)
            #expect(TestBytes.read(folder + "/other/same.mp4") == bytes)
            #expect(Harness.bytesServed(origin, "/same.mp4") == bytes.count, "fetched more than once")
        }

        /// `-o FILE`, as curl's: the one URL's file appears at FILE (relative
        /// to -d when given), found there again by the next run; -o names one file only.
        @Test func dashONamesTheOneFilesPath() throws {
            let bytes = TestBytes.make(40_000, seed: 68)
            origin.serve("/v/x.mp4", Resource(bytes, contentType: "video/mp4"))
            let folder = harness.scratch.path + "/Films"
            let placed = folder + "/2024/Movie.mp4"
            let result = try harness.run(["prefetch", origin.url("/v/x.mp4"), "-d", folder, "-o", "2024/Movie.mp4"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(TestBytes.read(placed) == bytes)
            #expect(result.stderr.contains("saved    \(placed)"), "\(result.stderr)")
            let again = try harness.run(["prefetch", origin.url("/v/x.mp4"), "-d", folder, "-o", "2024/Movie.mp4"])
            #expect(again.stderr.contains("saved    \(placed) (already there)"), "\(again.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/2024") == ["Movie.mp4"])

            let elsewhere = harness.scratch.path + "/elsewhere/m.mp4"
            #expect(try harness.run(["prefetch", "-o", elsewhere, origin.url("/v/x.mp4")]).status == 0)
            #expect(TestBytes.read(elsewhere) == bytes)

            let two = try harness.run(["prefetch", "-o", elsewhere, origin.url("/v/x.mp4"), origin.url("/v/y.mp4")])
            #expect(two.status == 2)
            #expect(two.stderr.contains("-o names one file: give one URL with it"), "\(two.stderr)")
        }

        /// A script's next step reads what `-o FILE` names: a file already there (an older
        /// download, a file of another name's run) is replaced, as curl's `-o` replaces it,
        /// in one rename; a folder is never replaced.
        @Test func dashOReplacesAFileAlreadyThere() throws {
            let bytes = TestBytes.make(30_000, seed: 69)
            origin.serve("/v/new.mp4", Resource(bytes, contentType: "video/mp4"))
            try FileManager.default.createDirectory(atPath: harness.scratch.path + "/out", withIntermediateDirectories: true)
            _ = harness.scratch.writeBytes("out/movie.mp4", Array("an older file".utf8))
            let path = harness.scratch.path + "/out/movie.mp4"
            let result = try harness.run(["prefetch", origin.url("/v/new.mp4"), "-o", path])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(TestBytes.read(path) == bytes)
            #expect(try FileManager.default.contentsOfDirectory(atPath: harness.scratch.path + "/out") == ["movie.mp4"])
            // Cached already: another file in its place is replaced again.
            try FileManager.default.removeItem(atPath: path)
            _ = harness.scratch.writeBytes("out/movie.mp4", Array("another".utf8))
            let again = try harness.run(["prefetch", origin.url("/v/new.mp4"), "-o", path])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(TestBytes.read(path) == bytes)
        }

        @Test func aTakenNameIsNumberedAndAnEntrysDirWins() throws {
            let bytes = TestBytes.make(50_000, seed: 63)
            origin.serve("/a.mp4", Resource(bytes, contentType: "video/mp4"))
            let folder = harness.scratch.path + "/mine"
            let other = harness.scratch.path + "/other"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let theirs = Array("someone else's file".utf8)
            _ = harness.scratch.writeBytes("mine/a.mp4", theirs)
            let result = try harness.prefetch(list: origin.url("/a.mp4") + "\n", ["-d", folder])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(TestBytes.read(folder + "/a.mp4") == theirs, "an existing file is never replaced")
            #expect(TestBytes.read(folder + "/a.1.mp4") == bytes)

            let entry = try harness.prefetch(list: origin.url("/a.mp4") + "\n  dir=\(other)\n", ["-d", folder])
            #expect(entry.status == 0, "\(entry.stderr)")
            #expect(TestBytes.read(other + "/a.mp4") == bytes)
            #expect(!FileManager.default.fileExists(atPath: folder + "/a.2.mp4"))
        }

        /// Two objects with one `out=` name: the name is refused, naming both.
        @Test func aNameTwoObjectsShareIsRefusedNamingThem() throws {
            origin.serve("/s1/ep.mp4", Resource(TestBytes.make(10_000, seed: 66), contentType: "video/mp4"))
            origin.serve("/s2/ep.mp4", Resource(TestBytes.make(11_000, seed: 67), contentType: "video/mp4"))
            let list = "\(origin.url("/s1/ep.mp4"))\n  out=Pilot.mp4\n\(origin.url("/s2/ep.mp4"))\n  out=Pilot.mp4\n"
            #expect(try harness.prefetch(list: list).status == 0)
            for command in ["path", "info", "rm"] {
                let result = try harness.run([command, "Pilot.mp4"])
                #expect(result.status == 1, "\(command): \(result.stderr)")
                #expect(result.stderr.contains("mediacache: 'Pilot.mp4' is the name of 2 cached objects"), "\(command): \(result.stderr)")
                #expect(result.stderr.contains(origin.url("/s1/ep.mp4")) && result.stderr.contains(origin.url("/s2/ep.mp4")))
            }
            #expect(try harness.cachedBytes(origin.url("/s1/ep.mp4")) != nil)
        }

        /// On another file system (tmpfs) a hard link cannot be made: the file is copied.
        @Test func anotherFileSystemGetsACopy() throws {
            let shm = "/dev/shm/mediacache-placement-" + UUID().uuidString.prefix(8)
            defer { try? FileManager.default.removeItem(atPath: shm) }
            let bytes = TestBytes.make(300_000, seed: 64)
            origin.serve("/c.mp4", Resource(bytes, contentType: "video/mp4"))
            let result = try harness.run(["prefetch", "-d", shm, "--json", origin.url("/c.mp4")])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(TestBytes.read(shm + "/c.mp4") == bytes)
            #expect(result.stdout.contains(#""event":"saved","method":"copied","path":"\#(shm)/c.mp4""#), "\(result.stdout)")
            let mode = (try FileManager.default.attributesOfItem(atPath: shm + "/c.mp4")[.posixPermissions] as? NSNumber)?.intValue
            #expect(mode == 0o644)
        }

        /// A folder the command line names (`-d`, `-o`) that cannot be made is found out
        /// before anything is fetched (exit 2, as for a bad option); a list's `dir=` is that
        /// file's failure (exit 1), and the object is cached.
        @Test func aFolderThatCannotBeMadeFailsTheRunButKeepsTheObject() throws {
            let bytes = TestBytes.make(20_000, seed: 65)
            origin.serve("/d.mp4", Resource(bytes, contentType: "video/mp4"))
            let blocker = harness.scratch.write("not-a-folder", "x")
            let early = try harness.run(["prefetch", "-d", blocker + "/sub", origin.url("/d.mp4")])
            #expect(early.status == 2, "\(early.stderr)")
            #expect(early.stderr.contains("-d \(blocker)/sub: \(blocker) is a file, not a folder"), "\(early.stderr)")
            let named = try harness.run(["prefetch", "-o", blocker + "/sub/d.mp4", origin.url("/d.mp4")])
            #expect(named.status == 2, "\(named.stderr)")
            #expect(named.stderr.contains("-o \(blocker)/sub/d.mp4: \(blocker) is a file, not a folder"), "\(named.stderr)")
            #expect(Harness.bytesServed(origin, "/d.mp4") == 0, "fetched before the folder was checked")

            let list = origin.url("/d.mp4") + "\n  dir=\(blocker)/sub\n"
            let result = try harness.prefetch(list: list, [])
            #expect(result.status == 1, "\(result.stderr)")
            #expect(
                result.stderr.contains(
                    "FAILED   \(origin.url("/d.mp4")): cached, but cannot create the folder \(blocker)/sub: \(blocker) is a file, not a folder"),
                "\(result.stderr)")
            #expect(result.stderr.contains("1 cached file could not be put where asked"))
            #expect(result.stderr.contains("1 done, 0 failed, 0 already cached, 1 not put where asked"), "\(result.stderr)")
            #expect(try harness.cachedBytes(origin.url("/d.mp4")) == bytes)
            // A script reading the summary event sees it too, not only the exit code.
            let json = try harness.prefetch(list: list, ["--json"])
            #expect(json.status == 1 && json.stdout.contains(#""not_placed":1"#), "\(json.stdout)")
            // The system's reason, not Foundation's wrapping of it.
            let nowhere = try harness.prefetch(list: origin.url("/d.mp4") + "\n  dir=/proc/mediacache-nowhere\n", [])
            #expect(nowhere.status == 1)
            #expect(nowhere.stderr.contains("cannot create the folder /proc/mediacache-nowhere: No such file or directory"),
                "\(nowhere.stderr)")
        }
    }
}
