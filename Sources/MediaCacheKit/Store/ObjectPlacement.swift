#if canImport(Glibc)
import Glibc
#endif
import CShims
import Foundation

/// Puts a copy of a cached object where the user asked (`-d DIR`, `dir=`, `-o FILE`): a
/// hard link on the same file system, else a copy the kernel makes (a reflink where the
/// file system shares blocks). The name appears whole or not at all. It replaces a file
/// only for `-o`, as curl's does; else a taken name becomes `name.1.ext`, `name.2.ext`...
/// as aria2 names them, unless it already is this object. The cache stays the source of
/// truth: the copy is the user's, and `rm` leaves it alone. A hard link is the object
/// itself, so the object is made read-only first: a tag editor or script writing the
/// user's file in place would change the cached bytes (`verify` would find it; players
/// would get it first; a list's `checksum=` has it fetched again).
public enum ObjectPlacement {
    public enum Method: String, Sendable {
        case linked, copied
        /// The name already held this object (a run placed it before).
        case alreadyThere = "already there"
    }

    public struct Placed: Sendable, Equatable {
        public var path: String
        public var method: Method
    }

    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// The most names tried before giving up (`name.1.ext` ... `name.999.ext`).
    static let maximumRenames = 999

    /// What stands where a folder of `path` should be: a file on the way to it.
    private static func whyNoFolder(at path: String) -> String? {
        var current = path
        while !current.isEmpty && current != "/" {
            if let type = FileSystem.entryType(current) {
                return type == S_IFDIR ? nil : "\(current) is a file, not a folder"
            }
            current = FileSystem.parent(of: current)
        }
        return nil
    }

    /// Why no file could be placed in `folder` (made if missing), checked before a run
    /// fetches anything: a file on the way to it, or a nearest folder this user may not
    /// write in; nil when placing may go ahead.
    public static func problem(placingIn folder: String) -> String? {
        if let file = whyNoFolder(at: folder) { return file }
        var existing = folder
        while !existing.isEmpty && existing != "/" && FileSystem.entryType(existing) == nil {
            existing = FileSystem.parent(of: existing)
        }
        if existing.isEmpty { existing = folder.hasPrefix("/") ? "/" : "." }
        guard access(existing, W_OK | X_OK) != 0 else { return nil }
        return "cannot write in \(existing): \(String(cString: strerror(errno)))"
    }

    /// `path` and the folders on the way to it, with the umask's mode, as `mkdir -p`
    /// makes them; what fails says why in the system's words.
    private static func makeFolders(_ path: String) throws(SystemError) {
        if FileSystem.entryType(path) == S_IFDIR { return }
        let parent = FileSystem.parent(of: path)
        if !parent.isEmpty, parent != path { try makeFolders(parent) }
        if mkdir(path, 0o777) != 0, errno != EEXIST { throw SystemError("create folder", path: path) }
    }

    /// Places the object stored at `source` as `directory/name`, creating `directory`.
    /// A copy (another file system) may be read by anyone, as a download's is, unless
    /// `isSecret` (a title's key): then by its owner alone, as the cached file is.
    /// `replacing`: a file (not a folder) already named so is replaced, in one rename.
    public static func place(
        objectAt source: String, in directory: String, name: String, isSecret: Bool = false, replacing: Bool = false
    ) throws(Failure) -> Placed {
        do {
            try makeFolders(directory)
        } catch {
            let reason = String(cString: strerror(error.code))
            throw Failure(description: "cannot create the folder \(directory): \(whyNoFolder(at: directory) ?? reason)")
        }
        var original = stat()
        guard lstat(source, &original) == 0 else {
            throw Failure(description: "cannot read the cached object \(source): \(String(cString: strerror(errno)))")
        }
        var copy: DataFile?
        for attempt in 0...maximumRenames {
            let path = directory + "/" + numbered(name, attempt)
            var existing = stat()
            if lstat(path, &existing) == 0 {
                if existing.st_dev == original.st_dev && existing.st_ino == original.st_ino {
                    return Placed(path: path, method: .alreadyThere)
                }
                if replacing && existing.st_mode & S_IFMT != S_IFDIR {
                    return try replace(
                        path, named: name, withObjectAt: source, size: Int64(original.st_size), in: directory,
                        isSecret: isSecret)
                }
                continue
            }
            if copy == nil {
                // Best effort: an object this user may not change cannot be changed through the link either.
                _ = chmod(source, isSecret ? 0o400 : 0o444)
                if link(source, path) == 0 { return Placed(path: path, method: .linked) }
                switch errno {
                case EEXIST: continue
                case EXDEV, EPERM, EMLINK, ENOTSUP: copy = try copied(
                        source, size: Int64(original.st_size), into: directory, as: path, mode: isSecret ? 0o600 : 0o644)
                default: throw Failure(description: "cannot save \(path): \(String(cString: strerror(errno)))")
                }
            }
            do {
                if try copy!.name(as: path) { return Placed(path: path, method: .copied) }
            } catch {
                throw Failure(description: "cannot save \(path): \(error)")
            }
        }
        throw Failure(description: "cannot save \(name) in \(directory): \(maximumRenames) other files take its name")
    }

