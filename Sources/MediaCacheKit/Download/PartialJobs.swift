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
        let titleSuffix = "." + CachedObject.titleDirectoryExtension
        for name in FileSystem.contentsOfDirectory(cache.partialDirectory).sorted() {
            // A streaming title's download keeps its state in its staging directory.
            let isTitle = name.hasSuffix(titleSuffix)
            guard let key = CacheKey(hex: isTitle ? String(name.dropLast(titleSuffix.count)) : name) else { continue }
            let path = isTitle ? TitleLayout.staging(key: key, in: cache) + "/" + TitleLayout.stateFile : cache.statePath(key: key)
            guard FileSystem.exists(path) else { continue }
            do {
                jobs.append(Job(key: key, state: try JobStateCodec.decode(try FileSystem.readAll(path), path: path)))
            } catch {
                problems.append("\(error)")
            }
        }
        return (jobs.sorted { $0.state.createdAt < $1.state.createdAt }, problems)
    }
}
