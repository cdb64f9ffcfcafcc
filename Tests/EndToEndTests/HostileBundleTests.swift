import Foundation
import Testing

/// Each test takes a genuine bundle apart, tampers with it the way an attacker (or a bad
/// copy) would, seals it again and imports it into an empty cache. Every time: exit 1,
/// the entry named with its reason (exit 2 when the bundle cannot be used at all: no or
/// a malformed manifest, not an archive), the bad object never cached, the good ones
/// intact, `verify` passing, and nothing written outside the cache.
extension EndToEnd {
    @Suite struct HostileBundle {
        @Test func absolutePathsAreRejected() throws {
            let fixture = try BundleFixture()
            var members = try fixture.members()
            let evil = "/tmp/mediacache-evil-\(UUID().uuidString)"
            members.append(TarMember(name: evil, data: Array("owned\n".utf8)))
            // The first object under an absolute version of its own name.
            let index = try #require(members.firstIndex { $0.name == fixture.entryName(0) })
            members[index].name = "/" + fixture.entryName(0)
            let bundle = try fixture.write(members)
            let outsideBefore = fixture.target.scratch.filesOutsideCache

            let result = try fixture.importBundle(bundle)
            #expect(result.status == 1)
            #expect(result.stderr.contains("rejected \(evil): absolute path"), "\(result.stderr)")
            #expect(result.stderr.contains("rejected /\(fixture.entryName(0)): absolute path"))
            #expect(result.stderr.contains("rejected \(fixture.entryName(0)) (\(fixture.files[0].url)): listed in the manifest but missing from the bundle"))
            #expect(result.stderr.contains("2 imported, 0 already cached, 3 rejected"))
            try fixture.expectCacheHolds(only: [1, 2], outsideBefore: outsideBefore, escapes: [evil, "/" + fixture.entryName(0)])
        }

        @Test func dotDotComponentsAreRejected() throws {
            let fixture = try BundleFixture()
            var members = try fixture.members()
            let escape = "mediacache-escape-\(UUID().uuidString)"
            let names = ["../\(escape)", "objects/../../\(escape)", "objects/../../../../../../../tmp/\(escape)"]
            for name in names { members.insert(TarMember(name: name, data: Array("owned\n".utf8)), at: 1) }
            let bundle = try fixture.write(members)
            let outsideBefore = fixture.target.scratch.filesOutsideCache

            let result = try fixture.importBundle(bundle)
            #expect(result.status == 1)
            for name in names {
                #expect(result.stderr.contains("rejected \(name): path with a '..' component"), "\(result.stderr)")
            }
            try fixture.expectCacheHolds(
                only: [0, 1, 2], outsideBefore: outsideBefore,
                escapes: names.flatMap(fixture.escapeCandidates) + ["/tmp/\(escape)"])
        }

        @Test func symbolicLinksAreRejected() throws {
            let fixture = try BundleFixture()
            var members = try fixture.members()
            let index = try #require(members.firstIndex { $0.name == fixture.entryName(1) })
            members[index] = TarMember(name: fixture.entryName(1), kind: .symbolicLink, linkName: "/etc/passwd")
            members.append(TarMember(name: "objects/escape", kind: .symbolicLink, linkName: "../../.."))
            let bundle = try fixture.write(members)
            let outsideBefore = fixture.target.scratch.filesOutsideCache

            let result = try fixture.importBundle(bundle)
            #expect(result.status == 1)
            #expect(result.stderr.contains("rejected \(fixture.entryName(1)) (\(fixture.files[1].url)): symbolic link (to /etc/passwd)"), "\(result.stderr)")
            #expect(result.stderr.contains("rejected objects/escape: symbolic link (to ../../..)"))
            #expect(!result.stderr.contains("missing from the bundle"), "a rejected entry is not reported twice")
            try fixture.expectCacheHolds(only: [0, 2], outsideBefore: outsideBefore)
            #expect(try symbolicLinks(under: fixture.target.scratch.cache).isEmpty)
        }

