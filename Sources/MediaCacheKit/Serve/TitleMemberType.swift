/// The Content-Type of a title's stored file, from the name the plan gave it (a media
/// extension, `key-N.key.ts` for an AES key) and the kind of its rendition: what a
/// player (hls.js, Safari, Chromium's own HLS, ExoPlayer) checks before it reads a file.
public enum TitleMemberType {
    public static func contentType(of path: String, renditionKind: String?) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        // Keys end like media so that ffmpeg opens them from disk; they are 16 bytes of key.
        if isKeyFile(name) { return "application/octet-stream" }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        let ext = parts.count > 1 ? parts[parts.count - 1].lowercased() : ""
        // A DASH title's WebVTT ends like media for ffmpeg (`DASHTitlePlan.storedExtension`).
        if ext == dashTextSuffix, parts.count > 2, webVTTExtensions.contains(parts[parts.count - 2].lowercased()) {
            return "text/vtt"
        }
        let audio = renditionKind == "audio"
        switch ext {
        case "m3u8": return "application/vnd.apple.mpegurl"
        case "mpd": return "application/dash+xml"
        case "ts", "mpegts": return "video/mp2t"
        case "m4s", "mp4", "m4v", "cmfv": return audio ? "audio/mp4" : "video/mp4"
        case "m4a", "cmfa": return "audio/mp4"
        case "vtt", "webvtt": return "text/vtt"
        case "aac": return "audio/aac"
        case "ac3": return "audio/ac3"
        case "eac3": return "audio/eac3"
        case "mp3": return "audio/mpeg"
        case "flac": return "audio/flac"
        case "mov": return "video/quicktime"
        case "mpeg", "mpg": return "video/mpeg"
        default: return "application/octet-stream"
        }
    }

    static let webVTTExtensions: Set<String> = ["vtt", "webvtt"]
    /// What follows `.vtt` in a DASH title's stored WebVTT file.
    static let dashTextSuffix = "mp4"

    /// `key-3.key.ts`: the name `HLSTitlePlan` gives the N-th key of a rendition.
    static func isKeyFile(_ name: String) -> Bool {
        guard name.hasPrefix("key-"), name.hasSuffix(HLSTitlePlan.keyFileSuffix) else { return false }
        let number = name.dropFirst("key-".count).dropLast(HLSTitlePlan.keyFileSuffix.count)
        return !number.isEmpty && number.allSatisfy(\.isASCII) && number.allSatisfy(\.isNumber)
    }
}
