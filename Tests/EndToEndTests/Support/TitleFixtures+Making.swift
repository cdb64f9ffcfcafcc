import Foundation

/// How each fixture is made: ffmpeg's `hls` and `dash` muxers, and by hand where ffmpeg
/// writes no such title (key rotation, two maps, a gap, DRM).
extension TitleFixtures {
    static let duration = 7

    /// Video at `size` and audio, `duration` seconds.
    static func source(size: String = "320x180") -> [String] {
        [
            "-f", "lavfi", "-i", "testsrc=duration=\(duration):size=\(size):rate=25",
            "-f", "lavfi", "-i", "sine=frequency=440:duration=\(duration)",
        ]
    }

    /// 4:2:0 H.264 (testsrc is RGB; left alone, x264 would pick a 4:4:4 profile players
    /// refuse) with a key frame every 2 s, so every segment starts with one.
    static let encoding = [
        "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-b:v", "300k",
        "-force_key_frames", "expr:gte(t,n_forced*2)", "-c:a", "aac", "-b:a", "64k",
    ]

    /// A VOD media playlist `index.m3u8` of 2 s segments in `directory`.
    static func hls(_ directory: String, size: String = "320x180", _ extra: [String]) throws {
        try ffmpeg(
            source(size: size) + encoding + ["-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod"] + extra
                + ["-y", directory + "/index.m3u8"])
    }

    static func makeHLSTS(_ directory: String) throws -> Recipe {
        try hls(directory, ["-hls_segment_type", "mpegts", "-hls_segment_filename", directory + "/seg%d.ts"])
        return Recipe(entry: "index.m3u8")
    }

    static func makeHLSFMP4(_ directory: String) throws -> Recipe {
        try hls(
            directory,
            [
                "-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "init.mp4",
                "-hls_segment_filename", directory + "/seg%d.m4s",
            ])
        return Recipe(entry: "index.m3u8")
    }

    /// This ffmpeg (5.1) writes the subtitle rendition only for a subtitle stream that
    /// rides in a variant with video (`s:0` alone is "No streams to mux"); it then names
    /// the group on every variant. The audio group comes out as `group_aud`.
    static func makeHLSMaster(_ directory: String, inputs: String) throws -> Recipe {
        let cues = (0..<duration).map { second in
            String(format: "00:00:%02d.000 --> 00:00:%02d.000\nSecond %d\n", second, second + 1, second)
        }
        let subtitles = inputs + "/master-subtitles.vtt"
        try write("WEBVTT\n\n" + cues.joined(separator: "\n"), to: subtitles)
        try ffmpeg(
            [
                "-f", "lavfi", "-i", "testsrc=duration=\(duration):size=320x180:rate=25",
                "-f", "lavfi", "-i", "sine=frequency=440:duration=\(duration)", "-i", subtitles,
                "-map", "0:v", "-map", "0:v", "-map", "0:v", "-map", "1:a", "-map", "2:s",
            ] + encoding + [
                "-filter:v:0", "scale=320:180", "-b:v:0", "400k",
                "-filter:v:1", "scale=256:144", "-b:v:1", "200k",
                "-filter:v:2", "scale=160:90", "-b:v:2", "100k",
                "-c:s", "webvtt",
                "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod",
                "-hls_segment_filename", directory + "/v%v_%d.ts", "-master_pl_name", "master.m3u8",
                "-var_stream_map",
                "v:0,s:0,agroup:aud,sgroup:subs v:1,agroup:aud v:2,agroup:aud a:0,agroup:aud,default:yes",
                "-y", directory + "/v%v.m3u8",
            ])
        return Recipe(entry: "master.m3u8")
    }

    static func makeHLSMasterFMP4(_ directory: String) throws -> Recipe {
        try ffmpeg(
            source() + ["-map", "0:v", "-map", "1:a"] + encoding + [
                "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod", "-hls_segment_type", "fmp4",
                "-hls_fmp4_init_filename", "init_%v.mp4", "-hls_segment_filename", directory + "/v%v_%d.m4s",
                "-master_pl_name", "master.m3u8", "-var_stream_map", "v:0,agroup:aud a:0,agroup:aud,default:yes",
                "-y", directory + "/v%v.m3u8",
            ])
        return Recipe(entry: "master.m3u8")
    }

