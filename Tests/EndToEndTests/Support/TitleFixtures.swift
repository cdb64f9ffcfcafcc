import Foundation

/// A streaming title on disk, made by ffmpeg (and openssl) for the end-to-end tests:
/// serve `directory` with the test origin or nginx and give mediacache `entry`'s URL.
/// Made once per test process and shared: read it, never change it (`copy(into:)`
/// first to break or edit one).
struct StreamingTitle: Sendable {
    let fixture: TitleFixture
    /// Absolute.
    let directory: String
    /// The master or media playlist, or the MPD, relative to `directory`.
    let entry: String
    /// Every file of the title, `entry` included, relative to `directory`, sorted: what a
    /// cached copy holds (nothing else is in `directory`).
    let resources: [String]
    /// What ffmpeg plays to fingerprint the title (`TitleFixtures.fingerprint`): `entry`,
    /// or, where this ffmpeg cannot read the entry, the media files it names. Empty when
    /// ffmpeg cannot play the title at all (the gap, live and DRM titles).
    let playback: [String]
    /// Each encrypted segment's key and IV, by segment path, where the fixture chose them.
    let encryption: [String: SegmentEncryption]
    /// How long making it took.
    let seconds: Double

    func path(_ relative: String) -> String { directory + "/" + relative }

    var entryPath: String { path(entry) }

    /// A copy in `parent`/<fixture name> that a test may change; the same resources.
    func copy(into parent: String) throws -> StreamingTitle {
        let target = parent + "/" + fixture.rawValue
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: directory, toPath: target)
        return StreamingTitle(
            fixture: fixture, directory: target, entry: entry, resources: resources, playback: playback,
            encryption: encryption, seconds: 0)
    }
}

/// How one segment of a hand-encrypted fixture was encrypted (AES-128-CBC, PKCS#7).
struct SegmentEncryption: Sendable, Equatable {
    /// The key file, relative to the title's directory.
    let keyFile: String
    let key: [UInt8]
    let iv: [UInt8]
}

/// The titles there are. All are 7 s of `testsrc` (320x180, 25 fps, H.264 ultrafast)
/// with a 440 Hz `sine` (AAC), a key frame every 2 s; 7 rather than 8 s because this
/// ffmpeg's dash demuxer asks for one `$Number$` segment too many when the duration is
/// a multiple of the segment's.
enum TitleFixture: String, CaseIterable, Sendable, CustomStringConvertible {
    /// A media playlist of MPEG-TS segments, `EXT-X-PLAYLIST-TYPE:VOD`.
    case hlsTS
    /// fMP4 segments with one `EXT-X-MAP`.
    case hlsFMP4
    /// A master playlist: three video variants (320x180, 256x144, 160x90) sharing the
    /// audio group `group_aud`, and a WebVTT subtitle rendition in group `subs`.
    case hlsMaster
    /// A master playlist of fMP4 renditions: one video variant and the audio group
    /// `group_aud` it names, each with its own `EXT-X-MAP`.
    case hlsMasterFMP4
    /// `EXT-X-BYTERANGE`s of one MPEG-TS file.
    case hlsSingleFile
    /// AES-128 with one key, by ffmpeg (`-hls_key_info_file`); it writes `IV=0x0…0`.
    case hlsAES
    /// AES-128 by openssl with two keys, the second from the third segment on, no IV
    /// attribute (the IV is the media sequence number, which starts at 7).
    case hlsKeyRotation
    /// Two fMP4 renditions spliced: two segments under one `EXT-X-MAP`, then
    /// `EXT-X-DISCONTINUITY` and two under another map of another resolution.
    case hlsTwoMaps
    /// `hlsTS` with the third segment marked `EXT-X-GAP` and its file gone.
    case hlsGap
    /// A live window: three 1 s segments, no `EXT-X-ENDLIST`, no playlist type.
    case hlsLive
    /// `hlsTS` under a FairPlay key (`METHOD=SAMPLE-AES,URI="skd://…"`).
    case hlsDRM
    /// `SegmentTemplate` with `SegmentTimeline`, video and audio AdaptationSets.
    case dashTemplate
    /// `SegmentTemplate` with `$Number$` and `@duration`, no timeline.
    case dashNumber
    /// `SegmentList` of `SegmentURL`s, a file each (`-use_template 0`). This ffmpeg's
    /// dash demuxer does not play its own MPD to the end ("missing template URL" after
    /// 125 of 175 frames); the same encode as `dashTemplate`, whose frames it must have.
    case dashList
    /// `-single_file 1`: this ffmpeg writes a `SegmentList` of `mediaRange`s (with
    /// per-segment `indexRange` sidx boxes) into one MP4 per representation.
    case dashSingleFile
    /// The on-demand profile: one MP4 per representation with a global `sidx`, each a
    /// `BaseURL` and a `SegmentBase` (made by hand around ffmpeg's files).
    case dashOnDemand

