import Foundation
import HTTPTypes
import Hummingbird
import MediaCacheKit

/// Where a response's bytes come from.
public enum ServedFrom: String, Sendable {
    case cache
    /// A download in progress (started or joined by this request).
    case download
    /// An error answer (the origin failed, the cache lost the object).
    case error
}

/// Answers a player's request for one source: from the cached object's file, or from the
/// one download of it (started or joined), sending bytes as they land. A range is sent
/// with 206; a Range that asks for nothing that exists gets 416.
struct MediaResponder: Sendable {
    let service: DownloadService
    /// Failed a moment ago: answered again without a new download.
    let failures: RecentFailures
    let firstAnswer: FirstAnswerWait

    /// The response, and where its bytes come from (for the request log).
    func respond(to request: Request, source: LocalSource, name: String) async throws -> (Response, ServedFrom) {
        let entry = source.entry
        let key = CacheKey(identity: entry.identity)
        let objects = service.objects
        if let cached = try await BlockingWork.run({ objects.openIntact(key: key, lookingAtTitleFiles: false) }) {
            if cached.object.isTitle { return try await titles.entry(of: cached, request: request) }
            return (fromObject(cached, request: request, name: name), .cache)
        }
        return try await fromDownload(request: request, source: source, key: key, name: name)
    }

    /// A path under the local URL other than its name (`variant-0/s3.ts`): a file of the
    /// cached title the URL names. Nil when the URL names no cached title, or the title
    /// has no such file.
    func respond(to request: Request, source: LocalSource, memberPath path: String) async throws -> (Response, ServedFrom)? {
        let key = CacheKey(identity: source.entry.identity)
        let objects = service.objects
        var found = try await BlockingWork.run { objects.openIntact(key: key, lookingAtTitleFiles: false) }
        if found == nil {
            // Only a title being fetched (or one that just failed) has files: anything else
            // asks nothing of the origin.
            let service = service
            let hasFiles = try await failures.failure(of: key)?.title != nil
                ? true : BlockingWork.run({ service.hasPartialTitle(key: key) })
            if hasFiles {
                return try await fromDownloadingTitle(request: request, source: source, path: path)
            }
            // Committed between the two looks: its staging folder goes after its index row.
            found = try await BlockingWork.run { objects.openIntact(key: key, lookingAtTitleFiles: false) }
        }
        guard let cached = found, cached.object.isTitle else { return nil }
        return try await titles.member(path, of: cached, request: request)
    }

    private var titles: TitleResponder { TitleResponder(objects: service.objects) }

