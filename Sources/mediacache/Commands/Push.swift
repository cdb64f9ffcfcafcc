import ArgumentParser
import Foundation
import MediaCacheKit

struct Push: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "Upload cached objects to the fleet's shared tier.",
        discussion: """
            Uploads every cached object, or those named by URL, mirror or cache key, with \
            a record other caches find them by. Objects the tier already holds under the \
            same key and bytes are not sent again. A streaming title goes up as one object \
            (its title.json, then every file it lists). Large objects go up in parallel parts; an \
            upload stopped by Ctrl-C or a crash resumes at the next push. Credentials come \
            from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, the region \
            from AWS_REGION (default us-east-1).
            """)

    @Argument(help: ArgumentHelp("URLs or cache keys of cached objects (default: every object).", valueName: "url"))
    var names: [String] = []

    @OptionGroup var cache: CacheOptions
    @OptionGroup(title: "Fleet tier") var tier: TierLocationOptions

    @Flag(name: [.customShort("k"), .customLong("insecure")], help: "Do not check the S3 endpoint's TLS certificate.")
    var insecure = false

    @Flag(help: "Print one JSON object per object on stdout, then a summary.")
    var json = false

    func validate() throws { try tier.validateNamed() }

    func run() throws {
        let directory = cache.directory
        let store = try tier.store(for: directory, verifyTLS: !insecure)
        let printer = TierPrinter(json: json, quiet: false)
        guard try CommandInputs.cacheExists(directory), directory.hasIndexOrObjects else {
            if !names.isEmpty {
                for name in names { printer.notCached(name) }
                printer.summary(interrupted: false)
                throw ExitStatus.someFailed
            }
            Terminal.err("mediacache: \(CommandInputs.emptyCache(directory)); nothing to push")
            printer.summary(interrupted: false)
            return
        }
        let objects = try CommandInputs.usingCache(directory) { try ObjectStore(directory: directory) }
        do {
            try store.client.checkBucket()
            try store.uploader.abortAbandonedUploads(under: store.layout.objectsPrefix)
        } catch {
            printer.stopped(error)
            printer.summary(interrupted: false)
            throw ExitStatus.someFailed
        }
        var selected: [CachedObject] = []
        var missing = 0
        if names.isEmpty {
            selected = try cacheRead(directory) { try objects.objects() }
        } else {
            for name in names {
                if let object = try cacheRead(directory, { try objects.object(named: name) }) {
                    selected.append(object)
                } else {
                    printer.notCached(name)
                    missing += 1
                }
            }
        }
        let pusher = TierPusher(store: store, objects: objects, events: printer.handle)
        let trap = SignalTrap(message: "stopping; unfinished uploads resume at the next push") { _ in pusher.cancel() }
        if names.isEmpty { pusher.pushNoted() }
        for object in selected { pusher.push(object) }
        pusher.finish()
        printer.summary(interrupted: trap.isSet)
        if trap.isSet { throw trap.exitStatus }
        if missing > 0 || printer.hadFailures { throw ExitStatus.someFailed }
    }

    private func cacheRead<T>(_ directory: CacheDirectory, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            Terminal.err("mediacache: cannot read the cache at \(directory.root): \(error)")
            throw ExitStatus.cacheError
        }
    }
}
