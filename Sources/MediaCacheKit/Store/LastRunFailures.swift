import Foundation

/// The failures of the last `prefetch` or `resume` that had any, for `status`: a failure
/// that asking again will not change is not kept for `resume`, yet a user who missed the
/// summary can still find what failed and why. URLs are stored without passwords.
public struct LastRunFailures: Codable, Sendable, Equatable {
    public struct Failure: Codable, Sendable, Equatable {
        public var url: String
        public var code: String
        public var message: String
        /// True when `resume` tries it again (its bytes or state are kept).
        public var keptForResume: Bool

        private enum CodingKeys: String, CodingKey {
            case url, code, message, keptForResume = "kept_for_resume"
        }
    }

    /// UTC, `yyyy-MM-dd HH:mm:ss` (no formatter: ICU costs a run more than it does).
    public var finishedAt: String
    public var failures: [Failure]

    private enum CodingKeys: String, CodingKey { case finishedAt = "finished_at", failures }

    static func path(in cache: CacheDirectory) -> String { cache.runsDirectory + "/last-failures.json" }

    /// Records a run's failures; a run without any removes the record of an earlier one.
    public static func record(_ failed: [(url: String, failure: JobFailure)], in cache: CacheDirectory) throws(SystemError) {
        let path = path(in: cache)
        guard !failed.isEmpty else {
            FileSystem.remove(path)
            return
        }
        let record = LastRunFailures(
            finishedAt: String(IndexDate.text(Date()).prefix(19)),
            failures: failed.map {
                Failure(
                    url: URLCredentials.withoutPassword($0.url), code: $0.failure.code.rawValue,
                    message: $0.failure.message, keptForResume: $0.failure.keptForResume)
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let bytes = try? encoder.encode(record) else { return }
        try FileSystem.makeDirectory(cache.runsDirectory, replacingLink: true)
        try FileSystem.writeAtomically(Array(bytes), to: path)
    }

    /// The last record, or nil when there is none (or it cannot be read: it is advice only).
    public static func load(in cache: CacheDirectory) -> LastRunFailures? {
        let path = path(in: cache)
        guard FileSystem.isRegularFile(path), let bytes = try? FileSystem.readAll(path) else { return nil }
        return try? JSONDecoder().decode(LastRunFailures.self, from: Data(bytes))
    }
}
