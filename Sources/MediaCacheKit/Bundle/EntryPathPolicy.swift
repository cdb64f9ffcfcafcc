import Foundation

/// The names a bundle may hold, and the only names `export` writes: `manifest.json`,
/// `objects/<key>` or `objects/<key>.<ext>` (key: 64 lowercase hex digits, ext: 1–8
/// lowercase ASCII letters or digits), and a streaming title's files
/// `objects/<key>.title/<member>` (a plain relative path, `TitleOnDisk.isSafeMemberPath`).
/// Nothing from a URL or `out=` ever becomes a path, and import never writes to a path
/// taken from the bundle unchecked: it derives the destination from the key, after these
/// checks, and a title member's path only inside that title's staging folder.
enum EntryPathPolicy {
    static let manifestName = "manifest.json"

    enum Name: Equatable {
        case manifest
        case object(key: CacheKey, extension: String?)
        /// A file of a streaming title: `member` is its path inside the title.
        case titleMember(key: CacheKey, member: String)
        case rejected(RejectionReason)
    }

    /// Classifies a raw archive path (bytes, as the archive holds them).
    static func classify(_ raw: [UInt8]) -> Name {
        if raw.first == UInt8(ascii: "/") { return .rejected(.absolutePath) }
        let components = raw.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        if components.contains(where: { $0.elementsEqual("..".utf8) }) { return .rejected(.parentComponent) }
        if let title = titleMember(raw) { return title }
        // Only printable ASCII can match below; anything else is refused by name.
        guard raw.allSatisfy({ $0 > 0x20 && $0 < 0x7F }), let path = String(bytes: raw, encoding: .ascii) else {
            return .rejected(.unexpectedName)
        }
        if path == manifestName { return .manifest }
        if let (key, ext) = parseObjectPath(path) { return .object(key: key, extension: ext) }
        return .rejected(.unexpectedName)
    }

    /// `objects/<key>.title/<member>`: a title's file; a member path that is not plain
    /// (empty, `.` components, control characters, too deep) is refused by name.
    private static func titleMember(_ raw: [UInt8]) -> Name? {
        let prefix = Array("objects/".utf8)
        let suffix = Array(StagedTitle.folderSuffix.utf8) + [UInt8(ascii: "/")]
        guard raw.count > prefix.count + 64 + suffix.count, raw.starts(with: prefix) else { return nil }
        let afterKey = raw[(prefix.count + 64)...]
        guard afterKey.starts(with: suffix),
            let key = CacheKey(hex: String(decoding: raw[prefix.count..<(prefix.count + 64)], as: UTF8.self))
        else { return nil }
        guard let member = String(validating: afterKey.dropFirst(suffix.count), as: UTF8.self),
            TitleOnDisk.isSafeMemberPath(member)
        else { return .rejected(.unexpectedName) }
        return .titleMember(key: key, member: member)
    }

    /// `objects/<key>.title`: a title's folder inside a bundle, and its entry's `path`.
    static func titlePath(key: CacheKey) -> String {
        "objects/" + key.hex + StagedTitle.folderSuffix
    }

    /// `objects/<key>.<ext>`: the name an object has inside a bundle.
    static func objectPath(key: CacheKey, extension ext: String?) -> String {
        "objects/" + key.hex + (safeExtension(ext).map { "." + $0 } ?? "")
    }

    /// The extension if it is 1–8 lowercase ASCII letters or digits, else nil.
    static func safeExtension(_ ext: String?) -> String? {
        guard let ext, (1...8).contains(ext.utf8.count),
            ext.utf8.allSatisfy({ (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        return ext
    }

    /// The key and extension of `objects/<key>[.<ext>]`, or nil for any other name.
    static func parseObjectPath(_ path: String) -> (CacheKey, String?)? {
        guard path.hasPrefix("objects/") else { return nil }
        let name = path.dropFirst("objects/".count)
        let parts = name.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let key = CacheKey(hex: String(parts[0])) else { return nil }
        if parts.count == 1 { return (key, nil) }
        guard let ext = safeExtension(String(parts[1])) else { return nil }
        return (key, ext)
    }
}
