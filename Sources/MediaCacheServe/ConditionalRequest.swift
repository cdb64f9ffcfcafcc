import Foundation
import HTTPTypes
import MediaCacheKit

/// RFC 9110's preconditions (section 13.2.2, in its order) for an answer with `etag` and
/// `lastModified`: a player or browser revalidating what it holds gets 304, a write-style
/// precondition that fails gets 412. Range and If-Range come after (`RangedResponse`).
enum ConditionalRequest {
    /// The status that answers `fields` instead of the body, or nil to answer as usual.
    static func status(
        _ fields: HTTPFields, method: HTTPTypes.HTTPRequest.Method, etag: String?, lastModified: String?
    ) -> HTTPResponse.Status? {
        let modified = lastModified.flatMap(HTTPDate.parse)
        if let ifMatch = fields[.ifMatch] {
            guard matches(ifMatch, etag: etag, weak: false) else { return .preconditionFailed }
        } else if let since = fields[.ifUnmodifiedSince].flatMap(HTTPDate.parse), let modified, modified > since {
            return .preconditionFailed
        }
        let readsOnly = method == .get || method == .head
        if let ifNoneMatch = fields[.ifNoneMatch] {
            if matches(ifNoneMatch, etag: etag, weak: true) { return readsOnly ? .notModified : .preconditionFailed }
        } else if readsOnly, let since = fields[.ifModifiedSince].flatMap(HTTPDate.parse), let modified, modified <= since {
            return .notModified
        }
        return nil
    }

    /// Whether the list of entity tags `header` names `etag` (`*`: any current one).
    /// The weak comparison ignores `W/`; the strong one takes no weak tag.
    private static func matches(_ header: String, etag: String?, weak: Bool) -> Bool {
        // `*`: any current representation, with a tag or not (a member still arriving).
        if header.trimmingCharacters(in: .whitespaces) == "*" { return true }
        guard let etag else { return false }
        func opaque(_ tag: Substring) -> Substring? {
            let trimmed = tag.trimmingCharacters(in: .whitespaces)[...]
            if trimmed.hasPrefix("W/") { return weak ? trimmed.dropFirst(2) : nil }
            return trimmed
        }
        guard let mine = opaque(etag[...]) else { return false }
        return header.split(separator: ",").contains { opaque($0) == mine }
    }
}