    static func makeHLSSingleFile(_ directory: String) throws -> Recipe {
        try hls(directory, ["-hls_flags", "single_file", "-hls_segment_filename", directory + "/media.ts"])
        return Recipe(entry: "index.m3u8")
    }

    /// The key of `hlsAES`.
    static let aesKey: [UInt8] = Array(0x10..<0x20)

    static func makeHLSAES(_ directory: String, inputs: String) throws -> Recipe {
        FileManager.default.createFile(atPath: directory + "/key.bin", contents: Data(aesKey))
        // The URI written in the playlist, then where ffmpeg reads the key.
        let keyInfo = inputs + "/aes.keyinfo"
        try write("key.bin\n\(directory)/key.bin\n", to: keyInfo)
        try hls(directory, ["-hls_key_info_file", keyInfo, "-hls_segment_filename", directory + "/seg%d.ts"])
        return Recipe(entry: "index.m3u8")
    }

    /// The keys of `hlsKeyRotation`, and the media sequence it starts at.
    static let rotationKeys: [[UInt8]] = [Array(0x20..<0x30), Array(0x30..<0x40)]
    static let rotationFirstSequence = 7

    /// `hlsTS`'s segments encrypted by openssl: the first two with `key1.bin`, the rest
    /// with `key2.bin`, each with its media sequence number as IV.
    static func makeHLSKeyRotation(_ directory: String, clear: StreamingTitle) throws -> Recipe {
        let segments = try mediaSegments(clear.entryPath)
        var playlist = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n"
        playlist += "#EXT-X-MEDIA-SEQUENCE:\(rotationFirstSequence)\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        var encryption: [String: SegmentEncryption] = [:]
        for (index, segment) in segments.enumerated() {
            let keyIndex = index < 2 ? 0 : 1
            let keyFile = "key\(keyIndex + 1).bin"
            if index == 0 || index == 2 {
                FileManager.default.createFile(atPath: directory + "/" + keyFile, contents: Data(rotationKeys[keyIndex]))
                playlist += "#EXT-X-KEY:METHOD=AES-128,URI=\"\(keyFile)\"\n"
            }
            let sequence = rotationFirstSequence + index
            let name = "seg\(sequence).ts"
            let iv = [UInt8](repeating: 0, count: 15) + [UInt8(sequence)]
            try encrypt(clear.path(segment.uri), to: directory + "/" + name, key: rotationKeys[keyIndex], iv: iv)
            encryption[name] = SegmentEncryption(keyFile: keyFile, key: rotationKeys[keyIndex], iv: iv)
            playlist += segment.extinf + "\n" + name + "\n"
        }
        try write(playlist + "#EXT-X-ENDLIST\n", to: directory + "/index.m3u8")
        return Recipe(entry: "index.m3u8", encryption: encryption)
    }

    /// The first two segments of a 320x180 fMP4 rendition (`a_*`), then the last two of
    /// a 160x90 one (`b_*`), each after its own `EXT-X-MAP`.
    static func makeHLSTwoMaps(_ directory: String, inputs: String) throws -> Recipe {
        var playlist = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n"
        playlist += "#EXT-X-PLAYLIST-TYPE:VOD\n"
        for (name, size, half) in [("a", "320x180", 0..<2), ("b", "160x90", 2..<4)] {
            let rendition = inputs + "/two-maps-" + name
            try? FileManager.default.removeItem(atPath: rendition)
            try FileManager.default.createDirectory(atPath: rendition, withIntermediateDirectories: true)
            try hls(
                rendition, size: size,
                [
                    "-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", name + "_init.mp4",
                    "-hls_segment_filename", rendition + "/" + name + "_seg%d.m4s",
                ])
            let segments = try mediaSegments(rendition + "/index.m3u8")
            guard segments.count == 4 else { throw Unexpected("\(rendition)/index.m3u8 has \(segments.count) segments, not 4") }
            if name == "b" { playlist += "#EXT-X-DISCONTINUITY\n" }
            playlist += "#EXT-X-MAP:URI=\"\(name)_init.mp4\"\n"
            try FileManager.default.moveItem(atPath: rendition + "/\(name)_init.mp4", toPath: directory + "/\(name)_init.mp4")
            for segment in segments[half] {
                try FileManager.default.moveItem(atPath: rendition + "/" + segment.uri, toPath: directory + "/" + segment.uri)
                playlist += segment.extinf + "\n" + segment.uri + "\n"
            }
        }
        try write(playlist + "#EXT-X-ENDLIST\n", to: directory + "/index.m3u8")
        return Recipe(entry: "index.m3u8")
    }