    var description: String { rawValue }

    var isHLS: Bool { rawValue.hasPrefix("hls") }

    /// The title, made on first use in this process.
    func make() throws -> StreamingTitle { try TitleFixtures.shared.title(self) }
}

/// Makes each fixture once under `root`, however many threads ask. The tests share
/// `shared`, made once per test process and removed at exit.
final class TitleFixtures: @unchecked Sendable {
    static let shared: TitleFixtures = {
        let fixtures = TitleFixtures(
            root: NSTemporaryDirectory() + "mediacache-e2e-titles-\(getpid())-" + UUID().uuidString.prefix(8))
        atexit { try? FileManager.default.removeItem(atPath: TitleFixtures.shared.root) }
        return fixtures
    }()

    let root: String
    /// Recursive: a fixture made from another (`hlsGap` from `hlsTS`) makes that one
    /// while holding it. One at a time is as fast as it gets on two cores: ffmpeg uses both.
    private let lock = NSRecursiveLock()
    private var made: [TitleFixture: StreamingTitle] = [:]
    private var makings = 0

    /// Fixtures of its own under `root` (a test of the making); tests use `shared`.
    init(root: String) {
        self.root = root
    }

    /// How many titles were made: each fixture once, however often asked for.
    var titlesMade: Int { lock.withLock { makings } }

    func title(_ fixture: TitleFixture) throws -> StreamingTitle {
        try lock.withLock {
            if let title = made[fixture] { return title }
            let started = Date()
            let directory = root + "/" + fixture.rawValue
            // A try that failed half-way leaves files behind.
            try? FileManager.default.removeItem(atPath: directory)
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let recipe = try recipe(fixture, in: directory)
            let title = StreamingTitle(
                fixture: fixture, directory: directory, entry: recipe.entry, resources: try Self.files(in: directory),
                playback: recipe.playback ?? [recipe.entry], encryption: recipe.encryption,
                seconds: Date().timeIntervalSince(started))
            made[fixture] = title
            makings += 1
            return title
        }
    }

    /// What a maker says about the title it wrote.
    struct Recipe {
        var entry: String
        /// nil: ffmpeg plays `entry`.
        var playback: [String]? = nil
        var encryption: [String: SegmentEncryption] = [:]
    }

    private func recipe(_ fixture: TitleFixture, in directory: String) throws -> Recipe {
        // Files ffmpeg needs that are no part of a title (a key info file, subtitles).
        let inputs = root + "/inputs"
        try FileManager.default.createDirectory(atPath: inputs, withIntermediateDirectories: true)
        return switch fixture {
        case .hlsTS: try Self.makeHLSTS(directory)
        case .hlsFMP4: try Self.makeHLSFMP4(directory)
        case .hlsMaster: try Self.makeHLSMaster(directory, inputs: inputs)
        case .hlsMasterFMP4: try Self.makeHLSMasterFMP4(directory)
        case .hlsSingleFile: try Self.makeHLSSingleFile(directory)
        case .hlsAES: try Self.makeHLSAES(directory, inputs: inputs)
        case .hlsKeyRotation: try Self.makeHLSKeyRotation(directory, clear: title(.hlsTS))
        case .hlsTwoMaps: try Self.makeHLSTwoMaps(directory, inputs: inputs)
        case .hlsGap: try Self.makeHLSGap(directory, clear: title(.hlsTS))
        case .hlsLive: try Self.makeHLSLive(directory)
        case .hlsDRM: try Self.makeHLSDRM(directory, clear: title(.hlsTS))
        case .dashTemplate: try Self.makeDASH(directory, ["-use_template", "1", "-use_timeline", "1"])
        case .dashNumber: try Self.makeDASH(directory, ["-use_template", "1", "-use_timeline", "0"])
        case .dashList: try Self.makeDASH(directory, ["-use_template", "0"])
        case .dashSingleFile: try Self.makeDASHSingleFile(directory)
        case .dashOnDemand: try Self.makeDASHOnDemand(directory)
        }
    }

