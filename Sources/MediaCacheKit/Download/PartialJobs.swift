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
            guard let key = CacheKey(hex: name) else { continue }
            let path = cache.statePath(key: key)
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
