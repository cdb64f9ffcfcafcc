import Foundation
import Testing

@testable import MediaCacheKit

extension EndToEnd {
    /// The local MPD a DASH title will be cached with plays, in ffmpeg, frame for frame
    /// as the origin's: the fixture's files are laid out as the plan stores them (no
    /// engine yet: copied from the fixture directory, which stands in for the origin).
    @Suite struct DASHTitlePlanPlayback {
        static let base = "http://127.0.0.1/title/"

        @Test(arguments: [TitleFixture.dashTemplate, .dashNumber])
        func localMPDPlaysAsTheOrigin(fixture: TitleFixture) throws {
            let title = try fixture.make()
            let plan = try Self.plan(title)
            #expect(plan.renditions.map(\.selected.identity) == ["video-0", "audio-und-1"])
            // Every file of the title but the MPD is planned, once.
            #expect(plan.resources.count == title.resources.filter { !$0.hasSuffix(".mpd") }.count)
            try Self.withLocalCopy(plan, of: title) { local in
                let played = try TitleFixtures.fingerprint(entry: local)
                #expect(played == (try TitleFixtures.fingerprint(title)))
            }
        }

        /// Each representation is one ranged file, written as a `<BaseURL>` alone: ffmpeg
        /// 5.1 misreads `mediaRange`s (the fixture's own MPD does not play in it).
        @Test func singleFileIsOneRangedFilePerRepresentation() throws {
            let title = try TitleFixture.dashSingleFile.make()
            let plan = try Self.plan(title)
            #expect(plan.resources.map(\.kind) == [.rangedFile, .rangedFile])
            #expect(plan.resources.map(\.path) == ["video-0/file-1.mp4", "audio-und-1/file-1.mp4"])
            try Self.withLocalCopy(plan, of: title) { local in
                // The same encode as dashTemplate's, segmented differently.
                let origin = try TitleFixtures.fingerprint(TitleFixture.dashTemplate.make())
                #expect(try TitleFixtures.fingerprint(entry: local) == origin)
            }
        }

        /// The default choice of `title`'s MPD, read as if served under `base`.
        static func plan(_ title: StreamingTitle) throws -> DASHTitlePlan {
            let manifest = try DASHManifest(
                parsing: String(decoding: try Data(contentsOf: URL(fileURLWithPath: title.entryPath)), as: UTF8.self),
                url: base + title.entry)
            return DASHTitlePlan(manifest: manifest, chosen: DASHRenditionSelection.choose(from: manifest).representations)
        }

        /// Lays `title`'s files out as `plan` stores them (the fixture directory stands
        /// in for the origin) with the local MPD beside them, and gives `body` the MPD.
        static func withLocalCopy(_ plan: DASHTitlePlan, of title: StreamingTitle, _ body: (String) throws -> Void) throws {
            let directory = NSTemporaryDirectory() + "mediacache-dash-plan-" + UUID().uuidString.prefix(8)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            for resource in plan.resources {
                let source = try #require(resource.url.hasPrefix(base) ? String(resource.url.dropFirst(base.count)) : nil)
                var bytes = try Data(contentsOf: URL(fileURLWithPath: title.path(source)))
                if let range = resource.range { bytes = bytes.subdata(in: Int(range.start)..<Int(range.end)) }
                let target = directory + "/" + resource.path
                try FileManager.default.createDirectory(
                    atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try bytes.write(to: URL(fileURLWithPath: target))
            }
            let local = directory + "/manifest.mpd"
            try DASHLocalManifest.mpd(plan).write(toFile: local, atomically: true, encoding: .utf8)
            try body(local)
        }
    }
}
