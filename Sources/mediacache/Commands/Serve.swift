import ArgumentParser
import Foundation
import MediaCacheKit
import MediaCacheServe

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the cache to players, fetching what is missing.",
        discussion: """
            Prints `listening on http://HOST:PORT` as its first line, then answers the local \
            URLs that `mediacache url` prints: a cached object from its file, anything else \
            by starting (or joining) its download and sending bytes as they land; a seek \
            into bytes not fetched yet fetches them first. The download goes on after the \
            player leaves and is verified and cached like any prefetch. URLs and lists \
            given are prefetched in the background while serving; players always come first. \
            GET and HEAD with one byte range each (bytes=a-b, a-, -n); several ranges are \
            answered with the whole object. A streaming title (HLS or DASH) plays cached or \
            while it downloads: its local URL answers with the title's playlist or MPD, and \
            each of its files answers beside it, ranges included (a file not held yet is \
            fetched ahead of the rest). http://HOST:PORT/ is a status \
            page. Ctrl-C or \
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
            "Seconds a client connection may stay silent (between requests, or in the middle of a request head) before it is closed (1-3600).",
            valueName: "sec"))
    var idleTimeout = 10

    /// Prefetched in the background while serving.
    @OptionGroup var lists: ListInputOptions

    @OptionGroup var cache: CacheOptions
    @OptionGroup var download: DownloadOptions

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

    func run() throws {
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
        let service: DownloadService
        let server: MediaServer
        let pusher: TierPusher?
        do {
            let tier = download.tier.use(insecure: download.insecure)
            let (source, tierPusher) = try tier.prepare(
                for: directory, json: download.json,
                printer: TierPrinter(json: download.json, quiet: download.quiet, reads: true, pushes: tier.push))
            pusher = tierPusher
            pusher?.pushNoted()
            var committed: (@Sendable (CachedObject) -> Void)?
            if let pusher { committed = { pusher.push($0) } }
            service = try DownloadService(
                cache: directory, options: download.engineOptions, events: printer.download, committed: committed,
                tier: source)
            server = try MediaServer(service: service, listen: address, idleTimeout: idleTimeout, log: printer.request)
        } catch let exit as ExitCode {
            throw exit
        } catch let error as ValidationError {
            throw error
        } catch {
            throw CommandInputs.cacheUnusable(directory, error)
        }
        let record = LockedValue<ServerRecord?>(nil)
        let trap = SignalTrap(message: "stopping, saving progress") {
            // Unfinished uploads stay noted for the next push.
            pusher?.cancel()
            service.beginShutdown()
            DispatchQueue.global().async {
                service.shutdown()
                record.value?.remove(in: directory)
            }
        }
        // The lists start once the address is out: it is the first line, before any
        // line about their downloads.
        let headers = download.headers
        let startLists: @Sendable () -> Void = { [texts] in
            guard !texts.isEmpty else { return }
            let entries = ListEntries(texts)
            let batch = PrefetchBatch(service: service, priority: .background)
            Thread.detachNewThread {
                let summary = batch.run(next: {
                    entries.next { Terminal.err($0.description) }.map { JobRequest(entry: $0, commandHeaders: headers) }
                })
                printer.backgroundDone(summary, inputErrors: entries.errorCount)
            }
        }
        let failed = DispatchSemaphore(value: 0)
        let failure = LockedValue<Error?>(nil)
        Task {
            do {
                try await server.run { base in
                    // Recorded before it is announced: `url` run right after the line finds it.
                    let mine = ServerRecord(baseURL: base, pid: getpid())
                    try? mine.write(in: directory)
                    record.value = mine
                    Terminal.out("listening on \(base)")
                    startLists()
                }
            } catch {
                failure.value = error
            }
            failed.signal()
        }
        // Ends when the server cannot start or stops; a signal ends the process (below).
        let cacheIdentity = directory.identity()
        var ticks = 0
        while failed.wait(timeout: .now() + 0.1) == .timedOut {
            if trap.isSet && service.hasShutDown { break }
            ticks += 1
            // A cache removed (or replaced) under the server: its index and files are
            // gone from every other command's view, so writing on into them loses data.
            if ticks % 10 == 0, !trap.isSet, directory.identity() != cacheIdentity {
                Terminal.err(
                    "mediacache: the cache directory \(directory.root) was removed or replaced while serving; "
                        + "stopping (start serve again to use the cache there now)")
                service.beginShutdown()
                service.shutdown()
                record.value?.remove(in: directory)
                throw ExitStatus.cacheError
            }
        }
        if trap.isSet {
            record.value?.remove(in: directory)
            throw trap.exitStatus
        }
        service.shutdown()
        record.value?.remove(in: directory)
        Terminal.err("mediacache: cannot serve on \(listen): \(failure.value.map { "\($0)" } ?? "the server stopped")")
        throw ExitStatus.someFailed
    }
}
