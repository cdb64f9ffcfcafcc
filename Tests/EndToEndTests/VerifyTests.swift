import Foundation
import Testing
import TestOrigin

extension EndToEnd {
    @Suite struct VerifyCommand {
        @Test func intactCacheVerifiesAndCountsObjects() throws {
            let fixture = try BundleFixture()
            let result = try fixture.source.run(["verify"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.hasPrefix("3 objects verified"), "\(result.stdout)")
            let one = try fixture.source.run(["verify", fixture.files[0].url])
            #expect(one.status == 0)
            #expect(one.stdout.hasPrefix("1 object verified"), "\(one.stdout)")
        }

        @Test func oneCorruptByteIsFoundAndNamed() throws {
            let fixture = try BundleFixture()
            let path = try fixture.source.run(["path", fixture.files[1].url]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let handle = try #require(FileHandle(forUpdatingAtPath: path))
            try handle.seek(toOffset: 40_000)
            try handle.write(contentsOf: [fixture.files[1].bytes[40_000] ^ 0x01])
            try handle.close()

            let result = try fixture.source.run(["verify"])
            #expect(result.status == 1)
            #expect(result.stderr.contains("bad object \(fixture.files[1].url): wrong hash: SHA-256 "), "\(result.stderr)")
            #expect(result.stderr.contains("the index says \(BundleFixture.sha256(fixture.files[1].bytes))"))
            // The advice is one that works: prefetch alone takes a same-size object as cached.
            #expect(result.stderr.contains("`mediacache verify --repair` removes it, then prefetch (or import) it again"))
            #expect(!result.stderr.contains(fixture.files[0].url) && !result.stderr.contains(fixture.files[2].url))
            #expect(result.stderr.contains("2 verified, 1 bad"))
            // Naming only the intact objects passes.
            #expect(try fixture.source.run(["verify", fixture.files[0].url, fixture.files[2].url]).status == 0)
            // A damaged object is never exported.
            let export = try fixture.source.run(["export", fixture.source.scratch.path + "/x.mcbundle"])
            #expect(export.status == 1)
            #expect(export.stderr.contains("cached object \(fixture.files[1].url)"), "\(export.stderr)")
            #expect(!FileManager.default.fileExists(atPath: fixture.source.scratch.path + "/x.mcbundle"))
        }

        @Test func repairRemovesBadObjectsAndOrphansAreReported() throws {
            let fixture = try BundleFixture()
            let path = try fixture.source.run(["path", fixture.files[1].url]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let handle = try #require(FileHandle(forUpdatingAtPath: path))
            try handle.seek(toOffset: 100)
            try handle.write(contentsOf: [fixture.files[1].bytes[100] ^ 0x01])
            try handle.close()
            let stray = fixture.source.scratch.cache + "/objects/ff/" + String(repeating: "f", count: 64)
            try FileManager.default.createDirectory(
                atPath: fixture.source.scratch.cache + "/objects/ff", withIntermediateDirectories: true)
            FileManager.default.createFile(atPath: stray, contents: Data([1]))

            let repaired = try fixture.source.run(["verify", "--repair"])
            // Objects were lost, though none is bad now: exit 1, as fsck's "errors corrected".
            #expect(repaired.status == 1, "\(repaired.stderr)")
            #expect(repaired.stderr.contains("removed bad object \(fixture.files[1].url)"))
            #expect(repaired.stderr.contains("orphan \(stray)"))
            #expect(repaired.stdout.contains("2 objects verified, 1 bad removed"))
            #expect(try fixture.source.run(["path", fixture.files[1].url]).status == 1)
            #expect(!FileManager.default.fileExists(atPath: path))
            #expect(try fixture.source.run(["verify", fixture.files[0].url, fixture.files[2].url]).status == 0)
            #expect(try fixture.source.run(["verify", "--repair", fixture.files[0].url]).status == 0)
        }

        @Test func missingAndTruncatedFilesAndUnknownNames() throws {
            let fixture = try BundleFixture()
            let first = try fixture.source.run(["path", fixture.files[0].url]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let second = try fixture.source.run(["path", fixture.files[2].url]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            try FileManager.default.removeItem(atPath: first)
            try FileHandle(forUpdatingAtPath: second)?.truncate(atOffset: 1000)

            let result = try fixture.source.run(["verify", "--quiet"])
            #expect(result.status == 1)
            #expect(result.stderr.contains("bad object \(fixture.files[0].url): file is missing"), "\(result.stderr)")
            #expect(result.stderr.contains("bad object \(fixture.files[2].url): wrong size: 1000 bytes, the index says 200000"))

            // `path` says the object is damaged and how to mend it, not "not cached".
            let damaged = try fixture.source.run(["path", fixture.files[2].url])
            #expect(damaged.status == 1 && damaged.stderr.contains("is damaged"), "\(damaged.stderr)")
            #expect(damaged.stderr.contains("verify --repair"), "\(damaged.stderr)")

            let unknown = try fixture.source.run(["verify", "https://nowhere.example/x.mp4"])
            #expect(unknown.status == 1)
            #expect(unknown.stderr.contains("bad object https://nowhere.example/x.mp4: not cached"))

            let empty = try Harness().run(["verify"])
            #expect(empty.status == 0)
            #expect(empty.stdout.hasPrefix("0 objects verified"))
        }
    }
}
