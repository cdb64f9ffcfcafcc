import Testing
@testable import MediaCacheKit

/// How a large ranged file of a title is split (`PiecedFile`): one piece asks alone
/// until the origin shows it serves ranges, then pieces go out from the front; the back
/// of the slowest is taken once nothing is left; a player's offset gets a piece from
/// there; pieces of another version start the file over; failures together count once.
@Suite("Pieced file")
struct PiecedFileTests {
    static let fragment: Int64 = 64 << 10
    static let length: Int64 = 10 * fragment
    static let policy = RetryPolicy(baseDelay: 0.5, maxDelay: 30, maxRetryAfter: 300)

    /// `known`: the plan gives its length (a single-file HLS rendition); else the origin
    /// will (a DASH `SegmentBase` file).
    static func file(partial: TitleProgress.Partial? = nil, connections: Int = 4, known: Bool = true) -> PiecedFile {
        let resource = TitleResource(
            path: "media/media.ts", url: "https://cdn.example/media.ts", range: known ? ByteRange(0, length) : nil,
            kind: .rangedFile, rendition: "media", label: "media.ts of media")
        return PiecedFile(
            resource: resource, partial: partial,
            planner: FragmentPlanner(minFragment: fragment), connections: connections)
    }

    /// Starts `pieces` of `file` (their fetches are never sent).
    @discardableResult
    static func start(_ pieces: [ByteRange], of file: PiecedFile) -> [ResourceFetch] {
        pieces.map { piece in
            let fetch = ResourceFetch(
                piece: piece, of: file.resource, url: file.url, redirectHops: 0, path: "/nowhere", validator: file.validator,
                total: file.total
            ) { _, _ in }
            file.started(fetch)
            return fetch
        }
    }

    @Test func onlyLargeRangedFilesAndWholeMediaFilesComeInPieces() {
        let file = Self.file().resource
        #expect(PiecedFile.isPieced(file, minFragment: Self.fragment))
        #expect(!PiecedFile.isPieced(file, minFragment: Self.length))
        #expect(Self.file().length == Self.length)
        var segment = file
        segment.kind = .segment
        #expect(!PiecedFile.isPieced(segment, minFragment: Self.fragment))
        // A whole file of a length no one has said yet: its first piece tells.
        let whole = Self.file(known: false)
        #expect(PiecedFile.isPieced(whole.resource, minFragment: Self.length))
        #expect(whole.length == nil && !whole.isComplete)
    }

    /// A file whose length the origin has not said yet: one piece from the front asks
    /// alone, a player's seek waits for it, and a resume asks from where it held up to.
    @Test func aFileOfUnknownLengthAsksOnePieceUntilItIsTold() {
        let file = Self.file(known: false)
        let first = file.nextPieces(slots: 8, now: 0)
        #expect(first == [ByteRange(0, Self.fragment)])
        Self.start(first, of: file)
        #expect(file.nextPieces(slots: 8, now: 0).isEmpty)
        #expect(file.piece(for: 5 * Self.fragment) == nil && file.piece(for: nil) == nil)
        #expect(file.partial == nil)

        let held = RangeSet([ByteRange(0, 3 * Self.fragment)])
        let resumed = Self.file(partial: TitleProgress.Partial(held: held, validator: "\"v1\""), known: false)
        #expect(resumed.length == nil)
        #expect(resumed.piece(for: nil) == ByteRange(3 * Self.fragment, 4 * Self.fragment))
        // A resume that saved the length plans as if the plan had given it.
        let told = Self.file(partial: TitleProgress.Partial(held: held, validator: "\"v1\"", length: Self.length), known: false)
        #expect(told.length == Self.length)
        #expect(told.nextPieces(slots: 8, now: 0) == [ByteRange(3 * Self.fragment, 4 * Self.fragment)])
    }

    @Test func onePieceAsksAloneThenTheRestGoFromTheFront() {
        let file = Self.file()
        let first = file.nextPieces(slots: 8, now: 0)
        #expect(first == [ByteRange(0, Self.fragment)])
        let probe = Self.start(first, of: file)
        #expect(file.nextPieces(slots: 8, now: 0).isEmpty, "a second piece before the first was answered")
        file.answered(probe[0])
        // Three more (four connections), each a fragment, in order after the first.
        let next = file.nextPieces(slots: 8, now: 0)
        #expect(next == (1...3).map { ByteRange(Int64($0) * Self.fragment, Int64($0 + 1) * Self.fragment) })
    }

    @Test func withEverythingOnItsWayAFreeConnectionTakesTheBackOfTheLargestPiece() {
        let fragment = Self.fragment
        let file = Self.file(connections: 3)
        let probe = Self.start(file.nextPieces(slots: 1, now: 0), of: file)
        file.answered(probe[0])
        let second = Self.start(file.nextPieces(slots: 1, now: 0), of: file)
        #expect(second.map(\.piece) == [ByteRange(fragment, 2 * fragment)])
        // A piece that asks for all the rest: nothing is left unclaimed.
        let rest = Self.start([ByteRange(2 * fragment, Self.length)], of: file)[0]
        _ = file.report(probe[0], .pieceDone(ByteRange(0, fragment)), retries: 5, retryPolicy: Self.policy, now: 0)
        let stolen = file.nextPieces(slots: 1, now: 0)
        #expect(stolen == [ByteRange(6 * fragment, Self.length)])
        #expect(rest.pieceEnd == 6 * fragment)
    }

