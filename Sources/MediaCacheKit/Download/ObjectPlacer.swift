import Dispatch
import Synchronization

/// Places finished objects where their entries ask (`-d DIR`, `dir=`), one at a time and
/// off the transfer thread: a copy across file systems may take a while. A title becomes
/// a folder there (`TitlePlacement`).
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
        guard let folder = entry.directory else { return }
        let url = entry.url
        let (subfolders, outName) = ObjectPlacement.splitOutName(entry.outName)
        let directory = subfolders.map { folder + "/" + $0 } ?? folder
        if object.isTitle, let titleFolder = object.titleDirectory {
            // A folder of its playlists and members, which plays as the cache's copy does.
            let name = TitlePlacement.folderName(outName: outName, url: url, key: object.key)
            let cache = cache
            group.enter()
            queue.async { [self] in
                defer { group.leave() }
                let outcome = Outcome { () throws(ObjectPlacement.Failure) in
                    let intact = try? TitleOnDisk.intactManifest(of: object, in: cache)
                    guard let manifest = intact?.manifest else {
                        throw ObjectPlacement.Failure(description: "the cached title is damaged (`mediacache verify` says how)")
                    }
                    return try TitlePlacement.place(
                        titleIn: cache.absolute(titleFolder), manifest: manifest, in: directory, name: name)
                }
                if case .failure = outcome { failures.add(1, ordering: .relaxed) }
                report(url, outcome)
            }
            return
        }
        let source = cache.absolute(object.path)
        let replacing = entry.replacesFile
        let name = ObjectPlacement.fileName(
            outName: outName ?? object.originName, url: entry.url, key: object.key, pathExtension: URLParts.shortExtension(of: object.path))
        group.enter()
        queue.async { [self] in
            defer { group.leave() }
            let outcome = Outcome { () throws(ObjectPlacement.Failure) in
                try ObjectPlacement.place(objectAt: source, in: directory, name: name, replacing: replacing)
            }
            if case .failure = outcome { failures.add(1, ordering: .relaxed) }
            report(url, outcome)
        }
    }

    /// Returns once every object handed over is placed (or failed to be).
    public func wait() { group.wait() }

    public var failureCount: Int { failures.load(ordering: .relaxed) }
}
