/// Writes a title's pack into its files as it is read, each member checked once whole,
/// in the order `PackReadOrder` gives. Reads are windows of the pack, about a second of
/// the pull each (`TierTitlePuller.nextWindow`). Players' asks are served oldest first: a
/// member one asks for while another is half-written (that no player asked for earlier)
/// is started before the next window, and the half-written one goes on later from where
/// it stopped. What is written of a member is told as it lands (`TitleInProgress`
/// streams it to a player), but for bytes an earlier pull left, which are checked first.
struct PackSplit {
    private let members: [TitleManifest.Member]
    private let staged: StagedTitle
    private var order: PackReadOrder
    /// What an earlier pull left of members it was cut off in.
    private var keptPrefixes: [Int: KeptPull.Prefix]
    /// Members begun by this pull and set aside for one a player asked for.
    private var setAside: [Int: MemberWrite] = [:]
    /// Files players asked for that are not held yet, oldest ask first.
    private var wanted: [String] = []
    private var window: [UInt8] = []
    private var windowStart: Int64 = 0
    /// The window before a jump: the pass comes back to its bytes.
    private var spare: (start: Int64, bytes: [UInt8])?
    private var windowSize = TierTitlePuller.windows.lowerBound

    private struct MemberWrite {
        let file: DataFile
        let digest: Digest
        var done: Int64
        /// Whether its first bytes were an earlier pull's, which a power loss may have left wrong.
        let fromEarlierPull: Bool
    }

    init(_ manifest: TitleManifest, manifestSize: Int64, into staged: StagedTitle, keeping kept: KeptPull, forPlayers: Bool) {
        members = manifest.members
        self.staged = staged
        order = PackReadOrder(
            manifestSize: manifestSize, members: members, kept: kept,
            leading: forPlayers ? Self.readFirst(by: manifest) : [])
        keptPrefixes = kept.prefixes
    }

    /// What a player reads before any segment: the entry, each rendition's playlist, the keys.
    static func readFirst(by manifest: TitleManifest) -> [String] {
        let keys = manifest.members.map(\.path).filter { path in
            TitleMemberType.isKeyFile(path.split(separator: "/").last.map(String.init) ?? path)
        }
        return [manifest.entry] + manifest.renditions.map(\.playlist) + keys
    }

    /// The member to work on next, nil once all are held; `asked`: what players asked for
    /// since the last call.
    mutating func next(asked: [String]) -> Int? {
        remember(asked)
        return order.next(asked: wanted)
    }

    private mutating func remember(_ asked: [String]) {
        for path in asked where !wanted.contains(path) { wanted.append(path) }
        wanted.removeAll { !order.isMissing($0) }
    }

    /// Writes member `index` on, reading windows with `read`: true once it is whole and
    /// checked (taken into `assembly`), false when it was set aside for a member a player
    /// asked for before it (`asked` is asked before each read).
    /// `note` hears what is written of it as it arrives (a player may read it as it
    /// lands), unless its first bytes are an earlier pull's: those are checked first.
    mutating func write(
        _ index: Int, reading read: (ByteRange) throws(TierError) -> [UInt8], asked: () -> [String],
        noting note: (String, TitleInProgress.ArrivalNote) -> Void, checking assembly: inout TitleAssembly
    ) throws -> Bool {
        let member = members[index]
        var write: MemberWrite
        if let begun = setAside.removeValue(forKey: index) {
            write = begun
        } else {
            _ = try assembly.begin(member.path)
            write = try start(index, keeping: keptPrefixes.removeValue(forKey: index), noting: note)
        }
        if !write.fromEarlierPull { note(member.path, .accepted(length: member.size)) }
        while true {
            while write.done < member.size {
                let at = order.start(of: index) + write.done
                if !holds(at), let spare, at >= spare.start, at < spare.start + Int64(spare.bytes.count) {
                    self.spare = (windowStart, window)
                    (windowStart, window) = spare
                }
                if !holds(at) {
                    remember(asked())
                    if !order.isLeading(index), let first = wanted.first, first != member.path {
                        setAside[index] = write
                        order.didKeep(index, bytes: write.done)
                        return false
                    }
                    spare = (windowStart, window)
                    windowStart = at
                    let started = ContinuousClock.now
                    window = try read(ByteRange(at, min(order.readLimit(for: index), at + windowSize)))
                    // A short read (a playlist, a key) times the round trip, not the rate.
                    if Int64(window.count) >= TierTitlePuller.windows.lowerBound {
                        windowSize = TierTitlePuller.nextWindow(
                            after: Int64(window.count), took: (ContinuousClock.now - started) / .seconds(1))
                    }
                }
                let from = Int(at - windowStart)
                let bytes = Array(window[from..<(from + Int(min(Int64(window.count - from), member.size - write.done)))])
                write.digest.update(bytes)
                try write.file.write(bytes, at: write.done)
                write.done += Int64(bytes.count)
                if !write.fromEarlierPull { note(member.path, .wrote(upTo: write.done)) }
            }
            let sha256 = write.digest.finalizeHex()
            // A kept prefix that was not what it seemed (a power loss) costs the member again.
            if write.fromEarlierPull && sha256 != member.sha256 {
                write = try start(index, keeping: nil, noting: note)
                note(member.path, .accepted(length: member.size))
                continue
            }
            try TitleAssembly.check(member, size: member.size, sha256: sha256)
            order.didHold(index)
            return true
        }
    }

    private func holds(_ offset: Int64) -> Bool {
        offset >= windowStart && offset < windowStart + Int64(window.count)
    }

    private func start(
        _ index: Int, keeping prefix: KeptPull.Prefix?, noting note: (String, TitleInProgress.ArrivalNote) -> Void
    ) throws -> MemberWrite {
        if prefix == nil { note(members[index].path, .from(0)) }
        return MemberWrite(
            file: try staged.create(members[index].path, keeping: prefix?.bytes ?? 0),
            digest: prefix?.digest ?? Digest(.sha256), done: prefix?.bytes ?? 0, fromEarlierPull: prefix != nil)
    }
}
