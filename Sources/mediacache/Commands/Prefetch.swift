import ArgumentParser
import Foundation
import MediaCacheKit

struct Prefetch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Download every entry of one or more lists into the cache.",
        discussion: """
            LIST is a file in aria2's input-file format (a URL line, then indented key=value \
            options: out=, header=, checksum=, cache-key=, user-agent=, referer=, \
            all-proxy=) or - for standard input. Running the same command again resumes \
            where the last run stopped. With --shard K/N, N machines (or runs) each take \
            a disjoint part of the same lists.

            Defaults for these options can be set in the config file (see `mediacache help \
            config`); the command line wins.
            """)

    @Argument(help: ArgumentHelp("List files, or - for standard input.", valueName: "list"), completion: .file())
    var lists: [String]

    @Option(
        help: ArgumentHelp(
            "Take only shard K of N of the entries (by cache key), so N machines split one catalogue; e.g. 0/4.",
            valueName: "K/N"))
    var shard: String?

    @OptionGroup var cache: CacheOptions
    @OptionGroup var download: DownloadOptions

    func validate() throws {
        if lists.isEmpty { throw ValidationError("give at least one list file (or - for standard input)") }
        if lists.filter({ $0 == "-" }).count > 1 { throw ValidationError("standard input (-) can be read only once") }
        _ = try parsedShard()
    }

    private func parsedShard() throws -> Shard? {
        guard let shard else { return nil }
        do {
            return try Shard(parsing: shard)
        } catch {
            throw ValidationError("--shard: \(error)")
        }
    }

    func run() throws {
        // Every list is read first: a missing one stops the command before anything is
        // fetched. Entries are parsed as jobs are started.
        var texts: [ListText] = []
        for list in lists {
            let bytes: [UInt8]
            do {
                bytes = try ListReader.read(list)
            } catch {
                let message = (error as? ListReader.Failure)?.message ?? "cannot read list \(list): \(error)"
                SummaryPrinter.printRunFailure(message, code: "bad-list", json: download.json)
                throw ExitStatus.usage
            }
            texts.append(ListParser.text(of: bytes, file: list == "-" ? "<stdin>" : list))
        }
        let shard = try parsedShard()
        let entries = ListEntries(texts, shard: shard)
        var pending = entries.next { Terminal.err($0.description) }
        if pending == nil && entries.errorCount == 0 {
            if let shard {
                Terminal.err("mediacache: none of the \(entries.otherShardCount) entries is in shard \(shard); nothing to do")
            } else {
                Terminal.err("mediacache: the list has no URLs; nothing to do")
            }
            SummaryPrinter.printNothingToDo(json: download.json)
            return
        }
        defer {
            if let shard, !download.json, !download.quiet {
                Terminal.err("mediacache: shard \(shard): \(entries.otherShardCount) entries left to the other shards")
            }
        }
        let headers = download.headers
        try DownloadRun(cache: cache.directory, options: download).run(
            next: { report in
                let entry = pending ?? entries.next { report($0.description) }
                pending = nil
                return entry.map { JobRequest(entry: $0, commandHeaders: headers) }
            },
            countRest: { (pending == nil ? 0 : 1) + entries.skipRest() },
            inputErrors: { entries.errorCount })
    }
}

/// Reads a list file or standard input; a failure says why (the command exits 2).
enum ListReader {
    struct Failure: Error {
        let message: String
    }

    /// Lists are text; a bigger "list" (or /dev/zero) is refused before it fills memory.
    static let maximumSize = 64 << 20

    static func read(_ path: String) throws -> [UInt8] {
        let handle: FileHandle
        if path == "-" {
            handle = FileHandle.standardInput
        } else {
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            guard exists, !isDirectory.boolValue, let opened = FileHandle(forReadingAtPath: path) else {
                let reason = !exists ? "no such file" : isDirectory.boolValue ? "it is a directory" : "permission denied"
                throw Failure(message: "cannot read list \(path): \(reason)")
            }
            handle = opened
        }
        var bytes: [UInt8] = []
        do {
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                bytes += chunk
                if bytes.count > maximumSize {
                    throw Failure(
                        message: "list \(path) is larger than \(maximumSize >> 20) MiB; split it into smaller lists")
                }
            }
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(message: "cannot read list \(path): \(error.localizedDescription)")
        }
        return bytes
    }
}