    /// What a player sees of `title`: `ffmpeg -xerror … -c copy -f framemd5` of each of
    /// its playback inputs, read from disk, one after the other. Equal for a cached copy
    /// iff every frame is.
    static func fingerprint(_ title: StreamingTitle) throws -> String {
        guard !title.playback.isEmpty else { throw NotPlayable(fixture: title.fixture) }
        return try title.playback.map { try fingerprint(entry: title.path($0)) }.joined()
    }

    /// `ffmpeg -xerror … -f framemd5` of a playlist, MPD or media file at `path`.
    static func fingerprint(entry path: String) throws -> String {
        // ffmpeg's HLS demuxer refuses a key file whose name is not a media extension
        // (`key.bin`) unless told otherwise; its dash demuxer has the same option.
        let isManifest = path.hasSuffix(".m3u8") || path.hasSuffix(".mpd")
        let result = try ffmpeg(
            ["-v", "error", "-xerror"] + (isManifest ? ["-allowed_extensions", "ALL"] : []) + [
                "-i", path, "-map", "0", "-c", "copy", "-f", "framemd5", "-",
            ])
        return result.stdout
    }

    struct NotPlayable: Error, CustomStringConvertible {
        let fixture: TitleFixture
        var description: String { "ffmpeg cannot play the \(fixture) fixture; it has no fingerprint" }
    }

    struct ToolFailed: Error, CustomStringConvertible {
        let command: String
        let result: RunResult
        var description: String {
            let why = result.status == -1 ? "ran over its time and was killed" : "exited \(result.status)"
            return "\(command) \(why): \(result.stderr.suffix(2000))"
        }
    }

    /// ffmpeg, bounded in time; a failure throws with its stderr.
    @discardableResult
    static func ffmpeg(_ arguments: [String], timeout: Double = 60) throws -> RunResult {
        let result = try ExternalTool.run("/usr/bin/ffmpeg", ["-nostdin", "-hide_banner"] + arguments, timeout: timeout)
        guard result.status == 0 else {
            throw ToolFailed(command: "ffmpeg " + arguments.joined(separator: " "), result: result)
        }
        return result
    }

    /// `openssl enc -aes-128-cbc` of `input` into `output` (PKCS#7 padding, as HLS wants),
    /// or `-d` back.
    static func encrypt(_ input: String, to output: String, key: [UInt8], iv: [UInt8], decrypt: Bool = false) throws {
        let arguments =
            ["enc", "-aes-128-cbc"] + (decrypt ? ["-d"] : []) + [
                "-K", hex(key), "-iv", hex(iv), "-in", input, "-out", output,
            ]
        let result = try ExternalTool.run("/usr/bin/openssl", arguments, timeout: 30)
        guard result.status == 0 else {
            throw ToolFailed(command: "openssl " + arguments.joined(separator: " "), result: result)
        }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// Every regular file under `directory`, relative, sorted.
    static func files(in directory: String) throws -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: directory) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: directory])
        }
        return walker.compactMap { $0 as? String }.filter {
            var isDirectory: ObjCBool = false
            FileManager.default.fileExists(atPath: directory + "/" + $0, isDirectory: &isDirectory)
            return !isDirectory.boolValue
        }.sorted()
    }

    static func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    static func read(_ path: String) throws -> String {
        try String(contentsOfFile: path, encoding: .utf8)
    }
}
