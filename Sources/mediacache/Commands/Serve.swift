import ArgumentParser
import Foundation
import MediaCacheKit
import MediaCacheServe
import ServiceLifecycle

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the cache to players, fetching what is missing.",
        discussion: """
            Prints `listening on http://HOST:PORT` as its first line, then answers the local \
            URLs that `mediacache url` prints: a cached object from its file, anything else \
            by starting (or joining) its download and sending bytes as they land; a seek \
            into bytes not fetched yet fetches them first. The download goes on after the \
            player leaves and is verified and cached like any prefetch. A file another \
            mediacache process is downloading into the same cache is sent from what that \
            process has written, as it writes it (a seek there waits for that process); a \
            title, from its playlists and the files it holds. URLs and lists \
            given are prefetched in the background while serving; players always come first. \
            GET and HEAD with one byte range each (bytes=a-b, a-, -n); several ranges are \
            answered with the whole object. A streaming title (HLS or DASH) plays cached or \
            while it downloads: its local URL answers with the title's playlist or MPD, and \
            each of its files answers beside it, ranges included (a file not held yet is \
            fetched ahead of the rest and sent as it lands). A download that has not started \
            answering a second after --timeout gets 504 while it goes on, and an origin's \
            503 or 429 reaches the player at once, with when the download asks again; one that failed \
            gets the same answer for 10 seconds, without asking the origin again. Web \
            players on other sites (hls.js, dash.js, Shaka) may read local URLs: they are \
            shared with any origin (CORS), as whoever holds one may read it anyway. \
            http://HOST:PORT/ is a status page, shared with no other site. Ctrl-C or \
            SIGTERM stops it within two seconds, progress saved.
            """)

    @Option(
        name: .customLong("listen"),
        help: ArgumentHelp(
            "The address to listen on, ADDR:PORT (port 0 picks a free one). A loopback address unless --allow-remote says otherwise; never the wildcard.",
            valueName: "addr:port"))
    var listen = "127.0.0.1:8737"

    @Flag(
        name: .customLong("allow-remote"),
        help: "Let --listen name an address other machines reach. Anyone who can reach it can play what the cache holds; requests must then name that address as their Host.")
    var allowRemote = false

    @Option(
        name: .customLong("idle-timeout"),
        help: ArgumentHelp(
            "Seconds a client connection may stay silent (between requests, or in the middle of a request head) before it is closed (1-3600); one that stops reading its answer is closed after six times this.",
            valueName: "sec"))
    var idleTimeout = 10

    /// Prefetched in the background while serving.
    @OptionGroup var lists: ListInputOptions

    @OptionGroup var cache: CacheOptions
    @OptionGroup var download: DownloadOptions
    @OptionGroup(title: "Network options") var network: NetworkOptions
    @OptionGroup(title: "Fleet tier") var tier: TierOptions
    @OptionGroup(title: "Streaming titles") var titles: TitleOptions

    func validate() throws {
        guard (1...3600).contains(idleTimeout) else {
            throw ValidationError("--idle-timeout must be between 1 and 3600 seconds")
        }
        do {
            _ = try ListenSpec.parse(listen, allowRemote: allowRemote)
        } catch {
            throw ValidationError(error.description)
        }
    }

    func run() async throws {
        let address = try ListenSpec.parse(listen, allowRemote: allowRemote)
        MemoryTuning.returnFreedMemoryPromptly()
        let listInputs = try lists.classified()
        let texts: [ListText]
        do {
            texts = try listInputs.texts()
        } catch {
            Terminal.err("mediacache: \(error.message)")
            throw ExitStatus.usage
        }
        let directory = cache.directory
        let printer = ServeEventPrinter(json: download.json, quiet: download.quiet)
        let tier = tier.use(insecure: download.insecure)
        let engine = try Engine.open(
            cache: directory, options: download.engineOptions(network: network, titles: titles), tier: tier, json: download.json,
            tierPrinter: TierPrinter(json: download.json, quiet: download.quiet, reads: true, pushes: tier.push),
            events: printer.download, unusable: { CommandInputs.cacheUnusable(directory, $0) })
        let background = texts.isEmpty
            ? nil : BackgroundLists(texts, headers: download.headers, service: engine.service, printer: printer)
        let record = LockedValue<ServerRecord?>(nil)
        let server = try CommandInputs.usingCache(directory) {
            try MediaServer(
                service: engine.service, listen: address, idleTimeout: idleTimeout,
                timeout: download.timeout, log: printer.request
            ) { base in
                // Recorded before it is announced: `url` run right after the line finds it.
                let mine = ServerRecord(baseURL: base, pid: getpid())
                try? mine.write(in: directory)
                record.value = mine
                Terminal.out("listening on \(base)")
                background?.serverListens()
            }
        }
        let group = ServeGroup.make(
            server: server, engine: engine, watch: CacheWatch(directory: directory, identity: directory.identity()),
            background: background)
        let trap = SignalTrap(message: "stopping, saving progress") { _ in
            Task { await group.triggerGracefulShutdown() }
        }
        var failure: (any Error)?
        do {
            try await group.run()
        } catch {
            failure = error
        }
        record.value?.remove(in: directory)
        if trap.isSet { throw trap.exitStatus }
        // Said when it was seen.
        if failure is CacheWatch.Replaced { throw ExitStatus.cacheError }
        if let failure, let reason = ListenFailure.reason(failure) {
            Terminal.err("mediacache: cannot serve on \(listen): \(reason)")
            throw ExitStatus.usage
        }
        Terminal.err("mediacache: cannot serve on \(listen): \(failure.map { "\($0)" } ?? "the server stopped")")
        throw ExitStatus.someFailed
    }
}
