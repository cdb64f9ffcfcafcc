import Foundation
import Synchronization

/// The queue's side of a `ResourceSink`: the file's writes and the running hash (none
/// for a piece of a file: the file is hashed once every piece is in, `PiecedFile`).
final class ResourceWriter: Sendable {
    private struct State {
        var file: DataFile?
        var digest = Digest(.sha256)
        var failure: SystemError?
        /// Where the bytes of an earlier answer end that this answer's are compared with
        /// rather than written over (`recompare`); 0 once none are.
        var unconfirmed: Int64 = 0
    }

    private let path: String
    private let isPiece: Bool
    private let notes: (@Sendable (TitleInProgress.ArrivalNote) -> Void)?
    private let state: Mutex<State>
    private let written: Atomic<Int64>
    /// The last restart done (`ResourceSink.version`).
    private let version = Atomic<Int>(0)
    private let failed = Atomic<Bool>(false)

    /// `held`: where its writes begin (the bytes before it are the file's already);
    /// `isPiece`: the writes are a piece of the file, not hashed.
    init(path: String, file: DataFile?, held: Int64, isPiece: Bool = false,
         notes: (@Sendable (TitleInProgress.ArrivalNote) -> Void)?) {
        self.path = path
        self.isPiece = isPiece
        self.notes = notes
        state = Mutex(State(file: file))
        written = Atomic(held)
    }

    func bytesOnDisk(version wanted: Int) -> Int64 {
        // The version first: a count read after it is that version's or a later write's.
        version.load(ordering: .acquiring) == wanted ? written.load(ordering: .acquiring) : 0
    }
    var hasFailed: Bool { failed.load(ordering: .relaxed) }

    func create() {
        LoopThreads.preconditionOff("creating \(path)")
        state.withLock { state in
            do throws(SystemError) {
                let file = try DataFile(path: path, mode: .readWrite)
                // Only a file with bytes: ext4 flushes a file truncated to 0 when it is
                // closed (auto_da_alloc).
                if try file.size() != 0 { try file.truncate(length: 0) }
                state.file = file
            } catch {
                fail(&state, error)
            }
        }
    }

    /// Opens the file a piece goes into, as it is: other pieces are in it.
    func open() {
        LoopThreads.preconditionOff("opening \(path)")
        state.withLock { state in
            do throws(SystemError) {
                state.file = try DataFile(path: path, mode: .readWrite)
            } catch {
                fail(&state, error)
            }
        }
    }

    func hashHeld(_ count: Int64) {
        LoopThreads.preconditionOff("hashing the held bytes of \(path)")
        state.withLock { state in
            let (file, digest) = (state.file, state.digest)
            do {
                try file?.forEachBlock(length: count) { digest.update($0) }
            } catch {
                fail(&state, error as? SystemError ?? SystemError("read", path: path, code: EIO))
            }
        }
    }

    func restart(version next: Int) {
        notes?(.from(0))
        state.withLock { state in
            guard state.failure == nil, let file = state.file else { return }
            do throws(SystemError) {
                try file.truncate(length: 0)
                state.digest = Digest(.sha256)
                written.store(0, ordering: .releasing)
                version.store(next, ordering: .releasing)
            } catch {
                fail(&state, error)
            }
        }
    }

    func tell(_ note: TitleInProgress.ArrivalNote) { notes?(note) }

    /// The answer carries the whole resource again (another version, another copy of
    /// the title, or a server that ignored the range): its bytes are compared with the
    /// ones held, which stay while they agree, so a player reading the file reads on;
    /// where they differ, the file is cut and goes on with the new bytes.
    func recompare(version next: Int) {
        state.withLock { state in
            guard state.failure == nil, state.file != nil else { return }
            state.unconfirmed = written.load(ordering: .acquiring)
            written.store(0, ordering: .releasing)
            version.store(next, ordering: .releasing)
        }
    }

    func write(_ whole: [UInt8], at offset: Int64) {
        let upTo = state.withLock { state -> Int64? in
            guard state.failure == nil, let file = state.file else { return nil }
            var (bytes, offset) = (whole[...], offset)
            do throws(SystemError) {
                if offset < state.unconfirmed {
                    let count = Int(min(Int64(bytes.count), state.unconfirmed - offset))
                    let held = try file.read(count: count, at: offset)
                    let agreeing = zip(held, bytes).prefix { $0 == $1 }.count
                    offset += Int64(agreeing)
                    bytes = bytes.dropFirst(agreeing)
                    if offset == state.unconfirmed {
                        state.unconfirmed = 0
                    } else if agreeing < count {
                        // Another version from here: the file keeps what agreed, and
                        // players are told before a byte of the new version is there.
                        notes?(.from(offset))
                        try cut(&state, file, at: offset)
                    }
                }
                // Hashed first: the loop thread filled the block on another core, and the
                // hash's steady reads bring it into this core's cache, where the copy into
                // the page cache then finds it (copying it cold cost more than the hash). A
                // write that fails fails the resource, hash and all.
                if !bytes.isEmpty {
                    // A copy only when some of them agreed with bytes held.
                    let rest = bytes.count == whole.count ? whole : Array(bytes)
                    if !isPiece { state.digest.update(rest) }
                    try file.write(rest, at: offset)
                }
            } catch {
                fail(&state, error)
                return nil
            }
            let upTo = offset + Int64(bytes.count)
            written.store(upTo, ordering: .releasing)
            // Bytes that agree are no news to a player: they were there already.
            return state.unconfirmed == 0 ? upTo : nil
        }
        if let upTo { notes?(isPiece ? .wrotePiece(ByteRange(offset, upTo)) : .wrote(upTo: upTo)) }
    }

    /// Cuts the file at `offset` (where another version's bytes begin), its hash then
    /// that of the bytes kept.
    private func cut(_ state: inout State, _ file: DataFile, at offset: Int64) throws(SystemError) {
        state.unconfirmed = 0
        try file.truncate(length: offset)
        let digest = Digest(.sha256)
        do {
            try file.forEachBlock(length: offset) { digest.update($0) }
        } catch {
            throw error as? SystemError ?? SystemError("read", path: path, code: EIO)
        }
        state.digest = digest
    }

    /// The whole file's SHA-256 (nil for a piece), or why a write failed. An answer
    /// that ended inside the bytes it was compared with leaves the file at its end.
    func finish() -> Result<String?, SystemError> {
        state.withLock { state in
            if state.failure == nil, state.unconfirmed > 0, let file = state.file {
                let end = written.load(ordering: .acquiring)
                notes?(.from(end))
                do throws(SystemError) {
                    try cut(&state, file, at: end)
                } catch {
                    fail(&state, error)
                }
            }
            if let failure = state.failure { return .failure(failure) }
            return .success(isPiece ? nil : state.digest.finalizeHex())
        }
    }

    private func fail(_ state: inout State, _ error: SystemError) {
        state.failure = error
        failed.store(true, ordering: .relaxed)
    }
}
