import Foundation

/// Whether a response head may be trusted as bytes of the file, decided from the head,
/// what was asked for and what is held: no transfer, no disk, no job.
///
/// Every rule that keeps two versions from being spliced, or an error page from being
/// stored as media, lives here; `DownloadJob` only carries out the verdict.
struct ResponseCheck {
    /// What the request whose head arrived asked for.
    struct Asked: Equatable {
        /// The first request of an attempt, which learns length, validators and type.
        var isProbe: Bool
        /// The first byte asked for; 0 without Range.
        var requestedStart: Int64
        /// Whether the request carried a Range header.
        var sentRange: Bool
        /// Whether the request carried `If-Range`.
        var sentIfRange: Bool
        /// The URL the request went to (redirect targets resolve against it).
        var url: String
        /// Whether the URL names a text format, so a text body is no error page.
        var urlExpectsText: Bool
    }

    /// What the job holds of the file when the head arrives.
    struct Held: Equatable {
        /// Identity of the bytes held (empty before the first accepted response).
        var validators: Validators
        /// Whether any byte of the file is held.
        var holdsBytes: Bool
        /// Every length the origin gave for this file in this run.
        var lengthsAnnounced: Set<Int64>
    }

    /// Why a 200 to a probe replaces the bytes held.
    enum StartOver: Equatable {
        /// The request carried If-Range and the validators differ: a new version.
        case versionChanged
        /// The origin answered a range request with the whole file.
        case rangeIgnored

        var notice: String {
            switch self {
            case .versionChanged: "the file changed on the origin since the last run; starting over"
            case .rangeIgnored: "the origin ignored the Range request; starting over"
            }
        }
    }

    enum Verdict: Equatable {
        /// A 206 to the probe whose Content-Range starts where asked: the file is `total`
        /// bytes and this response ends before `responseEnd` (exclusive). Ranges count as
        /// supported only when the request asked for one.
        case acceptProbe206(total: Int64, responseEnd: Int64, rangesSupported: Bool)
        /// A 200 to the probe: the whole file from byte 0, `length` bytes if announced.
        /// Bytes held before are dropped for `startOver`'s reason.
        case acceptWhole200(length: Int64?, startOver: StartOver?, rangesSupported: Bool)
        /// A 206 to a fragment request, from the byte asked for, ending before `responseEnd`.
        case acceptFragment(responseEnd: Int64)
        /// The probe learned the file is empty; these validators describe it.
        case emptyFile(Validators)
        /// The origin mishandles Range: one stream from byte 0 from now on.
        case fallBackToSingleStream(String)
        /// The origin serves another version: start over. `announcedLength` is the length
        /// the response gave, to remember for spotting an origin that flips between two.
        case versionChanged(String, announcedLength: Int64?)
        /// The origin gave two lengths for one version: no restart can mend that.
        case originContradicts(String)
        /// A Content-Encoding other than identity: the bytes are not the file's.
        case refuseEncoding(String)
        case redirect(to: String)
        case badRedirect(String)
        /// Worth retrying (429, 503 …), after `retryAfter` seconds if the origin said.
        case transientStatus(Int, retryAfter: Double?)
        /// An HTML page where bytes of a media file held in part were asked for: an error
        /// or login page (a token that expired mid-download), not a new version of the
        /// file. Worth asking again; the bytes held are kept.
        case errorPage(String)
        case fatalStatus(Int)
    }

    let head: HTTPResponseHead
    let asked: Asked
    let held: Held

    /// The validators this response describes.
    var incoming: Validators { head.validators }

    /// A text-like Content-Type on a media URL: then the body's first bytes decide
    /// (servers without a MIME table label media `text/plain`).
    var suspectMediaType: String? {
        MediaTypeCheck.isSuspect(mediaType: head.mediaType, urlExpectsText: asked.urlExpectsText) ? head.mediaType : nil
    }

    /// `now` dates a `Retry-After` given as an HTTP date.
    func verdict(now: Date = Date()) -> Verdict {
        if head.isRedirect {
            guard let location = head.location, let target = URLParts.resolve(location, against: asked.url) else {
                return .badRedirect("HTTP \(head.status) without a usable Location")
            }
            return .redirect(to: target)
        }
        switch head.status {
        case 200, 206:
            if let encoding = Self.unexpectedContentEncoding(head, url: asked.url) { return .refuseEncoding(encoding) }
            if let problem = head.framingProblem { return .originContradicts(problem) }
            return asked.isProbe ? probeVerdict() : fragmentVerdict()
        case 416:
            return unsatisfiableRangeVerdict()
        case let status where RetryPolicy.isTransient(status: status):
            return .transientStatus(status, retryAfter: head.retryAfter(now: now))
        default:
            return .fatalStatus(head.status)
        }
    }

