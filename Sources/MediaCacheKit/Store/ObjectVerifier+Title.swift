import Foundation

/// `verify` of a streaming title: `title.json` against the row, then every member it
/// lists against it (a regular file inside the title, of its size and SHA-256). The first
/// bad member is reported by its path, relative to the cache root.
extension ObjectVerifier {
    func checkTitle(_ object: CachedObject, isCancelled: () -> Bool, progress: (Int64) -> Void) throws -> Problem? {
        let inspection: TitleOnDisk.Inspection
        do {
            inspection = try TitleOnDisk.inspect(object, in: directory, lookingAtFiles: false)
        } catch {
            return .unreadable(error)
        }
        guard case .intact(let manifest) = inspection else {
            if case .damaged(let problem) = inspection { return problem }
            return nil
        }
        // Only a manifest that passed `inspect` gets here: every path is a plain one inside.
        let folder = object.titleDirectory!
        var done = Int64(manifest.bytes.count)
        progress(done)
        var checkedFolders: Set<String> = []
        for member in manifest.manifest.members {
            if isCancelled() { throw CancellationError() }
            let relative = folder + "/" + member.path
            if let problem = TitleOnDisk.folderProblem(of: member.path, inTitle: folder, in: directory, checked: &checkedFolders) {
                return problem
            }
            let before = done
            if let problem = try checkFile(
                relative, size: member.size, sha256: member.sha256, isCancelled: isCancelled,
                progress: { progress(before + $0) })
            {
                // An unreadable file's error names its path already.
                if case .unreadable = problem { return problem }
                return .member(relative, problem)
            }
            done += member.size
        }
        return nil
    }
}
