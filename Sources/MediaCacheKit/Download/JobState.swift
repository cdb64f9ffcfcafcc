import Foundation

/// Everything needed to resume a job after any interruption, stored as
/// `partial/<key>/state`. Ranges listed in `completed` are on disk (the data file was
/// fdatasync'ed before this state was written).
public struct JobState: Sendable, Codable, Equatable {
    /// Bumped whenever the meaning of a field changes; older or newer states are refused.
    public static let currentVersion = 1

    public var version: Int = JobState.currentVersion
    public var entry: ListEntry
    /// Headers from `-H` that applied to this job (they may hold tokens: file is 0600).
    public var commandHeaders: [String]
    /// Origin identity of the bytes held; nil until the first response.
    public var validators: Validators
    /// The URL the probe was redirected to last.
    public var finalURL: String?
    public var contentType: String?
    /// The file's name as the origin gives it (`Content-Disposition`); nil in older states.
    public var originName: String?
    /// False once the origin is known to ignore or mishandle Range: one stream from 0.
    public var rangesSupported: Bool
    public var completed: RangeSet
    /// The tier record whose object the held bytes are (`--tier`); nil while they come
    /// from the origin. Its object is fetched again by its hash, and checked against it.
    public var tier: TierRecord?
    /// Names the current contents of the data file; renewed whenever they are discarded,
    /// so a progress journal of older contents is never trusted. Nil in older states.
    public var epoch: UInt64?
    public var createdAt: Date
    public var updatedAt: Date

    public init(entry: ListEntry, commandHeaders: [String], now: Date = Date()) {
        self.entry = entry
        self.commandHeaders = commandHeaders
        self.validators = Validators()
        self.rangesSupported = true
        self.completed = RangeSet()
        self.epoch = JobState.newEpoch()
        self.createdAt = now
        self.updatedAt = now
    }

    public var length: Int64? { validators.length }

    public var bytesDone: Int64 { completed.byteCount }

    public var isComplete: Bool {
        guard let length else { return false }
        return completed.covers(length: length)
    }

    /// Names new contents of the data file.
    static func newEpoch() -> UInt64 { UniqueNumber.next() }

    /// Forgets every byte held: the origin changed or the data cannot be trusted.
    public mutating func discardData() {
        validators = Validators()
        completed = RangeSet()
        epoch = JobState.newEpoch()
        contentType = nil
        originName = nil
        finalURL = nil
    }
}

/// Reads and writes job state durably and refuses versions it does not understand.
public enum JobStateCodec {
    private struct Header: Decodable { var version: Int }

    public static func encode(_ state: JobState) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        return Array(try encoder.encode(state))
    }

    public static func decode(_ bytes: [UInt8], path: String) throws(CacheError) -> JobState {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        let data = Data(bytes)
        guard let header = try? decoder.decode(Header.self, from: data) else {
            throw .corruptState(path: path, reason: "not a mediacache job state")
        }
        guard header.version == JobState.currentVersion else {
            throw .corruptState(
                path: path,
                reason: "state version \(header.version) is not supported (this mediacache reads version \(JobState.currentVersion))")
        }
        do {
            return try decoder.decode(JobState.self, from: data)
        } catch {
            throw .corruptState(path: path, reason: "unreadable (\(error))")
        }
    }
}
