import ArgumentParser
import Foundation
import MediaCacheKit

struct Prefetch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Download every entry of one or more lists into the cache.",
        discussion: """
            LIST is a file in aria2's input-file format (a URL line, then indented key=value \
            options: out=, header=, checksum=, cache-key=) or - for standard input. Running \
            the same command again resumes where the last run stopped.
            """)

    @Argument(help: ArgumentHelp("List files, or - for standard input.", valueName: "list"), completion: .file())
    var lists: [String]

    @OptionGroup var cache: CacheOptions
    @OptionGroup var download: DownloadOptions

    func validate() throws {
        if lists.isEmpty { throw ValidationError("give at least one list file (or - for standard input)") }
        if lists.filter({ $0 == "-" }).count > 1 { throw ValidationError("standard input (-) can be read only once") }
    }

    func run() throws {
        var entries: [ListEntry] = []
        var seen: Set<String> = []
        var errors = 0
        for list in lists {
            let parsed = ListParser.parse(try ListReader.read(list), file: list == "-" ? "<stdin>" : list)
            for diagnostic in parsed.diagnostics { Terminal.err(diagnostic.description) }
            errors += parsed.errors.count
            for entry in parsed.entries where seen.insert(entry.identity).inserted {
                entries.append(entry)
            }
        }
        if entries.isEmpty && errors == 0 {
            Terminal.err("mediacache: the list has no URLs; nothing to do")
            return
        }
        let requests = entries.map { JobRequest(entry: $0, commandHeaders: download.headers) }
        try DownloadRun(cache: cache.directory, options: download).run(requests, inputErrors: errors)
    }
}

/// Reads a list file or standard input, turning failures into exit code 2.
enum ListReader {
    static func read(_ path: String) throws -> [UInt8] {
        if path == "-" {
            return Array(FileHandle.standardInput.readDataToEndOfFile())
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            let reason = !exists ? "no such file" : isDirectory.boolValue ? "it is a directory" : "permission denied"
            Terminal.err("mediacache: cannot read list \(path): \(reason)")
            throw ExitStatus.usage
        }
        return Array(data)
    }
}
