import Dispatch
import Synchronization

/// Places finished objects where their entries ask (`-d DIR`, `dir=`), one at a time and
/// off the transfer thread: a copy across file systems may take a while.
public final class ObjectPlacer: Sendable {
    public typealias Outcome = Result<ObjectPlacement.Placed, ObjectPlacement.Failure>

    private let cache: CacheDirectory
    private let report: @Sendable (_ url: String, _ outcome: Outcome) -> Void
    private let queue = DispatchQueue(label: "mediacache.placement", qos: .utility)
    private let group = DispatchGroup()
    private let failures = Atomic<Int>(0)

    /// `report` is called on the placer's queue, once per placed object.
    public init(cache: CacheDirectory, report: @escaping @Sendable (_ url: String, _ outcome: Outcome) -> Void) {
        self.cache = cache
        self.report = report
    }

    /// Places `object` as `entry` asks; nothing when it names no folder.
    public func place(_ object: CachedObject, for entry: ListEntry) {
        guard let directory = entry.directory else { return }
        let url = entry.url
        if object.isTitle {
            // A title is a folder of playlists and segments that play from the cache; a
            // copy of its entry playlist alone would not play.
            failures.add(1, ordering: .relaxed)
            let failure = ObjectPlacement.Failure(
                description: "a streaming title is not copied to \(directory); play it from the cache: "
                    + "`mediacache path \(URLCredentials.masked(url))` prints its playlist")
            group.enter()
            queue.async { [self] in
                defer { group.leave() }
                report(url, .failure(failure))
            }
            return
        }
        let source = cache.absolute(object.path)
        let name = ObjectPlacement.fileName(
            outName: entry.outName, url: entry.url, key: object.key, pathExtension: URLParts.shortExtension(of: object.path))
        group.enter()
        queue.async { [self] in
            defer { group.leave() }
            let outcome = Outcome { () throws(ObjectPlacement.Failure) in
                try ObjectPlacement.place(objectAt: source, in: directory, name: name)
            }
            if case .failure = outcome { failures.add(1, ordering: .relaxed) }
            report(url, outcome)
        }
    }

    /// Returns once every object handed over is placed (or failed to be).
    public func wait() { group.wait() }

    public var failureCount: Int { failures.load(ordering: .relaxed) }
}