    @Test func aPlayersOffsetGetsAPieceFromThereCuttingOneFarBehind() {
        let file = Self.file()
        let probe = Self.start(file.nextPieces(slots: 1, now: 0), of: file)
        file.answered(probe[0])
        let back = Self.start([ByteRange(Self.fragment, Self.length)], of: file)[0]
        // Just ahead of where a piece is: wait for it.
        #expect(file.piece(for: Self.fragment + 1000) == nil)
        // Far ahead: that piece stops there, and a new one starts there.
        let seek = 7 * Self.fragment + 5
        #expect(file.piece(for: seek) == ByteRange(seek, Self.length))
        #expect(back.pieceEnd == seek)
        // Beyond the file, or a file with every piece asked for: nothing.
        #expect(file.piece(for: Self.length) == nil)
        let fresh = Self.file()
        #expect(fresh.piece(for: nil) == ByteRange(0, Self.fragment))
        #expect(fresh.piece(for: 3 * Self.fragment) == ByteRange(3 * Self.fragment, 4 * Self.fragment))
    }

    @Test func whatAnEarlierRunHeldIsNotAskedForAgain() {
        let held = RangeSet([ByteRange(0, 2 * Self.fragment), ByteRange(5 * Self.fragment, 6 * Self.fragment)])
        let file = Self.file(partial: TitleProgress.Partial(held: held, validator: "\"v1\""))
        #expect(file.validator == "\"v1\"" && file.held == held)
        let probe = file.nextPieces(slots: 4, now: 0)
        #expect(probe == [ByteRange(2 * Self.fragment, 3 * Self.fragment)])
        #expect(file.piece(for: 5 * Self.fragment + 9) == nil, "a held byte was asked for")
    }

    @Test func aPieceOfAnotherVersionStartsTheFileOver() {
        let file = Self.file(partial: TitleProgress.Partial(held: RangeSet([ByteRange(0, Self.fragment)]), validator: "\"v1\""))
        let fetch = Self.start([ByteRange(Self.fragment, 2 * Self.fragment)], of: file)[0]
        let verdict = file.report(fetch, .startOver(reason: "media.ts changed on the origin"), retries: 5, retryPolicy: Self.policy, now: 0)
        guard case .startOver(let reason) = verdict else { Issue.record("\(verdict)"); return }
        #expect(reason.contains("changed"))
        #expect(file.fetches.isEmpty)
    }

    /// Starting over, a file hands out no piece and saves no progress of the old
    /// version; it says when the pieces on their way are stopped (none of these was sent).
    @Test func aFileStartingOverHandsOutNothingAndSavesNothing() {
        let file = Self.file(partial: TitleProgress.Partial(held: RangeSet([ByteRange(0, Self.fragment)]), validator: "\"v1\""))
        Self.start([ByteRange(Self.fragment, 2 * Self.fragment)], of: file)
        #expect(file.partial != nil)
        var drained = false
        file.startOver(on: TransferLoop(maxConnectionsPerHost: 1, maxConnections: 1)) { drained = true }
        #expect(drained && file.fetches.isEmpty)
        #expect(file.nextPieces(slots: 4, now: 0).isEmpty && file.piece(for: 5 * Self.fragment) == nil)
        #expect(file.partial == nil)
    }

    @Test func piecesFailingTogetherCountOnceAndBackOff() {
        let file = Self.file()
        let probe = Self.start(file.nextPieces(slots: 1, now: 0), of: file)
        file.answered(probe[0])
        let pieces = Self.start(file.nextPieces(slots: 3, now: 0), of: file)
        var attempts: [Int] = []
        for fetch in pieces {
            let verdict = file.report(fetch, .transient(reason: "HTTP 503", retryAfter: 2), retries: 1, retryPolicy: Self.policy, now: 10)
            guard case .retry(let delay, let attempt, _) = verdict else { Issue.record("\(verdict)"); return }
            #expect(delay >= 2)
            attempts.append(attempt)
        }
        #expect(attempts == [1, 1, 1])
        #expect(file.nextPieces(slots: 3, now: 11).isEmpty, "a piece during the backoff")
        #expect(!file.nextPieces(slots: 3, now: 13).isEmpty)
        // The next failure after the backoff is the second in a row: beyond `retries` 1.
        let verdict = file.report(probe[0], .transient(reason: "HTTP 503", retryAfter: nil), retries: 1, retryPolicy: Self.policy, now: 13)
        guard case .failed(let failure) = verdict else { Issue.record("\(verdict)"); return }
        #expect(failure.message.contains("media.ts of media") && failure.message.contains("failed 2 times"))
    }
}
