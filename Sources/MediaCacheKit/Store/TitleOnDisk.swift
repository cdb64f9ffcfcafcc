#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A committed streaming title as the store sees it: one directory
/// (`objects/ab/<key>.title`) whose `title.json` vouches for every other file. The one
/// place that opens, checks, measures and removes such a directory, so `path`, `rm`,
/// `gc`, `verify` and the index rebuild agree on what an intact title is. Links are never
/// followed: a title's directory, its folders and its files are the cache's own.
enum TitleOnDisk {
    /// A larger `title.json` is not read (a title of 100k segments needs about 15 MiB).
    static let maximumManifestSize = 64 << 20
    /// Bounds on a member's path inside the title directory, from a manifest that may
    /// come from elsewhere (a rebuilt index, later a bundle).
    static let maximumMemberDepth = 8
    static let maximumMemberPathBytes = 1024

    /// What is at `path` itself, a link not followed.
    enum Kind: Equatable {
        case directory, regularFile, missing, other
        case unreachable(SystemError)
    }

    static func kind(_ path: String) -> Kind {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            let code = errno
            return code == ENOENT || code == ENOTDIR ? .missing : .unreachable(SystemError("look at", path: path, code: code))
        }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: return .directory
        case S_IFREG: return .regularFile
        default: return .other
        }
    }

    /// `gc`'s look at a title, as `FileSystem.entry` is for a file: `.regularFile` when
    /// the directory is a real directory and the entry playlist a regular file in it.
    static func entry(of object: CachedObject, in cache: CacheDirectory) -> FileSystem.Entry {
        guard let folder = object.titleDirectory else { return FileSystem.entry(cache.absolute(object.path)) }
        switch kind(cache.absolute(folder)) {
        case .directory: return FileSystem.entry(cache.absolute(object.path))
        case .missing: return .missing
        case .regularFile, .other: return .other
        case .unreachable(let error): return .unreachable(error)
        }
    }

    /// An intact title's manifest and its bytes.
    struct Manifest {
        let manifest: TitleManifest
        let bytes: [UInt8]
    }

    /// The title's manifest when the title looks intact: its directory is a real
    /// directory, its entry playlist a regular file, and `title.json` a regular file whose
    /// SHA-256 is the row's (one small read), and (`lookingAtFiles`) each file it lists a
    /// regular file of its size (hashing them is `verify`'s job). Nil when it is damaged
    /// or gone; throws when it cannot be looked at or read (EACCES, EIO).
    static func intactManifest(
        of object: CachedObject, in cache: CacheDirectory, lookingAtFiles: Bool = true
    ) throws(SystemError) -> Manifest? {
        switch try inspect(object, in: cache, lookingAtFiles: lookingAtFiles) {
        case .intact(let manifest): manifest
        case .damaged: nil
        }
    }

    enum Inspection {
        case intact(Manifest)
        /// What is wrong, as `verify` reports it.
        case damaged(ObjectVerifier.Problem)
    }

    /// Everything `intactManifest` checks, saying what is wrong. `lookingAtFiles`: that
    /// each file the manifest lists is there at its size too.
    static func inspect(
        _ object: CachedObject, in cache: CacheDirectory, lookingAtFiles: Bool = true
    ) throws(SystemError) -> Inspection {
        guard let folder = object.titleDirectory else { return .damaged(.notATitle(reason: "its path is not a title's")) }
        let manifestPath = folder + "/" + TitleManifest.fileName
        switch kind(cache.absolute(folder)) {
        case .directory: break
        case .missing: return .damaged(.missing)
        case .regularFile, .other: return .damaged(.member(folder, .notADirectory))
        case .unreachable(let error): throw error
        }
        for relative in [object.path, manifestPath] {
            switch kind(cache.absolute(relative)) {
            case .regularFile: continue
            case .missing: return .damaged(.member(relative, .missing))
            case .directory, .other: return .damaged(.member(relative, .notRegularFile))
            case .unreachable(let error): throw error
            }
        }
        let file: DataFile
        do {
            file = try DataFile(path: cache.absolute(manifestPath), mode: .readOnly)
        } catch where error.code == ENOENT || error.code == ELOOP {
            return .damaged(.member(manifestPath, .missing))  // removed or replaced since the look
        }
        let size = try file.size()
        guard size <= Int64(maximumManifestSize) else {
            return .damaged(.notATitle(reason: "\(manifestPath) holds \(size) bytes, more than a title manifest may"))
        }
        let bytes = try file.read(count: Int(size), at: 0)
        let sha256 = Digest.sha256Hex(bytes)
        guard sha256 == object.sha256 else {
            return .damaged(.member(manifestPath, .wrongHash(actual: sha256, expected: object.sha256)))
        }
        let manifest: TitleManifest
        do {
            manifest = try TitleManifest.decode(bytes, path: cache.absolute(manifestPath))
        } catch {
            return .damaged(.notATitle(reason: "\(manifestPath) is not a title manifest"))
        }
        if let bad = manifest.members.first(where: { !isSafeMemberPath($0.path) }) {
            return .damaged(.notATitle(reason: "\(manifestPath) lists \(Printable.name(bad.path)), not a path inside the title"))
        }
        let total = manifest.totalSize(manifestBytes: bytes.count)
        guard total == object.size else {
            return .damaged(.notATitle(reason: "\(manifestPath) lists \(total) bytes of files, the index says \(object.size)"))
        }
        // Each file it lists is there at its size, one lstat each (hashing them is verify's
        // job): a segment removed by hand left a title that path and prefetch called
        // cached, and players stopped at the hole.
        let root = cache.absolute(folder) + "/"
        for member in manifest.members where lookingAtFiles {
            var info = stat()
            guard lstat(root + member.path, &info) == 0 else {
                let code = errno
                guard code == ENOENT || code == ENOTDIR else { throw SystemError("look at", path: root + member.path, code: code) }
                return .damaged(.member(folder + "/" + member.path, .missing))
            }
            guard info.st_mode & S_IFMT == S_IFREG else { return .damaged(.member(folder + "/" + member.path, .notRegularFile)) }
            guard Int64(info.st_size) == member.size else {
                return .damaged(
                    .member(folder + "/" + member.path, .wrongSize(actual: Int64(info.st_size), expected: member.size)))
            }
        }
        return .intact(Manifest(manifest: manifest, bytes: bytes))
    }

    /// A member path is relative, inside the title, of bounded depth and length, and made
    /// of plain names: nothing in a manifest can lead a check or a removal elsewhere.
    static func isSafeMemberPath(_ path: String) -> Bool {
        guard !path.isEmpty, path.utf8.count <= maximumMemberPathBytes, !path.hasPrefix("/") else { return false }
        let components = path.split(separator: "/", omittingEmptySubsequences: false)
        guard components.count <= maximumMemberDepth else { return false }
        return components.allSatisfy { component in
            !component.isEmpty && component != "." && component != ".."
                && component.unicodeScalars.allSatisfy { $0.properties.generalCategory != .control }
        }
    }

    /// The folders between the title directory and `member`, relative to the title
    /// directory: `a/b/c.ts` → `a`, `a/b`.
    static func folders(of member: String) -> [String] {
        let components = member.split(separator: "/")
        return (1..<max(components.count, 1)).map { components.prefix($0).joined(separator: "/") }
    }

    /// What is wrong with the folders between the title directory `folder` (relative to
    /// the cache root) and its `member`: nil when each is a real directory. A folder
    /// swapped for a link would lead a check (or a player) elsewhere. `checked` keeps the
    /// folders found good, so a title's thousands of members look at each folder once.
    static func folderProblem(
        of member: String, inTitle folder: String, in cache: CacheDirectory, checked: inout Set<String>
    ) -> ObjectVerifier.Problem? {
        for inner in folders(of: member) where !checked.contains(inner) {
            switch kind(cache.absolute(folder + "/" + inner)) {
            case .directory: checked.insert(inner)
            case .missing: return .member(folder + "/" + member, .missing)
            case .regularFile, .other: return .member(folder + "/" + inner, .notADirectory)
            case .unreachable(let error): return .unreadable(error)
            }
        }
        return nil
    }

    /// Removes what `relative` (a row's `storedPath`, or an orphan under `objects/`) names:
    /// a title's whole directory, or a file. A link there is removed, never followed.
    static func removeStored(_ relative: String, in cache: CacheDirectory) {
        let path = cache.absolute(relative)
        if kind(path) == .directory {
            FileSystem.removeTree(path)
        } else {
            FileSystem.remove(path)
        }
    }

    /// The bytes of the regular files under `path` (itself, if it is one), links not
    /// followed: what removing an orphan frees.
    static func storedBytes(_ path: String, depth: Int = 0) -> Int64 {
        var info = stat()
        guard lstat(path, &info) == 0 else { return 0 }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return Int64(info.st_size)
        case S_IFDIR where depth <= maximumMemberDepth:
            return FileSystem.contentsOfDirectory(path).reduce(0) { $0 + storedBytes(path + "/" + $1, depth: depth + 1) }
        default: return 0
        }
    }

    /// When anything under `path` (or `path` itself) last changed, links not followed:
    /// a title being assembled writes its segments into subfolders.
    static func lastModification(inTree path: String, depth: Int = 0) -> Date? {
        let own = FileSystem.lastModification(of: path)
        guard kind(path) == .directory, depth <= maximumMemberDepth else { return own }
        let inside = FileSystem.contentsOfDirectory(path).compactMap { lastModification(inTree: path + "/" + $0, depth: depth + 1) }
        return ([own].compactMap { $0 } + inside).max()
    }
}
