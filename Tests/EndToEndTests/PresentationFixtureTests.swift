import Foundation
import MediaCacheKit
import Testing

extension EndToEnd {
    /// The streaming titles the end-to-end tests serve (issue 24) are real: ffmpeg plays
    /// them, and mediacache's own HLS reader finds in each exactly its files, with the
    /// keys, IVs, maps and byte ranges they were made with.
    @Suite struct PresentationFixture {
        static let playable: [TitleFixture] = TitleFixture.allCases.filter { ![.hlsGap, .hlsLive, .hlsDRM, .dashList].contains($0) }
        static let completeHLS: [TitleFixture] = TitleFixture.allCases.filter { $0.isHLS && ![.hlsLive, .hlsDRM].contains($0) }

        @Test(arguments: playable)
        func ffmpegPlaysIt(fixture: TitleFixture) throws {
            let counts = Self.videoFrameCounts(try TitleFixtures.fingerprint(fixture.make()))
            // 7 s at 25 fps in every video stream (three in the master), none lost at a
            // segment boundary, a second map or a byte range.
            #expect(counts.count == (fixture == .hlsMaster ? 3 : 1) && counts.allSatisfy { $0 == 175 }, "\(counts)")
        }

        /// The frames of each video stream in `framemd5` output (one or more documents).
        static func videoFrameCounts(_ fingerprint: String) -> [Int] {
            var counts: [Int] = []
            var videoStreams: [Substring: Int] = [:]
            for line in fingerprint.split(separator: "\n") {
                if line.hasPrefix("#format:") {
                    videoStreams = [:]
                } else if line.hasPrefix("#media_type "), line.hasSuffix(": video") {
                    let stream = line.dropFirst("#media_type ".count).prefix { $0 != ":" }
                    videoStreams[stream] = counts.count
                    counts.append(0)
                } else if !line.hasPrefix("#"), let index = videoStreams[line.prefix { $0 != "," }] {
                    counts[index] += 1
                }
            }
            return counts
        }

        /// The same source and encoder settings: decrypted with the keys and IVs the
        /// playlists give, the encrypted titles play frame for frame as the clear one.
        @Test(arguments: [TitleFixture.hlsAES, .hlsKeyRotation])
        func anEncryptedTitlePlaysAsTheClearOne(fixture: TitleFixture) throws {
            #expect(try TitleFixtures.fingerprint(fixture.make()) == TitleFixtures.fingerprint(TitleFixture.hlsTS.make()))
        }

        @Test(arguments: completeHLS)
        func theReaderListsExactlyTheFixturesFiles(fixture: TitleFixture) throws {
            let title = try fixture.make()
            let read = try ReadTitle(title)
            #expect(read.resources == Set(title.resources))
            #expect(read.resources.contains(title.entry))
        }

        @Test func singleFileByteRangesTileTheFile() throws {
            let title = try TitleFixture.hlsSingleFile.make()
            #expect(title.resources == ["index.m3u8", "media.ts"])
            let media = try #require(ReadTitle(title).media["index.m3u8"])
            #expect(media.segments.count == 4)
            #expect(Set(media.segments.map(\.uri)) == ["http://127.0.0.1/hlsSingleFile/media.ts"])
            let ranges = try media.segments.map { try #require($0.byteRange) }
            let size = try #require(try FileManager.default.attributesOfItem(atPath: title.path("media.ts"))[.size] as? Int)
            #expect(ranges.first?.start == 0)
            #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.end == $1.start }, "\(ranges)")
            #expect(ranges.last?.end == Int64(size))
        }

        @Test func oneAESKeyForEverySegment() throws {
            let title = try TitleFixture.hlsAES.make()
            let media = try #require(ReadTitle(title).media["index.m3u8"])
            let keys = Set(media.segments.compactMap(\.key))
            #expect(keys.count == 1)
            let key = try #require(keys.first)
            #expect(media.segments.allSatisfy { $0.key != nil })
            #expect(key.method == .aes128)
            #expect(key.uri == "http://127.0.0.1/hlsAES/key.bin")
            #expect(TestBytes.read(title.path("key.bin")) == TitleFixtures.aesKey)
            // ffmpeg 5.1 writes IV=0x0…0 and encrypts every segment with it.
            #expect(key.iv == [UInt8](repeating: 0, count: 16))
        }

        /// Both keys, each on its segments; the IV the reader derives (no IV attribute:
        /// the media sequence number) is the one openssl encrypted with, and decrypting
        /// with what the reader says gives back the clear segment.
        @Test func keyRotationHasBothKeysAndTheDefaultIVs() throws {
            let title = try TitleFixture.hlsKeyRotation.make()
            let clear = try TitleFixture.hlsTS.make()
            let media = try #require(ReadTitle(title).media["index.m3u8"])
            #expect(media.segments.map(\.mediaSequence) == [7, 8, 9, 10])
            #expect(
                media.segments.map { $0.key?.uri } == ["key1.bin", "key1.bin", "key2.bin", "key2.bin"].map {
                    "http://127.0.0.1/hlsKeyRotation/" + $0
                })
            let scratch = Scratch()
            for (index, segment) in media.segments.enumerated() {
                let name = ReadTitle.relative(segment.uri, in: title)
                let made = try #require(title.encryption[name], "\(name)")
                let key = try #require(segment.key)
                #expect(key.iv == nil, "no IV attribute")
                #expect(segment.initializationVector == made.iv, "\(name)")
                #expect(ReadTitle.relative(key.uri, in: title) == made.keyFile)
                let keyBytes = try #require(TestBytes.read(title.path(made.keyFile)))
                #expect(keyBytes == made.key)
                let decrypted = scratch.path + "/" + name
                try TitleFixtures.encrypt(
                    title.path(name), to: decrypted, key: keyBytes, iv: try #require(segment.initializationVector),
                    decrypt: true)
                #expect(TestBytes.read(decrypted) == TestBytes.read(clear.path("seg\(index).ts")), "\(name)")
            }
        }

