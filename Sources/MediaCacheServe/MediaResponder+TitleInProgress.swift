import Foundation
import HTTPTypes
import Hummingbird
import MediaCacheKit

/// A streaming title while it downloads: its local playlists at once (the same bytes it
/// will be committed with, so the same ETags), each of its files once held, and a file
/// on its way as its bytes land; a file a player asks for that is not held yet becomes
/// the download's next work. Once the title is committed, the same paths are read from
/// the cache.
extension MediaResponder {
    /// `path` of `title`, the download of `source`; nil when the title has no such file.
    /// `after`: the title failed a moment ago; what it does not hold gets that answer.
    func respond(
        to request: Request, title: TitleInProgress, path: String, source: LocalSource,
        after failure: RecentFailures.Recent? = nil
    ) async throws -> (Response, ServedFrom)? {
        var member: TitleInProgress.Member?
        do {
            // A file a player asks for goes first, but its origin may be silent (a player
            // waited through every retry, over three minutes), and another process fetches
            // a title's files in its own order: the player hears so after --timeout, as
            // for any silent download, and the download goes on.
            guard let held = try await firstAnswer.bounded({ try await title.member(path, streaming: true) }) else {
                return (firstAnswer.timedOut(source.url), .error)
            }
            member = held
            // Of a file whose length is not known yet, only all of it can be sent, as it lands.
            if case .arriving(let arriving) = member, arriving.length == nil,
                request.method == .head || request.headers[.range] != nil
            {
                member = try await title.member(path)
            }
        } catch ReaderError.cached {
            return try await fromCommittedTitle(request: request, path: path, source: source)
        } catch ReaderError.title(let next) where next !== title {
            // Another process's title, taken over here: read on from this process's view.
            return try await respond(to: request, title: next, path: path, source: source, after: failure)
        } catch {
            if let failure { return (Self.failed(failure.answer, url: source.url), .error) }
            return (failed(error, key: CacheKey(identity: source.entry.identity), url: source.url, title: title), .error)
        }
        guard let member else { return nil }
        let type = title.contentType(of: path)
        let served = MediaTypes.Served(contentType: type, attachment: !MediaTypes.isPlayable(type))
        switch member {
        case .playlist(let bytes, let sha256):
            let etag = "\"\(sha256.prefix(32))\""
            var headers = RangedResponse.headers(served, etag: etag)
            let response = RangedResponse.make(request, length: Int64(bytes.count), headers: &headers, etag: etag) { range in
                ResponseBody(byteBuffer: ByteBuffer(bytes: bytes[Int(range.start)..<Int(range.end)]))
            }
            return (response, .download)
        case .file(let filePath, let held):
            guard let file = try? await BlockingWork.run({ try DataFile(path: filePath, mode: .readOnly) }) else {
                // Committed meanwhile: the title's folder has moved into the cache, and its
                // index row follows before the download ends.
                try? await title.ended()
                return try await fromCommittedTitle(request: request, path: path, source: source)
            }
            let etag = "\"\(held.sha256.prefix(32))\""
            var headers = RangedResponse.headers(served, etag: etag)
            let response = RangedResponse.make(request, length: held.size, headers: &headers, etag: etag) { range in
                RangedResponse.fileBody(file, range: range, path: filePath)
            }
            return (response, .download)
        case .arriving(let arriving):
            guard let file = try? await BlockingWork.run({ try DataFile(path: arriving.path, mode: .readOnly) }) else {
                try? await title.ended()
                return try await fromCommittedTitle(request: request, path: path, source: source)
            }
            // No ETag: its SHA-256, which the title's files are tagged with, is not known yet.
            var headers = RangedResponse.headers(served, etag: nil)
            guard let length = arriving.length else {
                return (Response(status: .ok, headers: headers, body: ArrivingBody.make(arriving, file: file, range: nil)), .download)
            }
            let response = RangedResponse.make(request, length: length, headers: &headers, etag: nil) { range in
                ArrivingBody.make(arriving, file: file, range: range)
            }
            return (response, .download)
        }
    }

    /// The entry playlist or MPD of `title`: what its local URL answers while it downloads.
    func titleEntry(of title: TitleInProgress, request: Request, source: LocalSource) async throws -> (Response, ServedFrom) {
        try await respond(to: request, title: title, path: title.entry, source: source)
            ?? (Self.titleNotReady(source.url), .error)
    }

    /// A file of a title not cached (yet): the title's download is joined, or started,
    /// and the file read from it. Nil when the URL is not a title or the title has no
    /// such file.
    func fromDownloadingTitle(
        request: Request, source: LocalSource, path: String
    ) async throws -> (Response, ServedFrom)? {
        let key = CacheKey(identity: source.entry.identity)
        if let recent = failures.failure(of: key) {
            guard let title = recent.title else { return (Self.failed(recent.answer, url: source.url), .error) }
            return try await respond(to: request, title: title, path: path, source: source, after: recent)
        }
        let handle = service.submit(JobRequest(entry: source.entry), priority: .interactive)
        let reader = handle.reader()
        defer { reader.close() }
        do {
            guard try await firstAnswer.open(reader) != nil else { return (firstAnswer.timedOut(source.url), .error) }
            // A file, not a title: it has no files under its URL.
            return nil
        } catch ReaderError.title(let title) {
            return try await respond(to: request, title: title, path: path, source: source)
        } catch ReaderError.cached {
            return try await fromCommittedTitle(request: request, path: path, source: source)
        } catch {
            return (failed(error, key: key, url: source.url, ofTitle: true), .error)
        }
    }

    /// `path` (the entry, or a file) of the title committed under `source`'s key.
    private func fromCommittedTitle(
        request: Request, path: String, source: LocalSource
    ) async throws -> (Response, ServedFrom)? {
        let (key, objects) = (CacheKey(identity: source.entry.identity), service.objects)
        guard let cached = try await BlockingWork.run({ objects.openIntact(key: key, lookingAtTitleFiles: false) }),
            cached.object.isTitle
        else {
            // Between the rename into the cache and its index row: a moment.
            var response = PlainText.response(.serviceUnavailable, "\(source.pathName) is being committed; try again")
            response.headers[.retryAfter] = "1"
            return (response, .error)
        }
        let titles = TitleResponder(objects: objects)
        if let manifest = cached.titleManifest, path == manifest.entry { return try await titles.entry(of: cached, request: request) }
        return try await titles.member(path, of: cached, request: request)
    }
}
