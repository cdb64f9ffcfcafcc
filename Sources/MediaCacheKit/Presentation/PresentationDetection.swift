/// The streaming formats a response can be, besides a plain file.
public enum PresentationFormat: String, Sendable, Hashable {
    case hls
    case dash

    /// The Content-Type a title's entry is stored and served with.
    public var mediaType: String {
        switch self {
        case .hls: "application/vnd.apple.mpegurl"
        case .dash: "application/dash+xml"
        }
    }
}

/// Tells a playlist or manifest from a file by its Content-Type and first bytes, with
/// no file extension needed (many origins serve playlists from `/play?id=...`).
public enum PresentationDetection {
    static let hlsMediaTypes: Set<String> = [
        "application/vnd.apple.mpegurl", "application/x-mpegurl", "audio/mpegurl", "audio/x-mpegurl",
    ]
    static let dashMediaType = "application/dash+xml"
    /// An XML prolog, comments and a DOCTYPE before the root element stay well within this.
    static let scanLimit = 4096

    /// The format of a response with `contentType` whose body starts with `firstBytes`;
    /// nil for anything else.
    public static func format(contentType: String?, firstBytes: [UInt8]) -> PresentationFormat? {
        if let type = contentType.flatMap(HTTPResponseHead.mediaType(of:)) {
            if hlsMediaTypes.contains(type) { return .hls }
            if type == dashMediaType { return .dash }
        }
        let body = skippingBlank(firstBytes.prefix(scanLimit))
        if body.starts(with: "#EXTM3U".utf8) {
            let next = body.dropFirst(7).first
            if next == nil || isBlank(next ?? 0) { return .hls }
        }
        return rootElementName(body) == "MPD" ? .dash : nil
    }

    /// The format a URL whose path ends in `pathExtension` names: `.m3u8` an HLS playlist,
    /// `.mpd` an MPD (a plain `.m3u` list of URLs is a text file like any other).
    static func namedFormat(pathExtension: String?) -> PresentationFormat? {
        switch pathExtension?.lowercased() {
        case "m3u8": .hls
        case "mpd": .dash
        default: nil
        }
    }

    /// Why a body that is no presentation cannot be what a URL naming `format` asked for.
    static func notThePresentation(_ format: PresentationFormat) -> String {
        let what = format == .hls ? "an HLS playlist (it does not start with #EXTM3U)" : "a DASH MPD (its root element is not <MPD>)"
        return "the origin's answer is not \(what): an error or login page? check the URL and its headers"
    }

    /// The local name of the first element of an XML document (`MPD` of `<mpd:MPD ...>`),
    /// found by skipping the prolog, comments and processing instructions: no XML parser
    /// for a yes-or-no question about a few bytes.
    static func rootElementName(_ bytes: ArraySlice<UInt8>) -> String? {
        var rest = bytes
        while true {
            rest = skippingBlank(rest)
            guard rest.first == UInt8(ascii: "<") else { return nil }
            if rest.starts(with: "<?".utf8) {
                guard let end = find("?>", in: rest) else { return nil }
                rest = rest[end...]
            } else if rest.starts(with: "<!--".utf8) {
                guard let end = find("-->", in: rest) else { return nil }
                rest = rest[end...]
            } else if rest.starts(with: "<!".utf8) {
                // A DOCTYPE, past its internal subset (`[...]`, whose declarations hold `>`s);
                // the MPD reader refuses such a subset with its own reason.
                var after = rest
                if let open = rest.firstIndex(where: { $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: ">") }),
                    rest[open] == UInt8(ascii: "["), let end = rest[open...].firstIndex(of: UInt8(ascii: "]"))
                {
                    after = rest[end...]
                }
                guard let close = after.firstIndex(of: UInt8(ascii: ">")) else { return nil }
                rest = rest[(close + 1)...]
            } else {
                let name = rest.dropFirst().prefix {
                    !isBlank($0) && $0 != UInt8(ascii: ">") && $0 != UInt8(ascii: "/")
                }
                let local = name.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false).last ?? name
                return String(decoding: local, as: UTF8.self)
            }
        }
    }

    /// The index after the first `marker` in `bytes`.
    private static func find(_ marker: String, in bytes: ArraySlice<UInt8>) -> Int? {
        let needle = Array(marker.utf8)
        var index = bytes.startIndex
        while index + needle.count <= bytes.endIndex {
            if bytes[index..<(index + needle.count)].elementsEqual(needle) { return index + needle.count }
            index += 1
        }
        return nil
    }

    /// `bytes` without a leading UTF-8 byte order mark and blank space.
    private static func skippingBlank(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var rest = bytes
        if rest.starts(with: [0xEF, 0xBB, 0xBF]) { rest = rest.dropFirst(3) }
        return rest.drop(while: isBlank)
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C || byte == 0x0B
    }
}