        @Test func twoMapsEachWithItsSegments() throws {
            let title = try TitleFixture.hlsTwoMaps.make()
            let media = try #require(ReadTitle(title).media["index.m3u8"])
            #expect(media.initSections.map { ReadTitle.relative($0.uri, in: title) } == ["a_init.mp4", "b_init.mp4"])
            #expect(media.segments.map(\.initSection) == [0, 0, 1, 1])
            #expect(media.segments.map(\.discontinuitySequence) == [0, 0, 1, 1])
            #expect(
                media.segments.map { ReadTitle.relative($0.uri, in: title) } == [
                    "a_seg0.m4s", "a_seg1.m4s", "b_seg2.m4s", "b_seg3.m4s",
                ])
        }

        @Test func theGapSegmentIsMarkedAndHasNoFile() throws {
            let title = try TitleFixture.hlsGap.make()
            let media = try #require(ReadTitle(title).media["index.m3u8"])
            #expect(media.segments.map(\.isGap) == [false, false, true, false])
            let gap = ReadTitle.relative(media.segments[2].uri, in: title)
            #expect(gap == "seg2.ts")
            #expect(!FileManager.default.fileExists(atPath: title.path(gap)))
        }

        @Test func aLiveTitleIsRefusedAsLive() throws {
            let title = try TitleFixture.hlsLive.make()
            let url = ReadTitle.url(title.entry, in: title)
            let text = try TitleFixtures.read(title.entryPath)
            #expect(!text.contains("#EXT-X-ENDLIST") && !text.contains("#EXT-X-PLAYLIST-TYPE"))
            do {
                _ = try HLSPlaylist(parsing: text, url: url)
                Issue.record("the live playlist was read as a complete title")
            } catch {
                #expect(error == .live(url: url))
                #expect(error.message.contains("is a live playlist"), "\(error.message)")
            }
        }

        @Test func aDRMTitleIsRefusedAsDRM() throws {
            let title = try TitleFixture.hlsDRM.make()
            let url = ReadTitle.url(title.entry, in: title)
            let text = try TitleFixtures.read(title.entryPath)
            do {
                _ = try HLSPlaylist(parsing: text, url: url)
                Issue.record("the DRM playlist was read as a title")
            } catch {
                guard case .drm(let refused, let line, _) = error, refused == url, line == 6 else {
                    Issue.record("refused as \(error), not as DRM at line 6")
                    return
                }
                #expect(error.message.contains("DRM-protected") && error.message.contains("skd://"), "\(error.message)")
            }
        }

        /// The master has three variants sharing one audio group, and a subtitle
        /// rendition; the default choice is the highest BANDWIDTH with its audio and
        /// subtitles.
        @Test func theMasterChoiceIsTheBestVariantWithItsAudio() throws {
            let title = try TitleFixture.hlsMaster.make()
            let read = try ReadTitle(title)
            let master = try #require(read.master)
            #expect(master.variants.count == 3)
            #expect(Set(master.variants.map { $0.resolution?.height }) == [180, 144, 90])
            #expect(Set(master.variants.map(\.bandwidth)).count == 3)
            #expect(master.variants.allSatisfy { $0.audioGroup == "group_aud" && $0.subtitlesGroup == "subs" })
            let audio = master.renditions(.audio, group: "group_aud")
            let subtitles = master.renditions(.subtitles, group: "subs")
            #expect(audio.count == 1 && subtitles.count == 1)

            let best = try #require(master.variants.max { $0.bandwidth < $1.bandwidth })
            let choice = RenditionSelection.choose(from: .master(master))
            #expect(choice.notes.isEmpty)
            #expect(choice.renditions.map(\.kind) == [.variant, .audio, .subtitles])
            #expect(choice.renditions.map(\.uri) == [best.uri, audio[0].uri, subtitles[0].uri])
            #expect(best.resolution?.height == 180)
            let subtitleURI = try #require(subtitles[0].uri)
            let subtitleFiles = try #require(read.media[ReadTitle.relative(subtitleURI, in: title)])
            #expect(subtitleFiles.segments.allSatisfy { $0.uri.hasSuffix(".vtt") })
        }

