import Foundation
import Testing
import TestOrigin

extension EndToEnd {
    /// A file or folder this process may not read is not a missing file: commands name
    /// the problem and leave the object and its index row alone. Run as `nobody` when the
    /// tests run as root (who reads anything).
    @Suite struct Permissions {
        let origin: TestOrigin
        let harness = Harness()

        init() throws { origin = try TestOrigin() }

        /// The scratch folder, cache included, is the unprivileged user's from here on.
        func handOver() throws {
            guard let user = MediaCacheProcess.unprivilegedUser else { return }
            let chown = Process()
            chown.executableURL = URL(fileURLWithPath: "/bin/chown")
            chown.arguments = ["-R", "\(user.uid):\(user.gid)", harness.scratch.path]
            try chown.run()
            chown.waitUntilExit()
            #expect(chown.terminationStatus == 0)
        }

        func run(_ arguments: [String]) throws -> RunResult {
            try MediaCacheProcess.run(arguments + ["--cache-dir", harness.scratch.cache], unprivileged: true)
        }

        @Test func anUnreadableFolderIsNeitherMissingNorForgotten() throws {
            let kept = TestBytes.make(150_000, seed: 71)
            origin.serve("/kept.bin", Resource(kept))
            let url = origin.url("/kept.bin")
            #expect(try harness.prefetch(list: url).status == 0)
            let path = try harness.run(["path", url]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let folder = (path as NSString).deletingLastPathComponent
            try handOver()
            #expect(chmod(folder, 0) == 0)

            let gc = try run(["gc"])
            #expect(gc.status == 1, "\(gc.stderr)")
            #expect(gc.stderr.contains("Permission denied; left alone"), "\(gc.stderr)")
            #expect(gc.stderr.contains("0 rows without a file"), "\(gc.stderr)")
            let verify = try run(["verify", "--repair"])
            #expect(verify.status == 1 && verify.stderr.contains("cannot check \(url)"), "\(verify.stderr)")
            #expect(!verify.stderr.contains("missing") && !verify.stderr.contains("removed"), "\(verify.stderr)")
            let lookup = try run(["path", url])
            #expect(lookup.status == 3 && lookup.stderr.contains("Permission denied"), "\(lookup.stderr)")

            // Readable again: the object is there, whole, and a gc keeps it.
            #expect(chmod(folder, 0o700) == 0)
            let again = try run(["gc"])
            #expect(again.status == 0 && again.stderr.contains("0 orphan files"), "\(again.stderr)")
            let found = try run(["path", url])
            #expect(found.status == 0, "\(found.stderr)")
            #expect(TestBytes.read(found.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) == kept)
        }

        @Test func anIndexThisUserCannotWriteIsACacheErrorThatSaysSo() throws {
            origin.serve("/a.bin", Resource(TestBytes.make(20_000, seed: 72)))
            let url = origin.url("/a.bin")
            #expect(try harness.prefetch(list: url).status == 0)
            try handOver()
            let index = harness.scratch.cache + "/index.sqlite"
            #expect(chmod(index, 0o400) == 0)
            let removal = try run(["rm", url])
            #expect(removal.status == 3, "\(removal.stderr)")
            #expect(removal.stderr.contains("\(index): this user may not read and write it"), "\(removal.stderr)")
            #expect(!removal.stderr.contains("SQLite"), "\(removal.stderr)")
        }

        @Test func unreadableKeyLocksDoNotFailWhatIsCached() throws {
            origin.serve("/a.bin", Resource(TestBytes.make(20_000, seed: 73)))
            let url = origin.url("/a.bin")
            #expect(try harness.prefetch(list: url).status == 0)
            try handOver()
            #expect(chmod(harness.scratch.cache + "/locks/keys", 0) == 0)
            let again = try run(["prefetch", harness.scratch.write("again.txt", url + "\n")])
            #expect(again.status == 0 && again.stderr.contains("1 already cached"), "\(again.stderr)")
        }
    }
}
