import Foundation
import HTTPTypes
import Hummingbird
import MediaCacheKit

/// Answers for a cached streaming title: its entry playlist or MPD at the local URL
/// (`/m/TOKEN/NAME`), and each file `title.json` lists at its stored path under the same
/// token (`/m/TOKEN/variant-0/s3.ts`). The stored playlists are sent as they are: their
/// URIs are relative, so from the local URL they lead a player to exactly those paths,
/// and no rewriting (nor any work per request beyond reading the file) is needed.
struct TitleResponder: Sendable {
    let objects: ObjectStore

    /// The entry playlist or MPD.
    func entry(of title: IntactObject, request: Request) async throws -> (Response, ServedFrom) {
        guard let manifest = title.titleManifest else { return (Self.unusable(title.object, .notATitle(reason: "no title.json")), .error) }
        let members = TitleMembers(manifest)
        guard let entry = members.entry else {
            let problem = ObjectVerifier.Problem.notATitle(reason: "title.json does not list its entry \(Printable.name(manifest.entry))")
            return (Self.unusable(title.object, problem), .error)
        }
        return try await send(entry, of: title, members: members, request: request)
    }

    /// The file at `path` (as the request has it, after the token) of the title; nil
    /// when the title has no such file.
    func member(_ path: String, of title: IntactObject, request: Request) async throws -> (Response, ServedFrom)? {
        guard let manifest = title.titleManifest else { return nil }
        let members = TitleMembers(manifest)
        guard let member = members.member(requested: path) else { return nil }
        return try await send(member, of: title, members: members, request: request)
    }

    private func send(
        _ member: TitleManifest.Member, of title: IntactObject, members: TitleMembers, request: Request
    ) async throws -> (Response, ServedFrom) {
        let objects = objects
        let file: DataFile
        switch try await BlockingWork.run({ objects.openMember(member, of: title) }) {
        case .unusable(let problem): return (Self.unusable(title.object, problem), .error)
        case .opened(let opened): file = opened
        }
        // A member is immutable once committed: its hash names it, the commit dates it.
        let etag = "\"\(member.sha256.prefix(32))\""
        let type = members.contentType(of: member)
        var headers = RangedResponse.headers(
            MediaTypes.Served(contentType: type, attachment: !MediaTypes.isPlayable(type)), etag: etag)
        headers[.lastModified] = HTTPDate.format(title.object.addedAt)
        let path = (title.object.titleDirectory ?? title.object.path) + "/" + member.path
        let response = RangedResponse.make(request, length: member.size, headers: &headers, etag: etag) { range in
            RangedResponse.fileBody(file, range: range, path: path)
        }
        return (response, .cache)
    }

    /// A title whose files are not all there (or not readable) is named with what is
    /// wrong, as `verify` says it, and what to do.
    static func unusable(_ object: CachedObject, _ problem: ObjectVerifier.Problem) -> Response {
        let advice =
            problem.isDamage
            ? "`mediacache verify --repair` removes it; then fetch it again"
            : "check the cache directory's permissions and disk"
        return PlainText.response(
            .internalServerError, "the cached title \(object.shownName) cannot be served: \(problem); \(advice)")
    }
}
