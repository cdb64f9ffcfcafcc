import Foundation
import MediaCacheKit
import Testing
import TestOrigin

/// Streaming titles travel whole in bundles: an HLS or DASH title prefetched from the origin,
/// exported, imported into a fresh cache, plays offline frame for frame as the origin's;
/// a bundle whose title has a member missing, extra or altered imports none of it.
extension EndToEnd {
    @Suite struct TitleBundles {
        /// A title prefetched into `source` and exported to `bundle`, with a fresh `target`.
        struct Exported {
            let title: StreamingTitle
            let origin: TestOrigin
            let source = Harness()
            let target = Harness()
            let url: String
            let bundle: String

            init(_ fixture: TitleFixture = .hlsAES) throws {
                title = try fixture.make()
                origin = try TestOrigin()
                try Titles.serve(title, on: origin)
                url = origin.url("/t/" + title.entry)
                let fetched = try source.prefetch(list: url)
                try #require(fetched.status == 0, "\(fetched.stderr)")
                bundle = source.scratch.path + "/titles.mcbundle"
                let exported = try source.run(["export", bundle])
                try #require(exported.status == 0, "\(exported.stderr)")
                #expect(exported.stderr.contains("exported 1 object"), "\(exported.stderr)")
            }

            /// `objects/<key>.title`: the title's folder inside the bundle.
            var folder: String { "objects/\(CacheKey(identity: url).hex).title" }

            func members() throws -> [TarMember] {
                try TarArchive.members(of: Zstd.decompress(Array(try Data(contentsOf: URL(fileURLWithPath: bundle)))))
            }

            func write(_ members: [TarMember]) throws -> String {
                target.scratch.writeBytes("hostile.mcbundle", try Zstd.compress(TarArchive.build(members)))
            }

            /// After a refused title: nothing of it in the target cache, nothing left staged.
            func expectNothingImported(sourceLocation: SourceLocation = #_sourceLocation) throws {
                #expect(target.scratch.objectFiles.isEmpty, "\(target.scratch.objectFiles)", sourceLocation: sourceLocation)
                let partial = (try? FileManager.default.contentsOfDirectory(atPath: target.scratch.cache + "/partial")) ?? []
                #expect(partial.isEmpty, "left in partial/: \(partial)", sourceLocation: sourceLocation)
                let path = try target.run(["path", url])
                #expect(path.status != 0, sourceLocation: sourceLocation)
            }
        }

        @Test(arguments: [TitleFixture.hlsAES, .hlsFMP4, .dashTemplate])
        func anExportedTitleImportsIntoAFreshCacheAndPlaysOffline(fixture: TitleFixture) throws {
            let exported = try Exported(fixture)
            let info = try exported.target.run(["bundle-info", exported.bundle])
            #expect(info.status == 0, "\(info.stderr)")
            let kind = fixture.isHLS ? "hls title" : "dash title"
            #expect(info.stdout.contains(kind), "\(info.stdout)")

            let imported = try exported.target.run(["import", exported.bundle])
            #expect(imported.status == 0, "\(imported.stderr)")
            #expect(imported.stderr.contains("1 imported"), "\(imported.stderr)")
            exported.origin.stop()
            let (path, frames) = try Titles.playOffline(exported.target, exported.url)
            #expect(path.hasSuffix(fixture.isHLS ? ".title/index.m3u8" : ".title/index.mpd"))
            #expect(frames == (try TitleFixtures.fingerprint(exported.title)))
            let verify = try exported.target.run(["verify"])
            #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
            let ls = try exported.target.run(["ls"])
            #expect(ls.stdout.contains(kind), "\(ls.stdout)")

            let again = try exported.target.run(["import", exported.bundle])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stderr.contains("0 imported, 1 already cached"), "\(again.stderr)")
        }

        @Test func anAlteredMemberFailsTheTitleNamingTheBundleAndTheMember() throws {
            let exported = try Exported()
            var members = try exported.members()
            let index = try #require(members.firstIndex { $0.name.hasPrefix(exported.folder + "/") && $0.name.hasSuffix(".ts") })
            let altered = members[index].name
            members[index].data[members[index].data.count / 2] ^= 0xFF
            let bundle = try exported.write(members)
            let result = try exported.target.run(["import", bundle])
            #expect(result.status == 1)
            let member = String(altered.dropFirst(exported.folder.count + 1))
            #expect(result.stderr.contains("hostile.mcbundle: rejected \(exported.folder)"), "\(result.stderr)")
            #expect(result.stderr.contains("member \(member) has SHA-256"), "\(result.stderr)")
            #expect(result.stderr.contains("nothing of it was kept"), "\(result.stderr)")
            try exported.expectNothingImported()
        }

        @Test func aMissingMemberFailsTheTitleNamingIt() throws {
            let exported = try Exported()
            var members = try exported.members()
            let index = try #require(members.lastIndex { $0.name.hasPrefix(exported.folder + "/") && $0.name.hasSuffix(".ts") })
            let missing = String(members.remove(at: index).name.dropFirst(exported.folder.count + 1))
            let result = try exported.target.run(["import", try exported.write(members)])
            #expect(result.status == 1)
            #expect(result.stderr.contains("member \(missing) listed in title.json is missing"), "\(result.stderr)")
            try exported.expectNothingImported()
        }

        @Test func anExtraMemberFailsTheTitleNamingIt() throws {
            let exported = try Exported()
            var members = try exported.members()
            let at = try #require(members.firstIndex { $0.name.hasPrefix(exported.folder + "/") && $0.name.hasSuffix(".ts") })
            members.insert(TarMember(name: exported.folder + "/variant-0/planted.ts", data: [1, 2, 3]), at: at)
            let result = try exported.target.run(["import", try exported.write(members)])
            #expect(result.status == 1)
            #expect(result.stderr.contains("member variant-0/planted.ts is not listed in title.json"), "\(result.stderr)")
            try exported.expectNothingImported()
        }

        @Test func membersThatLeadOutsideTheTitleAreRefused() throws {
            let exported = try Exported()
            var members = try exported.members()
            let escape = "mediacache-title-escape-\(UUID().uuidString)"
            members.append(TarMember(name: exported.folder + "/../../\(escape)", data: Array("owned\n".utf8)))
            members.append(TarMember(name: exported.folder + "/variant-0/link.ts", kind: .symbolicLink, linkName: "/etc/passwd"))
            members.append(TarMember(name: "/" + exported.folder + "/title.json", data: Array("{}".utf8)))
            let bundle = try exported.write(members)
            let outsideBefore = exported.target.scratch.filesOutsideCache
            let result = try exported.target.run(["import", bundle])
            #expect(result.status == 1)
            #expect(result.stderr.contains("path with a '..' component"), "\(result.stderr)")
            #expect(result.stderr.contains("symbolic link (to /etc/passwd)"), "\(result.stderr)")
            #expect(result.stderr.contains("absolute path"), "\(result.stderr)")
            // The genuine title, every member intact and before the hostile entries, is taken whole.
            exported.origin.stop()
            let (_, frames) = try Titles.playOffline(exported.target, exported.url)
            #expect(frames == (try TitleFixtures.fingerprint(exported.title)))
            #expect(exported.target.scratch.filesOutsideCache == outsideBefore)
            let verify = try exported.target.run(["verify"])
            #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        }
    }
}
