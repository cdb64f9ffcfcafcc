import Foundation

/// The names a bundle may hold, and the only names `export` writes: `manifest.json` and
/// `objects/<key>` or `objects/<key>.<ext>` (key: 64 lowercase hex digits, ext: 1–8
/// lowercase ASCII letters or digits). Nothing from a URL or `out=` ever becomes a path,
/// and import never writes to a path taken from the bundle: it derives the destination
/// from the key, after these checks.
enum EntryPathPolicy {
    static let manifestName = "manifest.json"

    enum Name: Equatable {
        case manifest
        case object(key: CacheKey, extension: String?)
        case rejected(RejectionReason)
    }

    /// Classifies a raw archive path (bytes, as the archive holds them).
    static func classify(_ raw: [UInt8]) -> Name {
        if raw.first == UInt8(ascii: "/") { return .rejected(.absolutePath) }
        let components = raw.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        if components.contains(where: { $0.elementsEqual("..".utf8) }) { return .rejected(.parentComponent) }
        // Only printable ASCII can match below; anything else is refused by name.
        guard raw.allSatisfy({ $0 > 0x20 && $0 < 0x7F }), let path = String(bytes: raw, encoding: .ascii) else {
            return .rejected(.unexpectedName)
        }
        if path == manifestName { return .manifest }
        if let (key, ext) = parseObjectPath(path) { return .object(key: key, extension: ext) }
        if isTitleMember(path) { return .rejected(.streamingTitle) }
        return .rejected(.unexpectedName)
    }

    /// `objects/<key>.title/...`: how a bundle of a later version may carry a title's
    /// files. Refused by name, so the reason says what it is.
    static func isTitleMember(_ path: String) -> Bool {
        let prefix = "objects/"
        let suffix = "." + CachedObject.titleDirectoryExtension + "/"
        guard path.hasPrefix(prefix) else { return false }
        let name = path.dropFirst(prefix.count)
        return CacheKey(hex: String(name.prefix(64))) != nil && name.dropFirst(64).hasPrefix(suffix)
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
