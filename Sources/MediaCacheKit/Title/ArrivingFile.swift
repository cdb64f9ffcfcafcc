/// A file of a title on its way, read as its bytes land: a player asking for a segment
/// gets its first bytes while the rest is still coming from the origin.
///
/// Its bytes are the file's at `path` as long as the fetch does not start it over
/// (an origin that changed it, or a resume that could not continue): a reader then
/// gets `ReaderError.dataStartedOver`, never bytes of two versions.
public struct ArrivingFile: Sendable {
    let title: TitleInProgress
    /// The file's path among the title's.
    let member: String
    /// Where its bytes are while the title downloads.
    public let path: String
    /// Its size, when the origin's response said.
    public let length: Int64?
    let generation: Int

    /// Waits for bytes beyond `offset`: the end of what the file holds now, or `offset`
    /// itself once there is no more to come.
    public func available(beyond offset: Int64) async throws -> Int64 {
        try await title.available(member, beyond: offset, generation: generation)
    }

    /// Throws `ReaderError.dataStartedOver` if the file started over: call it after
    /// reading, so bytes read are known to be of the version sent so far.
    public func checkUnchanged() throws {
        try title.check(member, generation: generation)
    }
}