        @Test func hardLinksAreRejected() throws {
            let fixture = try BundleFixture()
            var members = try fixture.members()
            let index = try #require(members.firstIndex { $0.name == fixture.entryName(2) })
            members[index] = TarMember(name: fixture.entryName(2), kind: .hardLink, linkName: "/etc/passwd")
            members.append(TarMember(name: "objects/\(String(repeating: "ab", count: 32)).mp4", kind: .hardLink, linkName: "manifest.json"))
            let bundle = try fixture.write(members)
            let outsideBefore = fixture.target.scratch.filesOutsideCache

            let result = try fixture.importBundle(bundle)
            #expect(result.status == 1)
            #expect(result.stderr.contains("rejected \(fixture.entryName(2)) (\(fixture.files[2].url)): hard link (to /etc/passwd)"), "\(result.stderr)")
            #expect(result.stderr.contains("hard link (to manifest.json)"))
            try fixture.expectCacheHolds(only: [0, 1], outsideBefore: outsideBefore)
        }

        @Test func devicesAndFIFOsAreRejected() throws {
            let fixture = try BundleFixture()
            var members = try fixture.members()
            let index = try #require(members.firstIndex { $0.name == fixture.entryName(0) })
            members[index] = TarMember(name: fixture.entryName(0), kind: .fifo)
            members.append(TarMember(name: "objects/null", kind: .characterDevice))
            members.append(TarMember(name: "objects/disk", kind: .blockDevice))
            let bundle = try fixture.write(members)
            let outsideBefore = fixture.target.scratch.filesOutsideCache

            let result = try fixture.importBundle(bundle)
            #expect(result.status == 1)
            #expect(result.stderr.contains("rejected \(fixture.entryName(0)) (\(fixture.files[0].url)): FIFO, not a regular file"), "\(result.stderr)")
            #expect(result.stderr.contains("rejected objects/null: character device, not a regular file"))
            #expect(result.stderr.contains("rejected objects/disk: block device, not a regular file"))
            try fixture.expectCacheHolds(only: [1, 2], outsideBefore: outsideBefore)
        }

        @Test func entriesNotInTheManifestAreRejected() throws {
            let fixture = try BundleFixture()
            var members = try fixture.members()
            let stranger = "objects/\(String(repeating: "0f", count: 32)).mp4"
            members.append(TarMember(name: stranger, data: TestBytes.make(5000, seed: 99)))
            members.insert(TarMember(name: "README.txt", data: Array("hi".utf8)), at: 1)
            // The same object twice: the second copy is refused, the first kept.
            let copy = try #require(members.first { $0.name == fixture.entryName(1) })
            members.append(copy)
            let bundle = try fixture.write(members)
            let outsideBefore = fixture.target.scratch.filesOutsideCache

            let result = try fixture.importBundle(bundle)
            #expect(result.status == 1)
            #expect(result.stderr.contains("rejected \(stranger): not listed in the manifest"), "\(result.stderr)")
            #expect(result.stderr.contains("rejected README.txt: unexpected name"))
            #expect(result.stderr.contains("rejected \(fixture.entryName(1)) (\(fixture.files[1].url)): appears twice in the bundle"))
            try fixture.expectCacheHolds(only: [0, 1, 2], outsideBefore: outsideBefore)
        }

        /// 64 MiB of zeros (a few KiB compressed) where the manifest promises 120 000 bytes:
        /// reading stops at the declared size, and the disk never sees more.
        @Test func compressionBombIsStoppedAtTheDeclaredSize() throws {
            let fixture = try BundleFixture()
            var members = try fixture.members()
            let index = try #require(members.firstIndex { $0.name == fixture.entryName(0) })
            members[index].data = [UInt8](repeating: 0, count: 64 << 20)
            let bundle = try fixture.write(members)
            #expect((try FileManager.default.attributesOfItem(atPath: bundle)[.size] as? Int ?? 0) < 1 << 20)
            let outsideBefore = fixture.target.scratch.filesOutsideCache

            let result = try fixture.importBundle(bundle)
            #expect(result.status == 1)
            #expect(
                result.stderr.contains("rejected \(fixture.entryName(0)) (\(fixture.files[0].url)): larger than the manifest says (at least 67108864 bytes, manifest: 120000)"),
                "\(result.stderr)")
            try fixture.expectCacheHolds(only: [1, 2], outsideBefore: outsideBefore)
            #expect(directorySize(fixture.target.scratch.cache) < 4 << 20)
        }

