/// Which member of a title's pack a pull writes next, and how far one read may reach.
///
/// The pack is read in its order, which is the order the title plays in, so a pull that
/// nobody watches reads it front to back in a few large GETs. One a player waits on
/// (`serve` while the pull runs) reads what every player reads first (`leading`: the
/// playlists, which come last in the pack, and the keys) before anything else. A member
/// a player asks for comes next, and the pull goes on from there, as the player will,
/// back to what it skipped once it reaches the end. A read never reaches into bytes
/// already held: members held whole, or the kept first bytes of one an earlier pull was
/// cut off in. Pure: the puller reads and writes.
struct PackReadOrder {
    /// Where each member starts in the pack; the last element is the pack's size.
    private let offsets: [Int64]
    private var missing: [Bool]
    /// Members whose first bytes are held, and how many.
    private var keptPrefixes: [Int: Int64]
    private let indexByPath: [String: Int]
    /// Members read before any other, in pack order.
    private let leading: [Int]
    private let isLeading: Set<Int>
    /// Where the sequential pass goes on from.
    private var cursor = 0

    init(manifestSize: Int64, members: [TitleManifest.Member], kept: KeptPull, leading: [String] = []) {
        var offsets = [manifestSize]
        offsets.reserveCapacity(members.count + 1)
        for member in members { offsets.append(offsets[offsets.count - 1] + member.size) }
        self.offsets = offsets
        missing = kept.whole.map { !$0 }
        keptPrefixes = kept.prefixes.mapValues(\.bytes)
        let indexByPath = Dictionary(members.enumerated().map { ($1.path, $0) }, uniquingKeysWith: { first, _ in first })
        self.indexByPath = indexByPath
        self.leading = leading.compactMap { indexByPath[$0] }.sorted()
        isLeading = Set(self.leading)
    }

    /// The member to write next: the first leading one still missing, else the first of
    /// `asked`, else the next missing one in pack order from where the pass is. Nil once
    /// every member is held.
    mutating func next(asked: [String]) -> Int? {
        if let index = leading.first(where: { missing[$0] }) { return index }
        for path in asked {
            if let index = indexByPath[path], missing[index] {
                cursor = index
                return index
            }
        }
        let count = missing.count
        for step in 0..<count {
            let index = (cursor + step) % count
            if missing[index] {
                cursor = index
                return index
            }
        }
        return nil
    }

    func start(of index: Int) -> Int64 { offsets[index] }

    /// How far a read for `index`'s bytes may reach: up to the first member after it that
    /// is held or has kept bytes, or the pack's end; for a leading member, no further than
    /// the leading members that follow it (a player waits for those alone).
    func readLimit(for index: Int) -> Int64 {
        var next = index + 1
        while next < missing.count, missing[next], keptPrefixes[next] == nil,
            !isLeading.contains(index) || isLeading.contains(next)
        {
            next += 1
        }
        return offsets[next]
    }

    func isLeading(_ index: Int) -> Bool { isLeading.contains(index) }

    func isMissing(_ path: String) -> Bool {
        indexByPath[path].map { missing[$0] } ?? false
    }

    /// The first `bytes` of `index` are written: reads for members before it stop there.
    mutating func didKeep(_ index: Int, bytes: Int64) {
        keptPrefixes[index] = bytes
    }

    /// `index` was written and checked.
    mutating func didHold(_ index: Int) {
        missing[index] = false
        keptPrefixes[index] = nil
    }
}