    private func probeVerdict() -> Verdict {
        guard head.status == 206 else {
            if held.holdsBytes, let page = errorPage { return page }
            // 200: the whole file from byte 0. Held bytes may be of another version.
            let startOver: StartOver? =
                if !held.holdsBytes { nil } else if asked.sentIfRange && held.validators.conflicts(with: incoming) {
                    .versionChanged
                } else { .rangeIgnored }
            // A 200 to If-Range says the version changed, not that Range is unsupported.
            let rangesSupported = asked.sentIfRange && head.acceptsByteRanges && incoming.length != nil
            // A 200 is the whole file: one whose Content-Range names a part of it (a broken
            // proxy's) says its body is not.
            if let range = head.contentRange, !Self.coversWhole(range, contentLength: head.contentLength) {
                return .fallBackToSingleStream(
                    "the origin answered with 200 and a Content-Range for part of the file (\(range.start)-\(range.end)/\(range.total.map(String.init) ?? "*"))")
            }
            return .acceptWhole200(length: incoming.length, startOver: startOver, rangesSupported: rangesSupported)
        }
        guard let range = head.contentRange, range.start == asked.requestedStart, let total = range.total else {
            return .fallBackToSingleStream("the origin answered a range request with a wrong Content-Range")
        }
        if held.holdsBytes && held.validators.conflicts(with: incoming) {
            return versionConflict("since the last run")
        }
        // Part of the file for a request of all of it (ranges being found mishandled): the
        // origin gives the file neither way; asked again, it would give the same part.
        if !asked.sentRange && range.end + 1 < total {
            return .originContradicts(
                "the origin answered a request for the whole file with bytes \(range.start)-\(range.end) of \(total)")
        }
        // A 206 to a request without Range (after ranges were found mishandled) is no
        // evidence that they work now.
        return .acceptProbe206(total: total, responseEnd: range.end + 1, rangesSupported: asked.sentRange)
    }

    private func fragmentVerdict() -> Verdict {
        guard head.status == 206 else {
            if let page = errorPage { return page }
            if held.validators.conflicts(with: incoming) { return versionConflict("during the download") }
            return .fallBackToSingleStream("the origin ignored a Range request")
        }
        guard let range = head.contentRange, range.start == asked.requestedStart else {
            return .fallBackToSingleStream("the origin answered a range request with a wrong Content-Range")
        }
        if held.validators.conflicts(with: incoming) { return versionConflict("during the download") }
        return .acceptFragment(responseEnd: range.end + 1)
    }

    /// A response describes another version than the bytes held: a new version, unless
    /// the origin contradicts itself (two lengths for one ETag or date, or a length it
    /// gave before the last restart).
    private func versionConflict(_ when: String) -> Verdict {
        let what = held.validators.differences(from: incoming) ?? "its validators changed"
        if let before = held.validators.length, let now = incoming.length, before != now,
            held.validators.nameSameVersion(as: incoming) || held.lengthsAnnounced.contains(now)
        {
            let version = held.validators.nameSameVersion(as: incoming) ? " for one version" : ""
            return .originContradicts(
                "the origin contradicts itself: it gave both \(before) and \(now) bytes as the length\(version)"
                    + " (Content-Range or Content-Length); it may be misconfigured or serve two versions at once")
        }
        return .versionChanged("the file changed on the origin \(when): \(what)", announcedLength: incoming.length)
    }

    private func unsatisfiableRangeVerdict() -> Verdict {
        // No Range was sent, so no range was refused: asking again, range or not, draws
        // the same answer.
        guard asked.sentRange else {
            return .originContradicts("the origin answered HTTP 416 (Range Not Satisfiable) to a request without Range")
        }
        if asked.isProbe && !held.holdsBytes, head.value("content-range")?.hasSuffix("/0") == true {
            return .emptyFile(Validators(etag: head.value("etag"), lastModified: head.value("last-modified"), length: 0))
        }
        let total = Self.unsatisfiedLength(head)
        // `bytes */LENGTH` with the range starting inside the file: the origin mishandles
        // ranges (a correct one would serve the part that exists).
        if let total, asked.requestedStart < total {
            return .fallBackToSingleStream("the origin refused a range inside the file (HTTP 416)")
        }
        // Nothing held: the probe asked from byte 0, which only an empty file cannot
        // satisfy, and a request without Range tells that (or what the file is).
        guard held.holdsBytes else {
            return asked.requestedStart == 0
                ? .fallBackToSingleStream("the origin refused a range from the file's start (HTTP 416)") : .fatalStatus(416)
        }
        if let total, let before = held.validators.length {
            return .versionChanged(
                "the file on the origin is shorter than before (\(total) bytes, was \(before))", announcedLength: nil)
        }
        return .versionChanged("the file on the origin is shorter than before", announcedLength: nil)
    }