    /// The third segment of `hlsTS` turned into a gap. This ffmpeg knows no `EXT-X-GAP`:
    /// it tries the missing file and, with `-xerror`, fails.
    static func makeHLSGap(_ directory: String, clear: StreamingTitle) throws -> Recipe {
        let segments = try mediaSegments(clear.entryPath)
        var playlist = "#EXTM3U\n#EXT-X-VERSION:8\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n"
        playlist += "#EXT-X-PLAYLIST-TYPE:VOD\n"
        for (index, segment) in segments.enumerated() {
            if index == 2 {
                playlist += "#EXT-X-GAP\n"
            } else {
                try FileManager.default.copyItem(atPath: clear.path(segment.uri), toPath: directory + "/" + segment.uri)
            }
            playlist += segment.extinf + "\n" + segment.uri + "\n"
        }
        try write(playlist + "#EXT-X-ENDLIST\n", to: directory + "/index.m3u8")
        return Recipe(entry: "index.m3u8", playback: [])
    }

    /// What a live encoder leaves: a window of three 1 s segments, the older ones deleted.
    static func makeHLSLive(_ directory: String) throws -> Recipe {
        try ffmpeg(
            source() + encoding + [
                "-force_key_frames", "expr:gte(t,n_forced*1)", "-f", "hls", "-hls_time", "1", "-hls_list_size", "3",
                "-hls_flags", "omit_endlist+delete_segments", "-hls_segment_filename", directory + "/seg%d.ts",
                "-y", directory + "/index.m3u8",
            ])
        // ffmpeg deletes a segment only once it is a further segment out of the window.
        let listed = Set(try mediaSegments(directory + "/index.m3u8").map(\.uri))
        for file in try files(in: directory) where file.hasSuffix(".ts") && !listed.contains(file) {
            try FileManager.default.removeItem(atPath: directory + "/" + file)
        }
        return Recipe(entry: "index.m3u8", playback: [])
    }

    /// `hlsTS`'s segments under a FairPlay key (they are not really encrypted: no
    /// reader gets that far).
    static func makeHLSDRM(_ directory: String, clear: StreamingTitle) throws -> Recipe {
        var playlist = "#EXTM3U\n#EXT-X-VERSION:5\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n"
        playlist += "#EXT-X-PLAYLIST-TYPE:VOD\n"
        playlist += "#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"skd://example\",KEYFORMAT=\"com.apple.streamingkeydelivery\"\n"
        for segment in try mediaSegments(clear.entryPath) {
            try FileManager.default.copyItem(atPath: clear.path(segment.uri), toPath: directory + "/" + segment.uri)
            playlist += segment.extinf + "\n" + segment.uri + "\n"
        }
        try write(playlist + "#EXT-X-ENDLIST\n", to: directory + "/index.m3u8")
        return Recipe(entry: "index.m3u8", playback: [])
    }

    /// `manifest.mpd` with a video and an audio AdaptationSet of 2 s segments.
    static func makeDASH(_ directory: String, _ extra: [String]) throws -> Recipe {
        try ffmpeg(
            source() + encoding + ["-map", "0:v", "-map", "1:a", "-f", "dash", "-seg_duration", "2"] + extra + [
                "-adaptation_sets", "id=0,streams=v id=1,streams=a", "-y", directory + "/manifest.mpd",
            ])
        return Recipe(entry: "manifest.mpd")
    }

