/// The Content-Type a player needs. The origin's, unless it sent none, a generic one
/// (`application/octet-stream`) or one that is no media type for a media file (a
/// server without a type table sends `text/plain` for an .mp4, which browsers refuse
/// to play): then the file's extension decides.
enum MediaTypes {
    static func contentType(origin: String?, name: String) -> String {
        let ext = name.split(separator: ".").last.map { $0.lowercased() } ?? ""
        let byName = byExtension[ext]
        if let origin, !generic.contains(origin.lowercased()) {
            guard let byName, isMedia(byName), !isMedia(origin) else { return origin }
            return byName
        }
        return byName ?? "application/octet-stream"
    }

    static func isMedia(_ type: String) -> Bool {
        let type = type.lowercased()
        return type.hasPrefix("video/") || type.hasPrefix("audio/") || type.contains("mpegurl") || type.hasSuffix("dash+xml")
    }

    private static let generic: Set<String> = ["application/octet-stream", "binary/octet-stream", "application/binary"]

    private static let byExtension: [String: String] = [
        "mp4": "video/mp4", "m4v": "video/mp4", "m4a": "audio/mp4", "mov": "video/quicktime",
        "3gp": "video/3gpp", "webm": "video/webm", "mkv": "video/x-matroska", "ts": "video/mp2t",
        "mp3": "audio/mpeg", "aac": "audio/aac", "flac": "audio/flac", "ogg": "audio/ogg", "opus": "audio/ogg",
        "wav": "audio/wav", "m3u8": "application/vnd.apple.mpegurl", "mpd": "application/dash+xml",
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "vtt": "text/vtt", "srt": "text/plain",
    ]
}
