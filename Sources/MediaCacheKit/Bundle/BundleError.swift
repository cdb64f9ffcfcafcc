/// Failures of a bundle as a whole: it cannot be written, opened or trusted at all.
/// (One bad entry inside a readable bundle is an `EntryRejection`, not an error.)
public enum BundleError: Error, CustomStringConvertible, Equatable {
    /// libarchive refused an operation on `bundle` (while handling `entry`, if any).
    case archive(bundle: String, entry: String?, operation: String, message: String)
    /// The stream ends early or cannot be decoded (cut short, corrupted compression).
    case damaged(bundle: String, entry: String?, message: String)
    /// Reading stopped at a rejected entry that claims far more bytes than the whole
    /// manifest: skipping it would mean decompressing all of it.
    case abandoned(bundle: String, entry: String, claimed: Int64)
    /// The first entry is not `manifest.json` (or the bundle is empty).
    case missingManifest(bundle: String, firstEntry: String?)
    case malformedManifest(bundle: String, reason: String)
    /// Written by a newer mediacache with a format this one does not understand.
    case unsupportedVersion(bundle: String, version: Int)
    case io(SystemError)
    /// A URL or cache key given to `export` is not in the cache.
    case notCached(String)
    /// An object's file does not match its index row; exporting it would ship bad bytes.
    case corruptObject(url: String, path: String, reason: String)
    /// Stopped by SIGINT/SIGTERM; temporary files were removed.
    case cancelled

    /// The stream broke or was abandoned part-way: what was read before is still good.
    public var isDamage: Bool {
        switch self {
        case .damaged, .abandoned: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .archive(let bundle, let entry, let operation, let message):
            "\(bundle): \(operation)\(entry.map { " (entry \(Printable.name($0)))" } ?? ""): \(message)"
        case .damaged(let bundle, let entry, let message):
            "\(bundle) is truncated or damaged\(entry.map { " at entry \(Printable.name($0))" } ?? "") (\(message)); "
                + "copy the bundle again; objects before that point were verified and kept"
        case .abandoned(let bundle, let entry, let claimed):
            "stopped reading \(bundle) at entry \(Printable.name(entry)): it claims \(claimed) bytes, far more than "
                + "all objects in its manifest together; the rest of the bundle was not read "
                + "(objects before it were verified and kept)"
        case .missingManifest(let bundle, let first):
            "\(bundle) is not a mediacache bundle: its first entry must be manifest.json, "
                + (first.map { "found \(Printable.name($0))" } ?? "the archive is empty") + "; nothing was imported"
        case .malformedManifest(let bundle, let reason):
            "\(bundle): manifest.json is malformed (\(reason)); nothing was imported"
        case .unsupportedVersion(let bundle, let version):
            "\(bundle) has bundle format version \(version); this mediacache reads version "
                + "\(BundleManifest.currentVersion): upgrade mediacache to import it"
        case .io(let error):
            error.description
        case .notCached(let name):
            "not cached: \(Printable.url(name)); nothing was exported"
        case .corruptObject(let url, let path, let reason):
            "cached object \(url) (\(path)) \(reason); run `mediacache verify --repair` and fetch it again; nothing was exported"
        case .cancelled:
            "interrupted; temporary files were removed"
        }
    }
}

/// Why one entry of a bundle was not imported. Every case is reported, named, and makes
/// `import` exit non-zero.
public enum RejectionReason: Sendable, Equatable, CustomStringConvertible {
    case absolutePath
    case parentComponent
    /// Anything else a bundle never holds: empty or `.` components, odd characters.
    case unexpectedName
    case symbolicLink(target: String)
    case hardLink(target: String)
    /// A device, FIFO or socket.
    case specialFile(kind: String)
    case directory
    /// A streaming title that cannot be taken whole (a member missing, extra, or
    /// not matching its `title.json`; `title.json` itself not what the manifest says):
    /// what is wrong, naming the member. Nothing of the title is kept.
    case titleNotImported(String)
    case notInManifest
    case duplicate
    /// The archive header claims more bytes than the manifest, or the data ran past it.
    case largerThanManifest(atLeast: Int64, manifest: Int64)
    case sizeMismatch(actual: Int64, manifest: Int64)
    case digestMismatch(actual: String, manifest: String)
    /// Listed in the manifest, never found in the archive.
    case missingFromBundle
    /// The bundle ended (or broke) before or inside this entry.
    case truncated
    /// Reading stopped at an earlier hostile entry.
    case notRead

    public var description: String {
        switch self {
        case .absolutePath: "absolute path"
        case .parentComponent: "path with a '..' component"
        case .unexpectedName: "unexpected name (bundles hold only manifest.json, objects/<key>.<ext> and objects/<key>.title/<file>)"
        case .symbolicLink(let target): "symbolic link (to \(Printable.name(target)))"
        case .hardLink(let target): "hard link (to \(Printable.name(target)))"
        case .specialFile(let kind): "\(kind), not a regular file"
        case .directory: "directory entry (bundles hold only files)"
        case .titleNotImported(let reason): "streaming title not imported: \(reason); nothing of it was kept"
        case .notInManifest: "not listed in the manifest"
        case .duplicate: "appears twice in the bundle"
        case .largerThanManifest(let atLeast, let manifest):
            "larger than the manifest says (at least \(atLeast) bytes, manifest: \(manifest)); stopped reading it"
        case .sizeMismatch(let actual, let manifest): "holds \(actual) bytes, the manifest says \(manifest)"
        case .digestMismatch(let actual, let manifest): "SHA-256 mismatch (bundle bytes \(actual), manifest \(manifest))"
        case .missingFromBundle: "listed in the manifest but missing from the bundle"
        case .truncated: "cut short: the bundle ends inside or before this object"
        case .notRead: "not read: reading stopped at an earlier hostile entry"
        }
    }
}

/// One refused entry: the name it had in the bundle, the URL the manifest gave it, why.
public struct EntryRejection: Sendable, Equatable, CustomStringConvertible {
    public var bundle: String
    public var entry: String
    public var url: String?
    public var reason: RejectionReason

    public var description: String {
        let what = url.map { "\(Printable.name(entry)) (\(Printable.name($0)))" } ?? Printable.name(entry)
        return "\(bundle): rejected \(what): \(reason)"
    }
}