    /// Puts the object at `path` over the file there: a link (or copy) under a name of
    /// this process's beside it, renamed over it, so readers see the old file or the new.
    private static func replace(
        _ path: String, named name: String, withObjectAt source: String, size: Int64, in directory: String,
        isSecret: Bool
    ) throws(Failure) -> Placed {
        let temporary = directory + "/.mediacache-\(getpid())-" + name
        unlink(temporary)
        _ = chmod(source, isSecret ? 0o400 : 0o444)
        var method = Method.linked
        if link(source, temporary) != 0 {
            guard [EXDEV, EPERM, EMLINK, ENOTSUP].contains(errno) else {
                throw Failure(description: "cannot save \(path): \(String(cString: strerror(errno)))")
            }
            let copy = try copied(source, size: size, into: directory, as: path, mode: isSecret ? 0o600 : 0o644)
            do {
                guard try copy.name(as: temporary) else { throw SystemError("name", path: temporary, code: EEXIST) }
            } catch {
                throw Failure(description: "cannot save \(path): \(error)")
            }
            method = .copied
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw Failure(description: "cannot replace \(path): \(reason)")
        }
        return Placed(path: path, method: method)
    }

    /// The file name for an entry: `out=`, else the URL's last path segment, else the
    /// object's key; a separator, control character or direction override becomes `_`,
    /// and `.`/`..` are not names.
    public static func fileName(outName: String?, url: String, key: String, pathExtension: String?) -> String {
        let wanted = outName ?? URLParts(url)?.lastPathComponent ?? ""
        var name = String(
            wanted.unicodeScalars.map { scalar -> Character in
                scalar == "/" || scalar.properties.generalCategory == .control || isDirectionControl(scalar)
                    ? "_" : Character(scalar)
            })
        while name.utf8.count > 255 { name.removeFirst() }
        if name.isEmpty || name == "." || name == ".." {
            name = String(key.prefix(16)) + (pathExtension.map { "." + $0 } ?? "")
        }
        return name
    }

    /// Unicode's direction overrides and isolates (U+202E makes `\u{202E}gpj.exe` show as
    /// `exe.jpg`), and the marks: what a name must not hide its end behind.
    static func isDirectionControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// `out=` may name folders inside the entry's folder, as aria2's does (`out=Season
    /// 1/E01.mp4`): those folders, joined (nil: none), and the name at the end. Empty and
    /// `.` segments are dropped, and a `..` one stays inside as `_` (the list parser
    /// refuses it, so this is for entries saved by other versions).
    public static func splitOutName(_ out: String?) -> (folders: String?, name: String?) {
        guard let out else { return (nil, nil) }
        var segments = out.split(separator: "/", omittingEmptySubsequences: true).map(String.init).filter { $0 != "." }
        segments = segments.map { $0 == ".." ? "_" : $0 }
        guard let name = segments.popLast() else { return (nil, nil) }
        return (segments.isEmpty ? nil : segments.joined(separator: "/"), name)
    }

    /// `clip.mp4`, `clip.1.mp4`, `clip.2.mp4`...
    static func numbered(_ name: String, _ attempt: Int) -> String {
        guard attempt > 0 else { return name }
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "\(name).\(attempt)" }
        return "\(name[..<dot]).\(attempt)\(name[dot...])"
    }

    /// A whole copy of `source` in `directory`'s file system, with no name yet: a process
    /// that dies while copying leaves nothing behind.
    private static func copied(
        _ source: String, size: Int64, into directory: String, as path: String, mode: mode_t
    ) throws(Failure) -> DataFile {
        guard let copy = DataFile.unnamed(in: directory, path: path) else {
            throw Failure(description: "cannot write in \(directory): \(String(cString: strerror(errno)))")
        }
        do {
            try copyBytes(of: source, size: size, to: copy)
            try copy.setPermissions(mode)
            try copy.sync()
        } catch {
            throw Failure(description: "cannot copy to \(path): \(error)")
        }
        return copy
    }

    private static func copyBytes(of source: String, size: Int64, to copy: DataFile) throws(SystemError) {
        let original = try DataFile(path: source, mode: .readOnly)
        do {
            try original.copy(ByteRange(0, size), to: copy, at: 0)
            return
        } catch {
            guard [EXDEV, EINVAL, ENOSYS, EOPNOTSUPP].contains(error.code) else { throw error }
        }
        // Across file systems the kernel may refuse to copy: read and write.
        var position: Int64 = 0
        while position < size {
            let block = try original.read(count: Int(min(1 << 20, size - position)), at: position)
            if block.isEmpty { throw SystemError("read (file shorter than expected)", path: source, code: EIO) }
            try copy.write(block, at: position)
            position += Int64(block.count)
        }
    }
}
