import Foundation
import Testing
import TestOrigin
@testable import MediaCacheKit

extension EndToEnd {
    /// Filling the fleet's tier from the command line: `prefetch --tier-push`, `push` and
    /// `tier ls`, against SeaweedFS on 127.0.0.1.
    @Suite struct TierPush {
        let origin: TestOrigin
        let store: SeaweedFS

        init() throws {
            origin = try TestOrigin()
            store = try SeaweedFS.shared()
        }

        func run(_ harness: Harness, _ arguments: [String], secret: String? = nil) throws -> RunResult {
            try MediaCacheProcess.run(
                arguments + ["--cache-dir", harness.scratch.cache], environment: store.environment(secret: secret), timeout: 120)
        }

        func serveFiles(_ sizes: [Int], seed: UInt64) -> [(url: String, bytes: [UInt8])] {
            sizes.enumerated().map { index, size in
                let bytes = TestBytes.make(size, seed: seed + UInt64(index))
                origin.serve("/p\(seed)-\(index).bin", Resource(bytes))
                return (origin.url("/p\(seed)-\(index).bin"), bytes)
            }
        }

        static func jsonLines(_ text: String) -> [[String: Any]] {
            text.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }

        /// A prefetch that pushes fills the tier with every object (one of them large
        /// enough for a multipart upload) and a record each; `tier ls` lists them, the
        /// bytes in the bucket are the cached bytes, and `push` afterwards sends nothing.
        @Test func prefetchWithTierPushFillsTheTier() throws {
            let bucket = try store.makeBucket()
            let tier = "s3://\(bucket)/fleet"
            let files = serveFiles([200_000, 1 << 20, 17 << 20], seed: 950)
            let machine = Harness()
            let list = machine.scratch.write("list.txt", files.map(\.url).joined(separator: "\n"))
            let first = try run(machine, ["prefetch", list, "--tier", tier, "--tier-push"])
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stderr.contains("pushed 3 objects"), "\(first.stderr)")

            let listed = try run(machine, ["tier", "ls", "--json", "--tier", tier])
            #expect(listed.status == 0, "\(listed.stderr)")
            let records = Self.jsonLines(listed.stdout)
            #expect(records.count == 3)
            let client = try store.client(bucket: bucket, prefix: "fleet")
            for file in files {
                let record = try #require(records.first { $0["url"] as? String == file.url }, "no record for \(file.url)")
                #expect((record["size"] as? NSNumber)?.intValue == file.bytes.count)
                let sha = try #require(record["sha256"] as? String)
                #expect(sha == Digest.sha256Hex(file.bytes))
                let stored = try client.getObject("fleet/objects/\(sha)", maxBytes: 32 << 20)
                #expect(stored == file.bytes, "the tier's object for \(file.url) is not the cached bytes")
            }
            #expect(try client.listMultipartUploads(prefix: "fleet/").isEmpty, "an incomplete upload was left")

            let again = try run(machine, ["push", "--tier", tier, "--json"])
            #expect(again.status == 0, "\(again.stderr)")
            let events = Self.jsonLines(again.stdout)
            #expect(events.filter { $0["event"] as? String == "pushed" && $0["uploaded"] as? Bool == false }.count == 3)
            let summary = try #require(events.last)
            #expect(summary["event"] as? String == "push-summary")
            #expect((summary["uploaded"] as? NSNumber)?.intValue == 0)
        }

