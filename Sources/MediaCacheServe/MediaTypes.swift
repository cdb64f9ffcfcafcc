/// The Content-Type a player needs, and whether a browser may show the object at all.
///
/// The type is the origin's, unless it sent none, a generic one (`application/octet-stream`)
/// or one that is no media type for a media file (a server without a type table sends
/// `text/plain` for an .mp4, which browsers refuse to play): then the file's extension
/// decides. Only media a player reads is served as itself: anything else (an HTML page,
/// an SVG, a script) is `application/octet-stream` and an attachment, since a document
/// shown from this server's address could read every other object it serves.
enum MediaTypes {
    struct Served: Equatable {
        var contentType: String
        /// Sent with `Content-Disposition: attachment`: a browser saves it, never shows it.
        var attachment: Bool
    }

    static func served(origin: String?, name: String) -> Served {
        let type = contentType(origin: origin, name: name)
        return isPlayable(type)
            ? Served(contentType: type, attachment: false)
            : Served(contentType: "application/octet-stream", attachment: true)
    }

    /// The bare type (parameters dropped, lowercased) named by the origin or the
    /// extension; a value that is no `type/subtype` of token characters counts as none.
    static func contentType(origin: String?, name: String) -> String {
        let ext = name.split(separator: ".").last.map { $0.lowercased() } ?? ""
        let byName = byExtension[ext]
        if let origin = origin.flatMap(bareType), !generic.contains(origin) {
            guard let byName, isMedia(byName), !isMedia(origin) else { return origin }
            return byName
        }
        return byName ?? "application/octet-stream"
    }

    static func isMedia(_ type: String) -> Bool {
        let type = type.lowercased()
        return type.hasPrefix("video/") || type.hasPrefix("audio/") || type.contains("mpegurl") || type.hasSuffix("dash+xml")
    }

    /// What players and `<video>` read, and nothing a browser runs script in: media,
    /// playlists and manifests, subtitles, still images other than SVG.
    static func isPlayable(_ type: String) -> Bool {
        isMedia(type) || playableOthers.contains(type)
    }

    /// `video/mp4; codecs="avc1"` → `video/mp4`; nil for anything that is not a type
    /// (control characters, spaces, no slash), so a stored value never becomes a header
    /// of its own.
    static func bareType(_ value: String) -> String? {
        let bare = value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let trimmed = bare.trimmingCharacters(in: .whitespaces).lowercased()
        let parts = trimmed.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.unicodeScalars.allSatisfy(isTokenCharacter) })
        else { return nil }
        return trimmed
    }

    /// RFC 9110's `tchar`.
    private static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        guard scalar.isASCII else { return false }
        return (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)) || "!#$%&'*+-.^_`|~".unicodeScalars.contains(scalar)
    }

    private static let generic: Set<String> = ["application/octet-stream", "binary/octet-stream", "application/binary"]

    private static let playableOthers: Set<String> = [
        "application/mp4", "application/ogg", "text/vtt",
        "image/jpeg", "image/png", "image/gif", "image/webp", "image/avif",
    ]

    private static let byExtension: [String: String] = [
        "mp4": "video/mp4", "m4v": "video/mp4", "m4a": "audio/mp4", "mov": "video/quicktime",
        "3gp": "video/3gpp", "webm": "video/webm", "mkv": "video/x-matroska", "ts": "video/mp2t",
        "mp3": "audio/mpeg", "aac": "audio/aac", "flac": "audio/flac", "ogg": "audio/ogg", "opus": "audio/ogg",
        "wav": "audio/wav", "m3u8": "application/vnd.apple.mpegurl", "mpd": "application/dash+xml",
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "vtt": "text/vtt", "srt": "text/plain",
    ]
}