    /// This ffmpeg's dash demuxer misreads the `mediaRange`s it wrote ("corrupt input
    /// packet", or an endless loop without `-xerror`), so the fingerprint plays each
    /// representation's file as the fragmented MP4 it is.
    static func makeDASHSingleFile(_ directory: String) throws -> Recipe {
        _ = try makeDASH(directory, ["-single_file", "1"])
        return Recipe(entry: "manifest.mpd", playback: try files(in: directory).filter { $0.hasSuffix(".mp4") })
    }

    /// The on-demand profile as packagers write it (and as this ffmpeg's dash muxer does
    /// not): one fragmented MP4 per representation with a global `sidx`, and an MPD whose
    /// `SegmentBase` says where the header (`Initialization@range`) and the index
    /// (`@indexRange`) lie. ffmpeg plays the MPD.
    static func makeDASHOnDemand(_ directory: String) throws -> Recipe {
        let fragmented = ["-movflags", "+frag_keyframe+empty_moov+default_base_moof+dash+global_sidx", "-f", "mp4"]
        try ffmpeg(
            source() + encoding + ["-map", "0:v"] + fragmented + ["-y", directory + "/video.mp4"]
                + ["-map", "1:a", "-c:a", "aac", "-b:a", "64k", "-frag_duration", "2000000"] + fragmented
                + ["-y", directory + "/audio.mp4"])
        func segmentBase(_ file: String) throws -> String {
            let boxes = try topLevelBoxes(directory + "/" + file)
            guard let moov = boxes.first(where: { $0.type == "moov" }), let sidx = boxes.first(where: { $0.type == "sidx" }),
                sidx.start == moov.end
            else { throw Unexpected("\(file): no sidx after the moov: \(boxes)") }
            return "<BaseURL>\(file)</BaseURL><SegmentBase indexRange=\"\(sidx.start)-\(sidx.end - 1)\">"
                + "<Initialization range=\"0-\(moov.end - 1)\"/></SegmentBase>"
        }
        let mpd = """
            <?xml version="1.0" encoding="utf-8"?>
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" profiles="urn:mpeg:dash:profile:isoff-on-demand:2011"
              minBufferTime="PT2S" mediaPresentationDuration="PT\(duration)S">
              <Period>
                <AdaptationSet contentType="video" mimeType="video/mp4">
                  <Representation id="v" bandwidth="300000" width="320" height="180">\(try segmentBase("video.mp4"))</Representation>
                </AdaptationSet>
                <AdaptationSet contentType="audio" mimeType="audio/mp4">
                  <Representation id="a" bandwidth="64000">\(try segmentBase("audio.mp4"))</Representation>
                </AdaptationSet>
              </Period>
            </MPD>

            """
        try mpd.write(toFile: directory + "/manifest.mpd", atomically: true, encoding: .utf8)
        return Recipe(entry: "manifest.mpd")
    }

    /// The top-level boxes of the MP4 at `path`: type, where each starts and ends.
    static func topLevelBoxes(_ path: String) throws -> [(type: String, start: Int, end: Int)] {
        guard let bytes = TestBytes.read(path) else { throw Unexpected("\(path) cannot be read") }
        var boxes: [(type: String, start: Int, end: Int)] = []
        var offset = 0
        while offset + 8 <= bytes.count {
            let size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            guard size >= 8, offset + size <= bytes.count else { throw Unexpected("\(path): a box of \(size) bytes at \(offset)") }
            boxes.append((type, offset, offset + size))
            offset += size
        }
        return boxes
    }

    /// The `EXTINF` line and URI of each segment of a simple media playlist ffmpeg wrote.
    static func mediaSegments(_ playlist: String) throws -> [(extinf: String, uri: String)] {
        var segments: [(extinf: String, uri: String)] = []
        var extinf: String?
        for line in try read(playlist).split(separator: "\n").map(String.init) {
            if line.hasPrefix("#EXTINF:") {
                extinf = line
            } else if !line.hasPrefix("#"), !line.isEmpty, let tag = extinf {
                segments.append((tag, line))
                extinf = nil
            }
        }
        guard !segments.isEmpty else { throw Unexpected("\(playlist) lists no segments") }
        return segments
    }

    struct Unexpected: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
