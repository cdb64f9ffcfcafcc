#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Puts a copy of a cached title where the user asked (`-d DIR`, `dir=`): a folder
/// `DIR/NAME/` holding its playlists and every member at their places in the title, so
/// the entry playlist in it plays offline as the cache's does. Each file is a hard link
/// on the same file system, else a copy (`ObjectPlacement`). The folder is made under
/// a temporary name and renamed once whole, and never replaces another: a taken name
/// becomes `NAME.1`, as a file's does.
enum TitlePlacement {
    /// Places the title `manifest` describes, stored in `folder` (absolute), in `directory`.
    static func place(
        titleIn folder: String, manifest: TitleManifest, in directory: String, name: String
    ) throws(ObjectPlacement.Failure) -> ObjectPlacement.Placed {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw ObjectPlacement.Failure(description: "cannot create the folder \(directory): \(error.localizedDescription)")
        }
        // A run that placed it before: the folder's entry playlist is the cache's own file.
        var entry = stat()
        if lstat(folder + "/" + manifest.entry, &entry) == 0 {
            for attempt in 0...ObjectPlacement.maximumRenames {
                let candidate = directory + "/" + numbered(name, attempt)
                // Names are taken in order: the first free one ends the search.
                guard FileManager.default.fileExists(atPath: candidate) else { break }
                var existing = stat()
                let path = candidate + "/" + manifest.entry
                if lstat(path, &existing) == 0, existing.st_dev == entry.st_dev, existing.st_ino == entry.st_ino {
                    return ObjectPlacement.Placed(path: path, method: .alreadyThere)
                }
            }
        }
        // Hidden, and short enough for any name (a name may take 255 bytes).
        let staging = directory + "/.mediacache-title-\(getpid())"
        FileSystem.removeTree(staging)
        var method = ObjectPlacement.Method.linked
        do {
            for relative in [manifest.entry] + manifest.members.map(\.path) {
                let target = staging + "/" + relative
                let parent = (target as NSString).deletingLastPathComponent
                try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
                let placed = try ObjectPlacement.place(
                    objectAt: folder + "/" + relative, in: parent, name: (relative as NSString).lastPathComponent,
                    isSecret: TitleMemberType.isKeyFile((relative as NSString).lastPathComponent))
                if placed.method == .copied { method = .copied }
            }
        } catch {
            FileSystem.removeTree(staging)
            throw (error as? ObjectPlacement.Failure) ?? ObjectPlacement.Failure(description: "cannot write in \(staging): \(error)")
        }
        for attempt in 0...ObjectPlacement.maximumRenames {
            let path = directory + "/" + numbered(name, attempt)
            // rename(2) would replace an empty folder of that name: only a new name is taken.
            if FileManager.default.fileExists(atPath: path) { continue }
            if rename(staging, path) == 0 { return ObjectPlacement.Placed(path: path + "/" + manifest.entry, method: method) }
            if errno == EEXIST || errno == ENOTEMPTY { continue }
            let reason = String(cString: strerror(errno))
            FileSystem.removeTree(staging)
            throw ObjectPlacement.Failure(description: "cannot save \(path): \(reason)")
        }
        FileSystem.removeTree(staging)
        throw ObjectPlacement.Failure(description: "cannot save \(name) in \(directory): \(ObjectPlacement.maximumRenames) others take its name")
    }

    /// `name`, `name.1`, `name.2`...
    private static func numbered(_ name: String, _ attempt: Int) -> String { attempt == 0 ? name : "\(name).\(attempt)" }

    /// The folder's name: `out=`, else the URL's playlist name without its extension, or
    /// the folder above it when that name says nothing (`master`, `index`, `manifest`...).
    static func folderName(outName: String?, url: String, key: String) -> String {
        var wanted = outName ?? ""
        if wanted.isEmpty, let parts = URLParts(url) {
            let components = parts.path.split(separator: "/").map(String.init)
            let stem = components.last.map { ($0 as NSString).deletingPathExtension } ?? ""
            wanted = genericNames.contains(stem.lowercased()) && components.count > 1 ? components[components.count - 2] : stem
        }
        return ObjectPlacement.fileName(outName: wanted.removingPercentEncoding ?? wanted, url: url, key: key, pathExtension: nil)
    }

    private static let genericNames: Set<String> = [
        "master", "index", "manifest", "playlist", "main", "stream", "prog_index", "chunklist", "video", "dash", "hls",
    ]
}
