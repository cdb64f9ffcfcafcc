import ArgumentParser
import Foundation
import MediaCacheKit

struct PathCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "path",
        abstract: "Print the path of a cached, verified object.",
        discussion: "Accepts the URL, one of its mirrors, or its cache-key. Not cached: exit 1.")

    @Argument(help: ArgumentHelp("The URL or cache key.", valueName: "url"))
    var url: String

    @OptionGroup var cache: CacheOptions

    func run() throws {
        let directory = cache.directory
        guard try CommandInputs.cacheExists(directory), directory.hasIndexOrObjects else {
            Terminal.err("mediacache: not cached: \(Printable.url(url)) (\(CommandInputs.emptyCache(directory)))")
            throw ExitStatus.someFailed
        }
        let store: ObjectStore
        do {
            store = try ObjectStore(directory: directory)
        } catch {
            Terminal.err("mediacache: \(error)")
            throw ExitStatus.cacheError
        }
        let found: String?
        do {
            found = try store.verifiedPath(for: url)
        } catch let error as SystemError {
            Terminal.err("mediacache: cannot read the cached object of \(Printable.url(url)): \(error); fix the permissions or the disk")
            throw ExitStatus.cacheError
        }
        guard let path = found else {
            // Recorded, but its file is missing or not what was recorded: say so, not "not cached".
            if (try? store.object(named: url)) ?? nil != nil {
                Terminal.err(
                    "mediacache: the cached object of \(Printable.url(url)) is damaged (its file is missing or changed); "
                        + "`mediacache verify --repair` removes it, then prefetch it again")
            } else {
                Terminal.err("mediacache: not cached: \(Printable.url(url))")
            }
            throw ExitStatus.someFailed
        }
        Terminal.out(path)
    }
}