    private func fromDownload(
        request: Request, source: LocalSource, key: CacheKey, name: String
    ) async throws -> (Response, ServedFrom) {
        let (entry, objects) = (source.entry, service.objects)
        if let recent = failures.failure(of: key) {
            // A title that failed plays what it holds: its playlists are still answered.
            if let title = recent.title {
                return try await respond(to: request, title: title, path: title.entry, source: source, after: recent)
                    ?? (Self.failed(recent.answer, url: source.url), .error)
            }
            return (Self.failed(recent.answer, url: source.url), .error)
        }
        let handle = service.submit(JobRequest(entry: entry), priority: .interactive)
        let reader = handle.reader()
        let data: DownloadData
        do {
            guard let opened = try await firstAnswer.open(reader) else {
                reader.close()
                return (firstAnswer.timedOut(source.url), .error)
            }
            data = opened
        } catch ReaderError.cached(let object) {
            let stored = CacheKey(hex: object.key) ?? key
            guard let cached = try await BlockingWork.run({ objects.openIntact(key: stored, lookingAtTitleFiles: false) })
            else {
                return (PlainText.response(.serviceUnavailable, "\(object.path) is gone from the cache; try again"), .error)
            }
            if cached.object.isTitle { return try await titles.entry(of: cached, request: request) }
            return (fromObject(cached, request: request, name: name), .cache)
        } catch ReaderError.title(let title) {
            return try await titleEntry(of: title, request: request, source: source)
        } catch ReaderError.originBusy(let busy) {
            reader.close()
            return (Self.busy(busy), .error)
        } catch {
            return (failed(error, key: key, url: source.url), .error)
        }
        var firstBytes: [UInt8] = []
        if let length = data.length, length > 0, !(data.contentType.map(MediaTypes.isMedia) ?? false) {
            // Whether this is media at all (or an error page sent with 200) is decided by
            // its first bytes: the status waits for them, so a page is a 502, not a 200
            // cut short.
            do {
                let count = Int(try await reader.available(from: 0, upTo: min(length, 512)))
                firstBytes = (try? await BlockingWork.run { try reader.read(at: 0, count: count) }) ?? []
            } catch ReaderError.title(let title) {
                reader.close()
                return try await titleEntry(of: title, request: request, source: source)
            } catch {
                reader.close()
                return (failed(error, key: key, url: source.url), .error)
            }
        }
        if PresentationDetection.format(contentType: data.contentType, firstBytes: firstBytes) != nil {
            // The download has become a title's: the playlist's bytes are not what plays.
            reader.close()
            return (Self.titleNotReady(source.url), .error)
        }
        // As `etag(of:)` will name the object these bytes become; when the origin names
        // no version, one for this download's bytes, so If-Range protects a seek across a
        // start-over or the commit (whose object has another ETag).
        let version =
            data.originVersion.map { "\"o-\(Self.shortHash($0))\"" } ?? data.storedSHA256.map { "\"\($0.prefix(32))\"" }
            ?? data.dataVersion.map { "\"d-\(Self.shortHash($0))\"" }
        var headers = RangedResponse.headers(MediaTypes.served(origin: data.contentType, name: name), etag: version)
        guard let length = data.length else {
            // A stream of unknown length: sent whole as it arrives, and said so: a player
            // told ranges work asks for one and misreads the start of the file as it.
            // HEAD: nothing to wait for, and no length (an empty body would say 0).
            headers[.acceptRanges] = "none"
            if request.method == .head {
                return (Response(status: .ok, headers: headers, body: ResponseBody { writer in try await writer.finish(nil) }), .download)
            }
            let whole = body(request, reader: reader, range: ByteRange(0, Int64.max))
            return (Response(status: .ok, headers: headers, body: whole), .download)
        }
        // Another process's download fetches in its own order: a seek ahead of it gets its
        // first byte before the status goes out, within --timeout, or a 504 (that process
        // may reach it only minutes later). This process's own fetches what players want
        // first, and a player that hangs up meanwhile is gone at once.
        if reader.readsAnotherProcess, request.method != .head, let start = Self.firstByteWanted(request, length: length) {
            do {
                guard try await firstAnswer.bounded({ try await reader.available(from: start, upTo: start + 1) }) != nil else {
                    reader.close()
                    return (firstAnswer.notReached(byte: start, of: source.url), .error)
                }
            } catch {
                reader.close()
                return (failed(error, key: key, url: source.url), .error)
            }
        }
        let response = RangedResponse.make(request, length: length, headers: &headers, etag: version) { range in
            body(request, reader: reader, range: range)
        }
        return (response, .download)
    }

    /// Where the body of a GET for `length` bytes starts, when it has a byte to send.
    static func firstByteWanted(_ request: Request, length: Int64) -> Int64? {
        guard length > 0 else { return nil }
        do {
            return try RangeRequest(header: request.headers[.range]).resolve(length: length)?.start ?? 0
        } catch {
            return nil  // 416: nothing to wait for
        }
    }

    // MARK: Cached objects

    /// A streaming title whose playlists are not read yet: a moment.
    static func titleNotReady(_ url: String) -> Response {
        var response = PlainText.response(
            .serviceUnavailable,
            "\(Printable.url(url)) is a streaming title whose playlists are being read; try again in a moment")
        response.headers[.retryAfter] = "1"
        return response
    }

    private func fromObject(_ cached: IntactObject, request: Request, name: String) -> Response {
        let (object, file) = (cached.object, cached.file)
        let etag = Self.etag(of: object)
        var headers = RangedResponse.headers(MediaTypes.served(origin: object.contentType, name: name), etag: etag)
        if let lastModified = object.lastModified { headers[.lastModified] = lastModified }
        return RangedResponse.make(request, length: object.size, headers: &headers, etag: etag) { range in
            RangedResponse.fileBody(file, range: range, path: object.path)
        }
    }

