/// Where each cache key of a run's lists was first seen, in 12 bytes a key: the only
/// part of reading a list that grows with it (a dictionary of the keys took 80).
///
/// The keys sit in one sorted array searched by halves; new ones collect in a small
/// dictionary that is merged in, in place, once it holds a 32nd as many: no insert copies
/// the whole array, and no growth needs twice its memory.
///
/// A key is known by the first 8 bytes of its SHA-256: two keys of a list of a million
/// share them with a chance of 3 in 100 million, and the second is then reported as a
/// duplicate of the first (named, not dropped silently).
struct FirstSeenKeys {
    private typealias Fingerprint = UInt64

    private var sorted: [Fingerprint] = []
    /// `sorted[i]`'s place: the line's number counted over every list (`ListEntries`).
    private var places: [UInt32] = []
    private var recent: [Fingerprint: UInt32] = [:]

    var count: Int { sorted.count + recent.count }

    /// Room for `count` keys in all, so a list whose length is known grows no array.
    mutating func reserve(_ count: Int) {
        sorted.reserveCapacity(count)
        places.reserveCapacity(count)
    }

    /// Records `key` at `place` and returns nil, or returns the place it was first seen at.
    mutating func insert(_ key: CacheKey, at place: Int) -> Int? {
        let print = key.leadingWord
        if let known = recent[print] ?? find(print) { return Int(known) }
        recent[print] = UInt32(clamping: place)
        if recent.count >= max(2048, sorted.count / 32) { mergeRecent() }
        return nil
    }

    private func find(_ print: Fingerprint) -> UInt32? {
        var (low, high) = (0, sorted.count)
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < print { low = middle + 1 } else { high = middle }
        }
        return low < sorted.count && sorted[low] == print ? places[low] : nil
    }

    /// Merges `recent` into `sorted` from the back, so a merge moves each key at most once.
    private mutating func mergeRecent() {
        let fresh = recent.sorted { $0.key < $1.key }
        recent = [:]
        var old = sorted.count - 1
        sorted.append(contentsOf: repeatElement(0, count: fresh.count))
        places.append(contentsOf: repeatElement(0, count: fresh.count))
        var next = fresh.count - 1
        for slot in stride(from: sorted.count - 1, through: 0, by: -1) where next >= 0 {
            if old >= 0 && fresh[next].key < sorted[old] {
                sorted[slot] = sorted[old]
                places[slot] = places[old]
                old -= 1
            } else {
                sorted[slot] = fresh[next].key
                places[slot] = fresh[next].value
                next -= 1
            }
        }
    }
}