        /// A header claiming 8 GiB (with or without the bytes behind it) is not skipped over,
        /// which would mean decompressing all of it: reading stops there, quickly.
        @Test func hugeDeclaredSizeStopsReadingTheBundle() throws {
            let fixture = try BundleFixture()
            var members = try fixture.members()
            let first = try #require(fixture.fileIndex(ofEntry: members[1].name))
            members[1].declaredSize = (8 << 30) - 1
            let bundle = try fixture.write(members)
            let outsideBefore = fixture.target.scratch.filesOutsideCache

            let result = try fixture.importBundle(bundle)
            #expect(result.status == 1)
            #expect(result.seconds < 20)
            #expect(
                result.stderr.contains("rejected \(members[1].name) (\(fixture.files[first].url)): larger than the manifest says (at least 8589934591 bytes"),
                "\(result.stderr)")
            #expect(result.stderr.contains("stopped reading \(bundle) at entry \(members[1].name): it claims 8589934591 bytes"))
            for member in members[2...] {
                #expect(result.stderr.contains("rejected \(member.name) (") && result.stderr.contains("): not read: reading stopped at an earlier hostile entry"))
            }
            try fixture.expectCacheHolds(only: [], outsideBefore: outsideBefore)
        }

        @Test func tamperedBytesAndSizesAreRejected() throws {
            let fixture = try BundleFixture()
            var members = try fixture.members()
            let flipped = try #require(members.firstIndex { $0.name == fixture.entryName(0) })
            members[flipped].data[60_000] ^= 0x01
            let short = try #require(members.firstIndex { $0.name == fixture.entryName(2) })
            members[short].data.removeLast(10)
            let bundle = try fixture.write(members)
            let outsideBefore = fixture.target.scratch.filesOutsideCache

            let result = try fixture.importBundle(bundle)
            #expect(result.status == 1)
            #expect(result.stderr.contains("rejected \(fixture.entryName(0)) (\(fixture.files[0].url)): SHA-256 mismatch"), "\(result.stderr)")
            #expect(result.stderr.contains("rejected \(fixture.entryName(2)) (\(fixture.files[2].url)): holds 199990 bytes, the manifest says 200000"))
            try fixture.expectCacheHolds(only: [1], outsideBefore: outsideBefore)
        }

        @Test func missingManifestImportsNothing() throws {
            let fixture = try BundleFixture()
            let members = try fixture.members()
            let without = try fixture.write(Array(members.dropFirst()), name: "no-manifest.mcbundle")
            // A manifest that is not first is not trusted either.
            let late = try fixture.write(Array(members.dropFirst()) + [members[0]], name: "late-manifest.mcbundle")
            let empty = try fixture.write([], name: "empty.mcbundle")
            let notArchive = fixture.target.scratch.write("text.mcbundle", "just some text\n")
            let outsideBefore = fixture.target.scratch.filesOutsideCache

            let result = try fixture.importBundle(without)
            #expect(result.status == 2)
            #expect(result.stderr.contains("\(without) is not a mediacache bundle: its first entry must be manifest.json, found \(members[1].name)"), "\(result.stderr)")
            let lateResult = try fixture.importBundle(late)
            #expect(lateResult.status == 2)
            #expect(lateResult.stderr.contains("its first entry must be manifest.json"), "\(lateResult.stderr)")
            let emptyResult = try fixture.importBundle(empty)
            #expect(emptyResult.status == 2)
            #expect(emptyResult.stderr.contains("the archive is empty; nothing was imported"), "\(emptyResult.stderr)")
            let textResult = try fixture.importBundle(notArchive)
            #expect(textResult.status == 2, "\(textResult.stderr)")
            #expect(textResult.stderr.contains("\(notArchive):"))
            try fixture.expectCacheHolds(only: [], outsideBefore: outsideBefore)
        }

        @Test func malformedManifestImportsNothing() throws {
            let fixture = try BundleFixture()
            var members = try fixture.members()
            members[0].data = Array("this is not json".utf8)
            let garbage = try fixture.write(members, name: "garbage.mcbundle")
            // Valid JSON whose entry claims another URL's key: refused as a whole.
            var manifest = try #require(JSONSerialization.jsonObject(with: Data(try fixture.members()[0].data)) as? [String: Any])
            var entries = try #require(manifest["entries"] as? [[String: Any]])
            entries[0]["cache_key"] = "https://victim.example/other.mp4"
            manifest["entries"] = entries
            members[0].data = Array(try JSONSerialization.data(withJSONObject: manifest))
            let lying = try fixture.write(members, name: "lying.mcbundle")
            manifest["version"] = 99
            members[0].data = Array(try JSONSerialization.data(withJSONObject: manifest))
            let future = try fixture.write(members, name: "future.mcbundle")
            let outsideBefore = fixture.target.scratch.filesOutsideCache

            let result = try fixture.importBundle(garbage)
            #expect(result.status == 2)
            #expect(result.stderr.contains("\(garbage): manifest.json is malformed (not a mediacache bundle manifest); nothing was imported"), "\(result.stderr)")
            let lyingResult = try fixture.importBundle(lying)
            #expect(lyingResult.status == 2)
            #expect(lyingResult.stderr.contains("entry 1: key is not the SHA-256 of its cache key"), "\(lyingResult.stderr)")
            let futureResult = try fixture.importBundle(future)
            #expect(futureResult.status == 2)
            #expect(futureResult.stderr.contains("has bundle format version 99; this mediacache reads version 1: upgrade mediacache"))
            try fixture.expectCacheHolds(only: [], outsideBefore: outsideBefore)
        }

        @Test func truncatedStreamKeepsOnlyVerifiedObjects() throws {
            let fixture = try BundleFixture(sizes: [100_000, 300_000, 100_000])
            let members = try fixture.members()
            // The objects in bundle order (the manifest comes first).
            let order = try members.dropFirst().map { try #require(fixture.fileIndex(ofEntry: $0.name)) }
            // Cut inside the second object's data: a whole zstd stream around a short tar.
            let tar = TarArchive.build(members)
            let cutAt = TarArchive.build(Array(members.prefix(2)), endMarker: false).count + 512 + 5000
            let midObject = fixture.target.scratch.writeBytes("mid.mcbundle", try Zstd.compress(Array(tar.prefix(cutAt))))
            // Cut exactly between members, without tar's end marker.
            let between = try fixture.write(Array(members.dropLast()), name: "between.mcbundle", endMarker: false)
            // Cut the compressed stream itself, inside the last object (objects do not compress).
            let genuine = Array(try Data(contentsOf: URL(fileURLWithPath: fixture.bundle)))
            let compressedCut = fixture.target.scratch.writeBytes("cut.mcbundle", Array(genuine.prefix(genuine.count - 50_000)))
            let outsideBefore = fixture.target.scratch.filesOutsideCache

            let result = try fixture.importBundle(midObject)
            #expect(result.status == 1)
            #expect(result.stderr.contains("\(midObject) is truncated or damaged at entry \(members[2].name)"), "\(result.stderr)")
            for index in order.dropFirst() {
                #expect(result.stderr.contains("rejected \(fixture.entryName(index)) (\(fixture.files[index].url)): cut short"))
            }
            try fixture.expectCacheHolds(only: [order[0]], outsideBefore: outsideBefore)

            let betweenResult = try fixture.importBundle(between)
            #expect(betweenResult.status == 1)
            #expect(betweenResult.stderr.contains("rejected \(fixture.entryName(order[2])) (\(fixture.files[order[2]].url)): listed in the manifest but missing from the bundle"), "\(betweenResult.stderr)")
            try fixture.expectCacheHolds(only: [order[0], order[1]], outsideBefore: outsideBefore)

            let cutResult = try fixture.importBundle(compressedCut)
            #expect(cutResult.status == 1)
            #expect(cutResult.stderr.contains("\(compressedCut) is truncated or damaged"), "\(cutResult.stderr)")
            #expect(cutResult.stderr.contains("\(fixture.files[order[2]].url)): cut short"))
            try fixture.expectCacheHolds(only: [order[0], order[1]], outsideBefore: outsideBefore)
        }

        private func symbolicLinks(under root: String) throws -> [String] {
            let all = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
            return all.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: root + "/" + $0)) != nil }
        }

        private func directorySize(_ root: String) -> Int {
            let all = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
            return all.reduce(0) { total, name in
                total + ((try? FileManager.default.attributesOfItem(atPath: root + "/" + name)[.size] as? Int) ?? 0)
            }
        }
    }
}
