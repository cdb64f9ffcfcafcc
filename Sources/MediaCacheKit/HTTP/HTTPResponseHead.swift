import Foundation

/// The status and headers of one HTTP response (the last head when there were 1xx ones).
public struct HTTPResponseHead: Sendable, Equatable {
    public var status: Int
    /// Header names lowercased, in arrival order.
    public var headers: [(name: String, value: String)]

    public init(status: Int, headers: [(name: String, value: String)]) {
        self.status = status
        self.headers = headers
    }

    public static func == (a: HTTPResponseHead, b: HTTPResponseHead) -> Bool {
        a.status == b.status && a.headers.elementsEqual(b.headers, by: { $0 == $1 })
    }

    public func value(_ name: String) -> String? {
        // The engine asks with lowercase literals: no new string for each question.
        let lower = name.utf8.contains(where: { (0x41...0x5A).contains($0) }) ? name.lowercased() : name
        return headers.last(where: { $0.name == lower })?.value
    }

    /// Every Content-Length value when they disagree (several fields, or a list in one),
    /// which RFC 9112 (6.3) makes an unrecoverable error; nil for one value or none.
    public var conflictingContentLengths: [String]? {
        guard !isTransferEncoded else { return nil }
        let values = headers.filter { $0.name == "content-length" }
            .flatMap { $0.value.split(separator: ",").map { String(Self.trimmingWhitespace($0)) } }
        return Set(values).count > 1 ? values : nil
    }

    /// Why the response's framing cannot be trusted (conflicting Content-Length values),
    /// or nil: libcurl goes by one of them, and the other may be the truth.
    public var framingProblem: String? {
        conflictingContentLengths.map {
            "the origin sent conflicting Content-Length values (\($0.joined(separator: ", "))), so where its answer ends is unknown"
        }
    }

    /// Nil under Transfer-Encoding, which frames the body instead (RFC 9112 6.3): what an
    /// origin that sends both puts in Content-Length is not this body's length (libcurl
    /// reads the chunks to their end, as curl and aria2c store them).
    public var contentLength: Int64? {
        isTransferEncoded ? nil : value("content-length").flatMap { Int64($0) }
    }

    private var isTransferEncoded: Bool { value("transfer-encoding") != nil }

    /// Whether the body is gzip-coded (`Content-Encoding: gzip`, or its old name).
    public var isGzipped: Bool {
        value("content-encoding").map { ["gzip", "x-gzip"].contains(Self.trimmingWhitespace($0[...]).lowercased()) } ?? false
    }

    public var contentRange: ContentRange? { value("content-range").flatMap(ContentRange.init(parsing:)) }
    public var location: String? { value("location") }
    public var acceptsByteRanges: Bool { value("accept-ranges")?.lowercased().contains("bytes") ?? false }

    /// The file name the origin gives its answer (`Content-Disposition`), a name only.
    public var dispositionName: String? { value("content-disposition").flatMap(ContentDisposition.fileName) }

    /// The media type without parameters, lowercased (`text/html`).
    public var mediaType: String? { value("content-type").flatMap(Self.mediaType(of:)) }

    /// The media type of a Content-Type value, without parameters, lowercased; nil when empty.
    public static func mediaType(of contentType: String) -> String? {
        let type = contentType.split(separator: ";").first.map { trimmingWhitespace($0).lowercased() }
        return type?.isEmpty == false ? type : nil
    }

    /// `text` without the spaces, tabs, CRs and LFs around it: HTTP's framing is ASCII,
    /// and Foundation's Unicode-aware trimming cost more than the rest of a small file's
    /// header handling.
    static func trimmingWhitespace(_ text: Substring) -> Substring {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
        let bytes = text.utf8
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return text[text.endIndex...] }
        return text[first...last]
    }

    public var isRedirect: Bool { [301, 302, 303, 307, 308].contains(status) }

    /// The validators this response describes, with the full length of the file.
    public var validators: Validators {
        let length: Int64? =
            if status == 206 { contentRange?.total } else if status == 200 { contentLength } else { nil }
        return Validators(etag: value("etag"), lastModified: value("last-modified"), length: length)
    }

    /// Seconds to wait from `Retry-After` (delta-seconds or an HTTP date).
    public func retryAfter(now: Date = Date()) -> TimeInterval? {
        guard let raw = value("retry-after")?.trimmingCharacters(in: .whitespaces) else { return nil }
        // delay-seconds is digits only: "-5" is no delay, and the usual backoff applies.
        if raw.first?.isASCII == true, raw.first?.isNumber == true, let seconds = Int(raw) { return TimeInterval(seconds) }
        if raw.first == "-" || raw.first == "+" { return nil }
        guard let date = HTTPDate.parse(raw) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}

/// `Content-Range: bytes START-END/TOTAL` of a 206 response.
public struct ContentRange: Sendable, Equatable {
    public var start: Int64
    /// Inclusive, as on the wire.
    public var end: Int64
    /// nil when the server sent `*`.
    public var total: Int64?

    public init(start: Int64, end: Int64, total: Int64?) {
        self.start = start
        self.end = end
        self.total = total
    }

    public init?(parsing text: String) {
        let trimmed = HTTPResponseHead.trimmingWhitespace(text[...])
        guard trimmed.prefix(6).lowercased() == "bytes " else { return nil }
        let spec = HTTPResponseHead.trimmingWhitespace(trimmed.dropFirst(6))
        let parts = spec.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let bounds = parts[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2, let start = Int64(bounds[0]), let end = Int64(bounds[1]), start <= end
        else { return nil }
        let total: Int64?
        if parts[1] == "*" {
            total = nil
        } else {
            guard let value = Int64(parts[1]), value > end else { return nil }
            total = value
        }
        self.init(start: start, end: end, total: total)
    }
}
