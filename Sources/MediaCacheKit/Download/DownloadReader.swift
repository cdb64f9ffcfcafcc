import Foundation
import Synchronization

/// Reads a download's bytes while it runs, for one response to a client: waits until the
/// bytes it wants are on disk (its wants become the download's most urgent work), then
/// reads them on the caller's thread.
///
/// A reader reads one version of the data: it keeps the data file open, so a commit or
/// a faststart relocation never changes the bytes under it, and if the download starts
/// its data over (the origin changed), it fails with `ReaderError.dataStartedOver`
/// rather than hand on a splice of two versions.
public final class DownloadReader: Sendable {
    private let download: Download
    private let loop: TransferLoop
    private let id: Int
    /// The version of the data this reader reads, once known; whether it was closed.
    private let state = Mutex<(snapshot: HeldBytes.Snapshot?, closed: Bool)>((nil, false))

    private static let ids = Counter()

    init(download: Download, loop: TransferLoop) {
        self.download = download
        self.loop = loop
        id = Self.ids.next()
    }

    deinit { close() }

    /// Whether the bytes are another process's download's: it fetches in its own order,
    /// and a want of this reader's does not move it.
    public var readsAnotherProcess: Bool { download.activity.withLock { $0.elsewhere } }

    /// What the data is (length, type, version), waiting until the download knows it.
    /// Throws like `available(from:upTo:)`.
    public func open() async throws -> DownloadData {
        let availability = try await download.held.available(from: -1, reading: bound)
        bind(availability.snapshot)
        return availability.snapshot.about
    }

    /// Waits until bytes from `offset` are on disk and returns how many can be read from
    /// there at once (0: the file ends at `offset`). `end` (exclusive) is as far as this
    /// reader will read: the bytes up to it become the download's most urgent work.
    /// Throws the download's failure, `ReaderError`, or `CancellationError`.
    public func available(from offset: Int64, upTo end: Int64?) async throws -> Int64 {
        if !download.held.holds(offset) { want(ByteRange(offset, max(offset + 1, end ?? Int64.max))) }
        let availability = try await download.held.available(from: offset, reading: bound)
        bind(availability.snapshot)
        return availability.range.count
    }

    /// Reads up to `count` bytes at `offset`, which `available` said are on disk.
    public func read(at offset: Int64, count: Int) throws -> [UInt8] {
        guard let snapshot = bound else { throw ReaderError.interrupted }
        let bytes = try snapshot.file.read(count: count, at: offset)
        // Checked after the read: the data is never started over before this flips (in
        // another process's file, before its saved state stops naming this version).
        guard download.held.isCurrent(snapshot.generation), snapshot.stillHeld?() ?? true else {
            throw ReaderError.dataStartedOver
        }
        return bytes
    }

    /// Drops this reader's wants; the download goes on. Also done when the reader goes.
    public func close() {
        let first = state.withLock { state in
            defer { state.closed = true }
            return !state.closed
        }
        guard first else { return }
        let (download, id) = (download, id)
        loop.post { download.demands[id] = nil }
    }

    private var bound: HeldBytes.Snapshot? { state.withLock { $0.snapshot } }

    private func bind(_ snapshot: HeldBytes.Snapshot) {
        state.withLock { state in if state.snapshot == nil { state.snapshot = snapshot } }
    }

    private func want(_ range: ByteRange) {
        let (download, id) = (download, id)
        loop.post {
            download.demands[id] = range
            download.job?.fillConnections()
        }
    }
}
