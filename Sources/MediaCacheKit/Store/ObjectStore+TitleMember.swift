#if canImport(Glibc)
import Glibc
#endif

/// One file of a cached title opened for reading, or what is wrong with it.
public enum TitleMemberFile: Sendable {
    case opened(DataFile)
    /// As `verify` names it: `objects/ab/<key>.title/variant-0/s3.ts: file is missing`.
    case unusable(ObjectVerifier.Problem)
}

extension ObjectStore {
    /// Opens `member` of `title` (an intact title from `openIntact`) for `serve`: a
    /// regular file, reached through real folders of the title's directory (no link
    /// followed), of the size `title.json` gives. Its hash is `verify`'s job, as for files:
    /// reading a segment costs no pass over it. What is read through the file is that
    /// file, whatever happens to the title later (gc, a new commit).
    public func openMember(_ member: TitleManifest.Member, of title: IntactObject) -> TitleMemberFile {
        guard let folder = title.object.titleDirectory else { return .unusable(.notATitle(reason: "its path is not a title's")) }
        guard TitleOnDisk.isSafeMemberPath(member.path) else {
            return .unusable(.notATitle(reason: "\(Printable.name(member.path)) is not a path inside the title"))
        }
        var checked: Set<String> = []
        if let problem = TitleOnDisk.folderProblem(of: member.path, inTitle: folder, in: directory, checked: &checked) {
            return .unusable(problem)
        }
        let relative = folder + "/" + member.path
        let path = directory.absolute(relative)
        switch TitleOnDisk.kind(path) {
        case .regularFile: break
        case .missing: return .unusable(.member(relative, .missing))
        case .directory, .other: return .unusable(.member(relative, .notRegularFile))
        case .unreachable(let error): return .unusable(.unreadable(error))
        }
        do {
            let file = try DataFile(path: path, mode: .readOnly)
            let size = try file.size()
            guard size == member.size else { return .unusable(.member(relative, .wrongSize(actual: size, expected: member.size))) }
            return .opened(file)
        } catch where error.code == ENOENT {
            return .unusable(.member(relative, .missing))  // removed since the look
        } catch where error.code == ELOOP {
            return .unusable(.member(relative, .notRegularFile))  // replaced by a link since the look
        } catch {
            return .unusable(.unreadable(error))
        }
    }
}