    /// Streams `range` from a download in progress; an error mid-way closes the
    /// connection (a short body), never sends a wrong byte.
    private func body(_ request: Request, reader: DownloadReader, range: ByteRange) -> ResponseBody {
        let known = range.end == Int64.max ? nil : Int(range.count)
        return ResponseBody(contentLength: known) { writer in
            defer { reader.close() }
            var next = range.start
            while next < range.end {
                let available = try await reader.available(from: next, upTo: range.end == Int64.max ? nil : range.end)
                if available == 0 {
                    guard known == nil else { throw ServeError.shortDownload }
                    break
                }
                let (offset, count) = (next, Int(min(available, RangedResponse.chunkSize, range.end - next)))
                let bytes = try await BlockingWork.run { try reader.read(at: offset, count: count) }
                try await writer.write(ByteBuffer(bytes: bytes))
                next += Int64(bytes.count)
            }
            try await writer.finish(nil)
        }
    }

    /// Names the stored layout: the origin's bytes keep the tag they had while they
    /// downloaded (a player's If-Range still matches); a relocated object gets its own.
    static func etag(of object: CachedObject) -> String {
        if object.faststart != .relocated, let version = object.etag ?? object.lastModified {
            return "\"o-\(shortHash(version))\""
        }
        return "\"\(object.sha256.prefix(32))\""
    }

    /// The answer for a download that failed before a byte was sent; a failure is kept
    /// for the requests that follow it (`RecentFailures`). `ofTitle`: the download is a
    /// streaming title's, whose failure may be a missing member's, not the URL's own.
    /// `title`: the failed download's view, when it was a streaming title's, whose
    /// playlists and held files are still answered while the failure stands.
    func failed(_ error: Error, key: CacheKey, url: String, ofTitle: Bool = false, title: TitleInProgress? = nil) -> Response {
        guard var failure = error as? JobFailure else { return PlainText.response(.serviceUnavailable, "\(error)") }
        if ofTitle || title != nil, case .status = failure.cause { failure.cause = .answer }
        failures.record(failure, of: key, title: title)
        return Self.failed((failure, Int(RecentFailures.hold.components.seconds)), url: url)
    }

    /// The origin said to come back later: the player hears it at once, as the origin said
    /// it (429 or 503), with when the download asks again (RFC 9110 15.6.4, RFC 6585 4),
    /// not after --timeout as a silent origin.
    static func busy(_ busy: OriginBusy) -> Response {
        var response = PlainText.response(
            busy.status == 429 ? .tooManyRequests : .serviceUnavailable,
            "\(busy.reason); the download asks again then, and goes on after")
        response.headers[.retryAfter] = String(max(1, Int(busy.retryAt.timeIntervalSinceNow.rounded(.up))))
        return response
    }

    /// The answer for a failure: tried again `retryAfter` seconds from now.
    static func failed(_ recent: (JobFailure, retryAfter: Int), url: String) -> Response {
        var response = PlainText.response(status(for: recent.0), "could not fetch \(Printable.url(url)): \(recent.0)")
        response.headers[.retryAfter] = String(recent.retryAfter)
        return response
    }

    /// 504 when the origin did not answer in time, 500 when this machine's disk or
    /// cache failed; the origin's 404 or 410 as it is (the player should not try again),
    /// else 502 (the origin's answer was bad).
    static func status(for failure: JobFailure) -> HTTPResponse.Status {
        switch failure.cause {
        case .transfer(.timedOut): .gatewayTimeout
        case .status(404): .notFound
        case .status(410): .gone
        case .storage, .commit(.cache), .commit(.shortDataFile), .commit(.incomplete), .commit(.unexpected):
            .internalServerError
        case .transfer, .status, .answer, .commit, .tier: .badGateway
        }
    }

    static func shortHash(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(hash, radix: 16)
    }
}

enum ServeError: Error, CustomStringConvertible {
    case shortFile(String)
    case shortDownload

    var description: String {
        switch self {
        case .shortFile(let path): "\(path) is shorter than the index says"
        case .shortDownload: "the download ended before the bytes asked for"
        }
    }
}
