/// The lines of an M3U8 body, checked before any tag is read: bounded in size, starting
/// with `#EXTM3U` (after an optional byte order mark and blank space), LF or CRLF ends,
/// surrounding blanks trimmed, comments and blank lines dropped.
struct PlaylistText {
    /// No real playlist comes close (a 1,000,000-segment one is ~60 MB only with long
    /// URLs); beyond this it is not a playlist anyone meant.
    static let maxBytes = 16 * 1024 * 1024

    /// A line that is a tag or a URI, with its 1-based number.
    struct Line {
        let number: Int
        let text: Substring
        var isTag: Bool { text.hasPrefix("#EXT") }
        /// `EXT-X-KEY` of `#EXT-X-KEY:...`.
        var tagName: Substring { text.dropFirst().prefix { $0 != ":" } }
    }

    let lines: [Line]
    /// The number of the last line, blank or not: where "the playlist ends" is reported.
    let lastLineNumber: Int

    /// Tags only a master playlist has: one of them makes the playlist a master.
    static let masterTags: Set<Substring> = [
        "EXT-X-STREAM-INF", "EXT-X-I-FRAME-STREAM-INF", "EXT-X-MEDIA", "EXT-X-SESSION-KEY", "EXT-X-SESSION-DATA",
        "EXT-X-CONTENT-STEERING",
    ]

    /// Whether any line is a master playlist tag.
    var containsMasterTags: Bool {
        lines.contains { $0.isTag && Self.masterTags.contains($0.tagName) }
    }

    init(_ bytes: [UInt8], url: String) throws(PresentationError) {
        guard bytes.count <= Self.maxBytes else { throw .tooLarge(url: url, bytes: bytes.count) }
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        var lines: [Line] = []
        var sawHeader = false
        let rawLines = body.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        for (offset, raw) in rawLines.enumerated() {
            let number = offset + 1
            let trimmed = Self.trimmed(raw)
            if trimmed.isEmpty { continue }
            if !sawHeader {
                guard trimmed.elementsEqual("#EXTM3U".utf8) else { throw .notAPlaylist(url: url) }
                sawHeader = true
                continue
            }
            // A comment is dropped unread: it may hold any bytes (titles in Latin-1).
            if trimmed.first == UInt8(ascii: "#") && !trimmed.starts(with: "#EXT".utf8) { continue }
            guard let text = String(validating: trimmed, as: UTF8.self) else {
                throw .malformed(url: url, line: number, tag: nil, reason: "the line is not UTF-8 text")
            }
            // CR, LF, NUL or an escape sequence would end up in a URL or a message.
            if ControlCharacters.occur(in: text, allowingTab: true) {
                throw .malformed(url: url, line: number, tag: nil, reason: "the line contains control characters")
            }
            lines.append(Line(number: number, text: Substring(text)))
        }
        guard sawHeader else { throw .notAPlaylist(url: url) }
        self.lines = lines
        // A final newline ends the last line; it does not start another.
        lastLineNumber = rawLines.last?.isEmpty == true ? rawLines.count - 1 : rawLines.count
    }

    /// `line` without the spaces, tabs and CR around it.
    private static func trimmed(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let blank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }
        guard let first = line.firstIndex(where: { !blank($0) }), let last = line.lastIndex(where: { !blank($0) })
        else { return [] }
        return line[first...last]
    }
}
