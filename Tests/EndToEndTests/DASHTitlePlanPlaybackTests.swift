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
            let manifest = try DASHManifest(
                parsing: String(decoding: try Data(contentsOf: URL(fileURLWithPath: title.entryPath)), as: UTF8.self),
                url: Self.base + title.entry)
            let plan = DASHTitlePlan(manifest: manifest, chosen: DASHRenditionSelection.choose(from: manifest).representations)
            #expect(plan.renditions.map(\.selected.identity) == ["video-0", "audio-und-1"])

            let directory = NSTemporaryDirectory() + "mediacache-dash-plan-" + UUID().uuidString.prefix(8)
            defer { if ProcessInfo.processInfo.environment["KEEP_DASH_PLAN"] == nil { try? FileManager.default.removeItem(atPath: directory) } }
            for resource in plan.resources {
                let source = try #require(resource.url.hasPrefix(Self.base) ? String(resource.url.dropFirst(Self.base.count)) : nil)
                var bytes = try Data(contentsOf: URL(fileURLWithPath: title.path(source)))
                if let range = resource.range { bytes = bytes.subdata(in: Int(range.start)..<Int(range.end)) }
                let target = directory + "/" + resource.path
                try FileManager.default.createDirectory(
                    atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try bytes.write(to: URL(fileURLWithPath: target))
            }
            // Every file of the title but the MPD is planned, once.
            #expect(plan.resources.count == title.resources.filter { !$0.hasSuffix(".mpd") }.count)
            let local = directory + "/manifest.mpd"
            try DASHLocalManifest.mpd(plan).write(toFile: local, atomically: true, encoding: .utf8)
            #expect(try TitleFixtures.fingerprint(entry: local) == TitleFixtures.fingerprint(title))
        }
    }
}
