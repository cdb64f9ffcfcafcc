import Foundation

/// Re-hashes committed objects against their index rows (`mediacache verify`): each
/// file must exist, be a regular file, and have the size and SHA-256 the index records.
public final class ObjectVerifier {
    public enum Problem: Sendable, Equatable, CustomStringConvertible {
        case missing
        case notRegularFile
        case wrongSize(actual: Int64, expected: Int64)
        case wrongHash(actual: String, expected: String)
        case unreadable(SystemError)
        /// A name given on the command line that the index does not know.
        case notCached
        /// A title's directory is a file or a link.
        case notADirectory
        /// One file of a title (its path relative to the cache root) and what is wrong with it.
        indirect case member(String, Problem)
        /// A title whose `title.json` cannot vouch for it.
        case notATitle(reason: String)

        /// The object itself is bad (`--repair` removes it). A file this process may
        /// not read (EACCES, EIO) may be intact: it is named, and left alone.
        public var isDamage: Bool {
            switch self {
            case .missing, .notRegularFile, .wrongSize, .wrongHash, .notADirectory, .notATitle: true
            case .unreadable, .notCached: false
            case .member(_, let problem): problem.isDamage
            }
        }

        public var description: String { description(expected: "the index says") }

        /// A member's size and hash are title.json's word, the manifest's the index's.
        private func description(expected source: String) -> String {
            switch self {
            case .missing: "file is missing"
            case .notRegularFile: "is not a regular file"
            case .wrongSize(let actual, let expected): "wrong size: \(actual) bytes, \(source) \(expected)"
            case .wrongHash(let actual, let expected): "wrong hash: SHA-256 \(actual), \(source) \(expected)"
            case .unreadable(let reason): "cannot be read: \(reason)"
            case .notCached: "not cached"
            case .notADirectory: "is not a directory"
            case .member(let path, let problem):
                "\(path): "
                    + problem.description(
                        expected: path.hasSuffix("/" + TitleManifest.fileName) ? "the index says" : "title.json says")
            case .notATitle(let reason): "damaged streaming title: \(reason)"
            }
        }
    }

    public struct Finding: Sendable, CustomStringConvertible {
        /// The object's URL, or the name given when it is not cached.
        public var name: String
        /// Absolute path of the object's file, when there is an index row.
        public var path: String?
        public var problem: Problem

        public var description: String {
            // An unreadable file's error names its path already.
            if case .unreadable = problem { return "\(name): \(problem)" }
            return "\(name): \(problem)" + (path.map { " (\($0))" } ?? "")
        }
    }

    public struct Report: Sendable {
        public var verified = 0
        public var bytes: Int64 = 0
        public var bad: [Finding] = []
    }

    let directory: CacheDirectory
    private let index: CacheIndex?

    /// A cache without an index has nothing to verify; none is created. Throws when
    /// the cache directory cannot be used at all.
    public init(directory: CacheDirectory) throws {
        self.directory = directory
        let exists = try directory.existsForReading()
        index = exists && directory.hasIndexOrObjects ? try CacheIndex(directory: directory) : nil
    }

    /// What `gc` would clean, found without changing anything (verify also works on a
    /// read-only cache): files in `objects/` without an index row, partial jobs whose
    /// state cannot be read, and temporary files of imports that were killed. Paths are
    /// relative to the cache root.
    public func orphans() throws -> [String] {
        let known = Set(try index?.all().map(\.storedPath) ?? [])
        let files = directory.objectFiles().filter { !known.contains($0) }
        let readable = Set(PartialJobs.list(in: directory).jobs.map(\.key.hex))
        let jobs = FileSystem.contentsOfDirectory(directory.partialDirectory).sorted().filter {
            CacheKey(hex: $0) != nil && !readable.contains($0)
        }
        let staged = StagedObject.abandoned(in: directory).map { "partial/" + ($0.path as NSString).lastPathComponent }
        return files + jobs.map { "partial/" + $0 } + staged.sorted()
    }

    /// Checks every object, or those `names` (URLs, mirrors or cache keys) stand for.
    /// `progress` gets the bytes hashed so far and the total. Throws `CancellationError`
    /// when `isCancelled` turns true.
    public func verify(
        names: [String] = [], progress: (Int64, Int64) -> Void = { _, _ in }, isCancelled: () -> Bool = { false }
    ) throws -> Report {
        var report = Report()
        var objects: [CachedObject] = []
        if names.isEmpty {
            objects = try index?.all() ?? []
        } else {
            var keys: Set<String> = []
            for name in names {
                guard let object = try index?.lookup(name) else {
                    report.bad.append(Finding(name: name, path: nil, problem: .notCached))
                    continue
                }
                if keys.insert(object.key).inserted { objects.append(object) }
            }
        }
        let total = objects.reduce(Int64(0)) { $0 + $1.size }
        var done: Int64 = 0
        for object in objects {
            if isCancelled() { throw CancellationError() }
            var current = object
            var problem = try check(current, isCancelled: isCancelled) { progress(done + $0, total) }
            // A concurrent commit (import --replace) may have changed the row meanwhile:
            // judge the object by its row as it is now.
            var removedMeanwhile = false
            if problem != nil, let key = CacheKey(hex: object.key) {
                if let now = try index?.object(key: key) {
                    if now != current {
                        current = now
                        problem = try check(current, isCancelled: isCancelled) { progress(done + $0, total) }
                    }
                } else {
                    // Removed (gc, rm, an eviction) since the listing: nothing to judge.
                    removedMeanwhile = true
                }
            }
            if isCancelled() { throw CancellationError() }
            done += object.size
            progress(done, total)
            if removedMeanwhile { continue }
            if let problem {
                // A row recovered by an index rebuild has no URL yet: its cache key names it.
                let name = current.url.isEmpty ? current.cacheKey : current.url
                report.bad.append(Finding(name: name, path: directory.absolute(current.storedPath), problem: problem))
            } else {
                report.verified += 1
                report.bytes += current.size
            }
        }
        return report
    }

    /// What is wrong with `object`'s file, or nil; throws `CancellationError` once
    /// `isCancelled` turns true (a file read part-way is judged by nobody).
    private func check(_ object: CachedObject, isCancelled: () -> Bool, progress: (Int64) -> Void) throws -> Problem? {
        if object.isTitle { return try checkTitle(object, isCancelled: isCancelled, progress: progress) }
        return try checkFile(object.path, size: object.size, sha256: object.sha256, isCancelled: isCancelled, progress: progress)
    }

    /// What is wrong with the file at `relative` (a file object, or a member of a
    /// title), given the size and SHA-256 it must have; nil when nothing is.
    func checkFile(
        _ relative: String, size expected: Int64, sha256: String, isCancelled: () -> Bool, progress: (Int64) -> Void
    ) throws -> Problem? {
        let path = directory.absolute(relative)
        switch FileSystem.entry(path) {
        case .missing: return .missing
        case .other: return .notRegularFile
        case .unreachable(let error): return .unreadable(error)
        case .regularFile: break
        }
        do {
            let file = try DataFile(path: path, mode: .readOnly)
            let size = try file.size()
            guard size == expected else { return .wrongSize(actual: size, expected: expected) }
            let digest = Digest(.sha256)
            var done: Int64 = 0
            try file.forEachBlock(length: size, blockSize: 4 << 20) { block in
                if isCancelled() { throw CancellationError() }
                digest.update(block)
                done += Int64(block.count)
                progress(done)
            }
            let actual = digest.finalizeHex()
            return actual == sha256 ? nil : .wrongHash(actual: actual, expected: sha256)
        } catch let error as SystemError {
            return .unreadable(error)
        }
    }
}
