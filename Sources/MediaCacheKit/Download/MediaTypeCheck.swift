/// Tells an error or login page from the media it replaced.
///
/// Origins often answer 200 with an HTML page (expired token, paywall, captive portal).
/// A text-like body is refused unless the URL itself names a text format.
enum MediaTypeCheck {
    static let textExtensions: Set<String> = [
        "html", "htm", "txt", "json", "xml", "vtt", "srt", "m3u8", "m3u", "mpd", "css", "js", "csv", "md",
    ]
    static let textMediaTypes: Set<String> = [
        "application/json", "application/xml", "application/xhtml+xml", "application/problem+json",
        "application/javascript",
    ]

    /// Why a response of `mediaType` for `url` is not the file asked for, or nil.
    static func rejection(mediaType: String?, url: String) -> String? {
        guard let type = mediaType, urlExpectsText(url) == false else { return nil }
        guard type.hasPrefix("text/") || textMediaTypes.contains(type) else { return nil }
        return "the origin sent \(type) instead of media (an error or login page?); check the URL and its headers"
    }

    /// Why the first bytes of a body for `url` are not the file asked for, or nil.
    static func sniffRejection(firstBytes: [UInt8], url: String) -> String? {
        guard urlExpectsText(url) == false else { return nil }
        let text = String(decoding: firstBytes.prefix(64), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        guard text.hasPrefix("<!doctype html") || text.hasPrefix("<html") else { return nil }
        return "the origin sent an HTML page instead of media (an error or login page?); check the URL and its headers"
    }

    private static func urlExpectsText(_ url: String) -> Bool {
        guard let ext = URLParts(url)?.pathExtension else { return false }
        return textExtensions.contains(ext)
    }
}

import Foundation
