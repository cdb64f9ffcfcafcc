import Foundation

/// The interrupted jobs recorded under `partial/`, for `resume` and `status`.
public enum PartialJobs {
    public struct Job: Sendable {
        public var key: CacheKey
        public var state: JobState
    }

    /// Every readable job state; unreadable ones are returned as problems to report.
    public static func list(in cache: CacheDirectory) -> (jobs: [Job], problems: [String]) {
        var jobs: [Job] = []
        var problems: [String] = []
        for name in FileSystem.contentsOfDirectory(cache.partialDirectory).sorted() {
            // A streaming title's download keeps its state in its staging directory.
            let titleKey = TitleLayout.stagingKey(ofPartialEntry: name)
            guard let key = titleKey ?? CacheKey(hex: name) else { continue }
            let path =
                titleKey != nil ? TitleLayout.staging(key: key, in: cache) + "/" + TitleLayout.stateFile : cache.statePath(key: key)
            guard FileSystem.exists(path) else { continue }
            do {
                jobs.append(Job(key: key, state: try JobStateCodec.decode(try FileSystem.readAll(path), path: path)))
            } catch {
                problems.append("\(error)")
            }
        }
        return (jobs.sorted { $0.state.createdAt < $1.state.createdAt }, problems)
    }

    /// A title's pull from the tier that was stopped: what the next `pull` or
    /// `prefetch --tier` of it goes on from.
    public struct Pull: Sendable {
        public var key: CacheKey
        public var url: String
        /// What the pull folder holds of the pack (its files as far as they go).
        public var bytesHeld: Int64
        public var length: Int64
    }

    /// Every stopped pull whose `title.json` can be read (`partial/<key>.title/pull/`).
    public static func pulls(in cache: CacheDirectory) -> [Pull] {
        FileSystem.contentsOfDirectory(cache.partialDirectory).sorted().compactMap { name -> Pull? in
            guard let key = TitleLayout.stagingKey(ofPartialEntry: name) else { return nil }
            let folder = TitleLayout.staging(key: key, in: cache) + "/" + TitleLayout.pullFolder
            let path = folder + "/" + TitleManifest.fileName
            guard let bytes = try? FileSystem.readAll(path), let manifest = try? TitleManifest.decode(bytes, path: path) else { return nil }
            let held = manifest.members.reduce(Int64(bytes.count)) { held, member in
                held + min(FileSystem.fileSize(folder + "/" + member.path) ?? 0, member.size)
            }
            return Pull(key: key, url: manifest.url, bytesHeld: held, length: manifest.totalSize(manifestBytes: bytes.count))
        }
    }
}
