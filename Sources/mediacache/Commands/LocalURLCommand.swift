import ArgumentParser
import Foundation
import MediaCacheKit

struct LocalURLCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "url",
        abstract: "Print the URL that plays URL through `serve`.",
        discussion: """
            Works for an object cached or not: the server plays it from the cache, or \
            downloads it while it plays. For a streaming title, the local URL is its \
            playlist or MPD, whose files the server sends from beside it. Headers given here (an Authorization token, say) \
            are kept in the cache directory (mode 0600), never in the local URL, and are \
            sent only to URL's own host. The local URL carries a token only this cache can \
            make; the server refuses any other.
            """)

    @Argument(help: ArgumentHelp("An http or https URL.", valueName: "url"))
    var url: String

    @Option(
        name: [.customShort("H"), .customLong("header")],
        help: ArgumentHelp("A request header for URL's host, 'Name: value' (repeatable).", valueName: "header"))
    var headers: [String] = []

    @Option(name: .customLong("cache-key"), help: ArgumentHelp("The object's identity, as in a list's cache-key=.", valueName: "key"))
    var cacheKey: String?

    @Option(
        name: .customLong("server"),
        help: ArgumentHelp(
            "The server's base URL (default: the one `mediacache serve` recorded in the cache directory).",
            valueName: "base"))
    var server: String?

    @OptionGroup var cache: CacheOptions

    func validate() throws {
        try HeaderArgument.validate(headers)
    }

    func run() throws {
        // Not in `validate`: ArgumentParser validates before it reports an unknown
        // option, and `url --port 5 URL` would be "'5' is not an http or https URL".
        guard let scheme = URLParts(url)?.scheme, scheme == "http" || scheme == "https" else {
            throw ValidationError("'\(Printable.url(url))' is not an http or https URL")
        }
        if let problem = URLParts.problem(with: url) { throw ValidationError("\(Printable.url(url)): \(problem)") }
        let directory = cache.directory
        let base: String
        if let server {
            guard let scheme = URLParts(server)?.scheme, scheme == "http" || scheme == "https" else {
                throw ValidationError("--server '\(Printable.url(server))' is not an http or https URL (e.g. http://127.0.0.1:8737)")
            }
            base = server.hasSuffix("/") ? String(server.dropLast()) : server
        } else if let record = ServerRecord.running(in: directory) {
            base = record.baseURL
        } else {
            Terminal.err(
                "mediacache: no `mediacache serve` is running for the cache at \(directory.root); start one, or give --server")
            throw ExitStatus.someFailed
        }
        let source = LocalSource(url: url, headers: headers, cacheKey: cacheKey)
        let token: String
        do {
            try directory.prepare()
            token = try LocalSources(cache: directory).register(source)
        } catch {
            throw CommandInputs.cacheUnusable(directory, error)
        }
        Terminal.out("\(base)/m/\(token)/\(source.pathName)")
    }
}