        @Test func dashFixturesAreWhatFfmpegWrites() throws {
            let template = try TitleFixtures.read(TitleFixture.dashTemplate.make().entryPath)
            #expect(template.contains("<SegmentTimeline>") && template.contains("$Number%05d$"))
            let number = try TitleFixtures.read(TitleFixture.dashNumber.make().entryPath)
            #expect(number.contains("<SegmentTemplate") && number.contains("duration=") && !number.contains("SegmentTimeline"))
            let single = try TitleFixture.dashSingleFile.make()
            let text = try TitleFixtures.read(single.entryPath)
            #expect(text.contains("<SegmentList") && text.contains("mediaRange=") && text.contains("<BaseURL>"))
            #expect(single.resources == ["manifest-stream0.mp4", "manifest-stream1.mp4", "manifest.mpd"])
            let list = try TitleFixtures.read(TitleFixture.dashList.make().entryPath)
            #expect(list.contains("<SegmentList") && list.contains("<SegmentURL media=") && !list.contains("mediaRange="))
            for fixture in [TitleFixture.dashTemplate, .dashNumber, .dashList, .dashSingleFile] {
                let text = try TitleFixtures.read(fixture.make().entryPath)
                #expect(text.contains("type=\"static\"") && text.contains("contentType=\"video\"") && text.contains("contentType=\"audio\""))
            }
        }

        /// Asked for from four threads at once, in different orders, each fixture of a
        /// new set is made once (the three made from `hlsTS` included); all of them take a
        /// few seconds.
        @Test func eachFixtureIsMadeOnceHoweverManyAskAtOnce() throws {
            let scratch = Scratch()
            let fixtures = TitleFixtures(root: scratch.path + "/titles")
            let results = Locked<[TitleFixture: [String]]>([:])
            let failures = Locked<[String]>([])
            let started = Date()
            DispatchQueue.concurrentPerform(iterations: 4) { round in
                for fixture in round % 2 == 0 ? TitleFixture.allCases : TitleFixture.allCases.reversed() {
                    do {
                        let title = try fixtures.title(fixture)
                        results.withLock { $0[fixture, default: []].append("\(title.directory) \(title.seconds)") }
                    } catch {
                        failures.withLock { $0.append("\(fixture): \(error)") }
                    }
                }
            }
            let elapsed = Date().timeIntervalSince(started)
            let failed = failures.withLock { $0 }
            #expect(failed.isEmpty, "\(failed)")
            #expect(fixtures.titlesMade == TitleFixture.allCases.count)
            for (fixture, made) in results.withLock({ $0 }) {
                #expect(made.count == 4 && Set(made).count == 1, "\(fixture): \(made)")
            }
            let each = try TitleFixture.allCases.map { "\($0) \(String(format: "%.1f", try fixtures.title($0).seconds))" }
            print("title fixtures: \(String(format: "%.1f", elapsed)) s to make them all (\(each.joined(separator: ", ")))")
            #expect(elapsed < 30)
        }
    }
}

/// A fixture read the way mediacache reads a title: from the URL it has under
/// `http://127.0.0.1/<fixture>/`, its master (if any), then every media playlist it
/// names, with the master's variables.
struct ReadTitle {
    var master: HLSMasterPlaylist?
    /// By path relative to the title.
    var media: [String: HLSMediaPlaylist] = [:]
    /// Playlists, init sections, keys and segments (gaps have nothing to fetch), relative
    /// to the title; a URL outside it stays absolute, to show up in a comparison.
    var resources: Set<String> = []

    init(_ title: StreamingTitle) throws {
        resources.insert(title.entry)
        let entry = try HLSPlaylist(
            parsing: try TitleFixtures.read(title.entryPath), url: Self.url(title.entry, in: title))
        switch entry {
        case .media(let playlist):
            try add(playlist, as: title.entry, title)
        case .master(let master):
            self.master = master
            let uris = master.variants.filter { !$0.isIFrameOnly }.map(\.uri) + master.renditions.compactMap(\.uri)
            for uri in uris {
                let path = Self.relative(uri, in: title)
                guard media[path] == nil else { continue }
                resources.insert(path)
                let playlist = try HLSMediaPlaylist(
                    parsing: try TitleFixtures.read(title.path(path)), url: uri, imports: master.variables)
                try add(playlist, as: path, title)
            }
        }
    }

    private mutating func add(_ playlist: HLSMediaPlaylist, as path: String, _ title: StreamingTitle) throws {
        media[path] = playlist
        let uris =
            playlist.initSections.flatMap { [$0.uri] + [$0.key?.uri].compactMap { $0 } }
            + playlist.segments.filter { !$0.isGap }.flatMap { [$0.uri] + [$0.key?.uri].compactMap { $0 } }
        resources.formUnion(uris.map { Self.relative($0, in: title) })
    }

    static func url(_ relative: String, in title: StreamingTitle) -> String {
        "http://127.0.0.1/\(title.fixture.rawValue)/" + relative
    }

    static func relative(_ url: String, in title: StreamingTitle) -> String {
        let base = Self.url("", in: title)
        return url.hasPrefix(base) ? String(url.dropFirst(base.count)) : url
    }
}