    /// A 200 labelled as an HTML page on a URL that names no text format.
    private var errorPage: Verdict? {
        guard !asked.urlExpectsText, let type = head.mediaType, type == "text/html" || type == "application/xhtml+xml" else {
            return nil
        }
        return .errorPage("the origin answered with an HTML page instead of the file's bytes (an error or login page?)")
    }

    /// A `Content-Encoding` other than identity, which `CurlEasy` never asks for.
    ///
    /// The bytes of such a response are not the file's: on a 206 they are an encoding of
    /// a slice, which cannot be placed at the Range offsets or decoded piecewise; on a 200
    /// the length and validators describe the encoded form, so a resume or a checksum
    /// would not line up either. The response is refused, never stored as the media.
    /// A Content-Encoding the bytes are not the file under; nil for identity, and for the
    /// compression the file's own name says it is in (`x.tar.gz` with `gzip`: a server
    /// that labels a compressed file so, as Apache's `AddEncoding` does, sends the file
    /// as it is, which curl, wget and aria2 save).
    static func unexpectedContentEncoding(_ head: HTTPResponseHead, url: String) -> String? {
        guard let value = head.value("content-encoding") else { return nil }
        // A playlist or MPD stored gzipped (S3 serves it so whatever was asked): read whole,
        // and decoded, as players read it.
        if head.isGzipped, isPresentation(head, url: url) { return nil }
        let codings = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        let own = URLParts(url)?.pathExtension.flatMap { compressions[$0.lowercased()] } ?? []
        return codings.allSatisfy({ Self.noCoding.contains($0) || own.contains($0) }) ? nil : value
    }

    /// Whether the answer is a playlist or an MPD, by its type or its URL's name.
    static func isPresentation(_ head: HTTPResponseHead, url: String) -> Bool {
        PresentationDetection.format(contentType: head.value("content-type"), firstBytes: []) != nil
            || PresentationDetection.namedFormat(pathExtension: URLParts(url)?.pathExtension) != nil
    }

    /// Whether the Content-Encoding `value` leaves the bytes as they are.
    static func leavesBytesAsTheyAre(_ value: String) -> Bool {
        value.split(separator: ",").allSatisfy { noCoding.contains($0.trimmingCharacters(in: .whitespaces).lowercased()) }
    }

    /// Labels that mean the bytes are as they are: identity, and what download scripts
    /// (PHP's) write for it, which no client decodes (curl, wget and aria2 store them).
    private static let noCoding: Set<String> = ["", "identity", "none", "binary", "8bit", "7bit"]

    /// The content codings a file of each extension is compressed in already.
    private static let compressions: [String: Set<String>] = [
        "gz": ["gzip", "x-gzip"], "tgz": ["gzip", "x-gzip"], "svgz": ["gzip", "x-gzip"], "z": ["compress", "x-compress"],
        "br": ["br"], "zst": ["zstd"], "bz2": ["bzip2", "x-bzip2"], "xz": ["xz", "x-xz"],
    ]

    /// Whether a 200's `range` is all of the file its body holds.
    static func coversWhole(_ range: ContentRange, contentLength: Int64?) -> Bool {
        guard range.start == 0, let total = range.total, range.end + 1 == total else { return false }
        return contentLength.map { $0 == total } ?? true
    }

    /// LENGTH of a 416's `Content-Range: bytes */LENGTH`.
    static func unsatisfiedLength(_ head: HTTPResponseHead) -> Int64? {
        guard let value = head.value("content-range")?.trimmingCharacters(in: .whitespaces).lowercased(),
            value.hasPrefix("bytes */")
        else { return nil }
        return Int64(value.dropFirst("bytes */".count))
    }

    /// Why the first body bytes of a probe show an error page instead of the file, or nil.
    ///
    /// `suspectMediaType` (a text type on a media URL) refuses any text; an HTML start
    /// refuses the body whatever its label, but only at byte 0 of the file (a range
    /// inside it may hold anything).
    static func errorPage(
        firstBytes: [UInt8], suspectMediaType: String?, atFileStart: Bool, urlExpectsText: Bool
    ) -> String? {
        if let type = suspectMediaType, let reason = MediaTypeCheck.rejection(mediaType: type, firstBytes: firstBytes) {
            return reason
        }
        guard atFileStart else { return nil }
        return MediaTypeCheck.sniffRejection(firstBytes: firstBytes, urlExpectsText: urlExpectsText)
    }
}
