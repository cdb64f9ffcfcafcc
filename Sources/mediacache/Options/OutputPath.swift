import ArgumentParser
import Foundation

/// `prefetch -o PATH`: where the one file given also appears, as curl's and aria2's `-o`
/// put it. It becomes the entry's folder and `out=` name, so it is placed as `-d` places
/// files (a hard link to the cached object, else a copy), but over a file already there,
/// as curl's `-o` writes.
struct OutputPath: Equatable {
    /// Absolute.
    let folder: String
    let name: String

    /// `path` relative to `directory` (`-d`) when given, else to `workingDirectory`;
    /// `inputs`: the command's URLs and lists, which must be one URL.
    init(_ path: String, inputs: ListInputs, directory: String?, workingDirectory: String) throws {
        guard !path.isEmpty else { throw ValidationError("-o needs a file name") }
        if path == "-" {
            throw ValidationError(
                "-o -: mediacache does not write to standard output; once the file is cached, "
                    + "cat \"$(mediacache path URL)\" does")
        }
        if path.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw ValidationError("-o \(path.debugDescription): the name contains a control character")
        }
        guard inputs.inputs.count == 1, case .url = inputs.inputs[0] else {
            throw ValidationError(
                "-o names one file: give one URL with it (in a list, out=NAME names each file, and -d DIR puts them in a folder)")
        }
        let base = path.hasPrefix("/") ? "" : (directory.map { $0.hasPrefix("/") ? $0 : workingDirectory + "/" + $0 } ?? workingDirectory)
        let full = base.isEmpty ? path : base + "/" + path
        var isDirectory: ObjCBool = false
        let last = path.split(separator: "/").last.map(String.init)
        guard let last, last != ".", last != "..", !path.hasSuffix("/"),
            !(FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory) && isDirectory.boolValue)
        else {
            throw ValidationError("-o \(path) names a folder: end it with the file's name, or use -d \(path) to put the file in it")
        }
        name = last
        let parent = String(full.dropLast(last.count))
        folder = parent.count > 1 && parent.hasSuffix("/") ? String(parent.dropLast()) : parent
    }
}