        /// `push` uploads objects cached without the tier, all or those named; an object
        /// not cached is named and makes the exit status 1.
        @Test func pushUploadsWhatWasCachedBefore() throws {
            let bucket = try store.makeBucket()
            let tier = "s3://\(bucket)/later"
            let files = serveFiles([50_000, 60_000], seed: 960)
            let machine = Harness()
            let list = machine.scratch.write("list.txt", files.map(\.url).joined(separator: "\n"))
            #expect(try run(machine, ["prefetch", list]).status == 0)

            let one = try run(machine, ["push", files[0].url, origin.url("/never-cached.bin"), "--tier", tier])
            #expect(one.status == 1)
            #expect(one.stderr.contains("not cached: \(origin.url("/never-cached.bin"))"), "\(one.stderr)")
            #expect(one.stderr.contains("pushed 1 object"), "\(one.stderr)")

            let all = try run(machine, ["push", "--tier", tier])
            #expect(all.status == 0, "\(all.stderr)")
            #expect(all.stderr.contains("pushed 1 object ("), "\(all.stderr)")
            #expect(all.stderr.contains("), 1 already in the tier"), "\(all.stderr)")
            let listed = try run(machine, ["tier", "ls", "--tier", tier])
            #expect(listed.status == 0)
            for file in files { #expect(listed.stdout.contains(file.url), "\(listed.stdout)") }

            // An object lost from the tier (its record kept) is uploaded again by the next
            // push, not counted as there: the record alone failed every pull.
            let sha = Digest.sha256Hex(files[0].bytes)
            _ = try store.curl(["-X", "DELETE", "\(store.endpoint)/\(bucket)/later/objects/\(sha)"])
            let client = try store.client(bucket: bucket, prefix: "later")
            #expect((try? client.headObject("later/objects/\(sha)")) ?? nil == nil, "the object was not deleted")
            let healed = try run(machine, ["push", "--tier", tier])
            #expect(healed.status == 0, "\(healed.stderr)")
            #expect(healed.stderr.contains("pushed 1 object ("), "\(healed.stderr)")
            #expect(try client.getObject("later/objects/\(sha)", maxBytes: 1 << 20) == files[0].bytes)
        }

        /// A wrong secret: the downloads still land and the run exits 0 after one warning
        /// naming the variables; with --tier-required it is an error; `push` fails; the
        /// secret is printed nowhere, and what was not pushed is pushed by a later run.
        @Test func aTierThatRefusesTheCredentialsIsOneWarning() throws {
            let bucket = try store.makeBucket()
            let tier = "s3://\(bucket)/refused"
            let wrong = "wrong-secret-" + UUID().uuidString
            let files = serveFiles([30_000, 40_000], seed: 970)
            let machine = Harness()
            let list = machine.scratch.write("list.txt", files.map(\.url).joined(separator: "\n"))

            let required = try run(machine, ["prefetch", list, "--tier", tier, "--tier-push", "--tier-required"], secret: wrong)
            #expect(required.status == 1)
            #expect(required.stderr.contains("AWS_SECRET_ACCESS_KEY"), "\(required.stderr)")
            #expect(try machine.cachedBytes(files[0].url) == nil, "a required tier that fails stops the run first")

            let lenient = try run(machine, ["prefetch", list, "--tier", tier, "--tier-push"], secret: wrong)
            #expect(lenient.status == 0, "\(lenient.stderr)")
            #expect(lenient.stderr.components(separatedBy: "the tier cannot be used").count == 2, "\(lenient.stderr)")
            #expect(lenient.stderr.contains("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"))
            for file in files { #expect(try machine.cachedBytes(file.url) == file.bytes) }

            let push = try run(machine, ["push", "--tier", tier], secret: wrong)
            #expect(push.status == 1)
            for result in [required, lenient, push] {
                #expect(!result.stderr.contains(wrong) && !result.stdout.contains(wrong), "the secret was printed")
            }

            // The objects were noted: the next pushing run, with the right secret, sends them.
            let later = try run(machine, ["prefetch", list, "--tier", tier, "--tier-push", "--json"])
            #expect(later.status == 0, "\(later.stderr)")
            let pushed = Self.jsonLines(later.stdout).filter { $0["event"] as? String == "pushed" }
            #expect(pushed.count == 2, "\(later.stdout)")
        }

        /// `serve --tier-push`: what a player made the server fetch and commit reaches
        /// the tier, record and bytes.
        @Test func serveWithTierPushUploadsWhatPlayersFetched() throws {
            let bucket = try store.makeBucket()
            let tier = "s3://\(bucket)/served"
            let file = serveFiles([300_000], seed: 980)[0]
            let machine = Harness()
            let server = try ServeFixture(
                cache: machine.scratch.cache, ["--tier", tier, "--tier-push"], environment: store.environment())
            defer { _ = server.stop() }
            let local = try server.localURL(file.url)
            let played = try CurlResponse.fetch(local)
            #expect(played.status == 200 && played.body == file.bytes)
            var records: [[String: Any]] = []
            let found = Harness.waitUntil(timeout: 20) {
                guard let listed = try? run(machine, ["tier", "ls", "--json", "--tier", tier]) else { return false }
                records = Self.jsonLines(listed.stdout)
                return !records.isEmpty
            }
            #expect(found, "no record reached the tier")
            let sha = try #require(records.first?["sha256"] as? String)
            let client = try store.client(bucket: bucket, prefix: "served")
            #expect(try client.getObject("served/objects/\(sha)", maxBytes: 1 << 20) == file.bytes)
        }

        @Test func tierOptionsAreCheckedBeforeAnythingRuns() throws {
            let machine = Harness()
            let list = machine.scratch.write("list.txt", origin.url("/x.bin"))
            let cases: [([String], String)] = [
                (["prefetch", list, "--tier-push"], "--tier-push and --tier-required need a tier"),
                (["prefetch", list, "--tier", "s3://Bad_Bucket/x", "--tier-push"], "tier location 's3://Bad_Bucket/x'"),
                (["prefetch", list, "--tier-required"], "--tier-push and --tier-required need a tier"),
                (["push"], "name the tier: --tier s3://BUCKET/PREFIX"),
                (["pull"], "name the tier: --tier s3://BUCKET/PREFIX"),
                (["pull", "--tier", "s3://Bad_Bucket/x"], "tier location 's3://Bad_Bucket/x'"),
                (["tier", "ls"], "name the tier: --tier s3://BUCKET/PREFIX"),
            ]
            for (arguments, message) in cases {
                let result = try run(machine, arguments)
                #expect(result.status == 2, "\(arguments)")
                #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            }
            #expect(origin.requests(for: "/x.bin").isEmpty)
        }
    }
}
