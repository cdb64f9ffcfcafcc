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

    /// Whether a response of `mediaType` for `url` may be an error page: its first bytes
    /// decide (servers without a MIME table label media `text/plain`).
    static func isSuspect(mediaType: String?, urlExpectsText: Bool) -> Bool {
        guard let type = mediaType, !urlExpectsText else { return false }
        return type.hasPrefix("text/") || textMediaTypes.contains(type)
    }

    /// Why a suspect body of `mediaType` whose first bytes are `firstBytes` is not media.
    static func rejection(mediaType: String, firstBytes: [UInt8]) -> String? {
        guard looksLikeText(firstBytes) else { return nil }
        return "the origin sent \(mediaType) instead of media (an error or login page?); check the URL and its headers"
    }

    /// Text is valid UTF-8 without control bytes other than whitespace; media is not.
    static func looksLikeText(_ bytes: [UInt8]) -> Bool {
        var sample = bytes.prefix(512)
        // A multi-byte character may be cut at the end of the sample.
        while let last = sample.last, last & 0xC0 == 0x80 || last >= 0xC0 { sample = sample.dropLast() }
        guard String(validating: sample, as: UTF8.self) != nil else { return false }
        return !sample.contains { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }
    }

    /// Why the first bytes of a body for `url` are not the file asked for, or nil.
    static func sniffRejection(firstBytes: [UInt8], urlExpectsText: Bool) -> String? {
        guard !urlExpectsText else { return nil }
        // Byte order marks and whitespace may come first; bytes, not Foundation's
        // Unicode trimming, which cost more than a small file's whole probe.
        var text = firstBytes.prefix(64)
        while true {
            if text.starts(with: [0xEF, 0xBB, 0xBF]) {
                text = text.dropFirst(3)
            } else if let first = text.first, [0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D].contains(first) {
                text = text.dropFirst()
            } else {
                break
            }
        }
        guard startsCaselessly(text, with: "<!doctype html") || startsCaselessly(text, with: "<html") else { return nil }
        return "the origin sent an HTML page instead of media (an error or login page?); check the URL and its headers"
    }

    /// Whether `bytes` start with the lowercase ASCII `prefix`, in any case (no String
    /// is made: this runs for the first bytes of every file and segment).
    private static func startsCaselessly(_ bytes: ArraySlice<UInt8>, with prefix: StaticString) -> Bool {
        guard bytes.count >= prefix.utf8CodeUnitCount else { return false }
        return prefix.withUTF8Buffer { prefix in
            zip(bytes, prefix).allSatisfy { byte, wanted in
                (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 == wanted : byte == wanted
            }
        }
    }

    /// Whether a URL whose path ends in `pathExtension` names a text format.
    static func expectsText(pathExtension: String?) -> Bool {
        pathExtension.map(textExtensions.contains) ?? false
    }
}
