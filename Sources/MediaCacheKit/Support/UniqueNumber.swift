import Synchronization

/// Numbers no other call in this process returns, and that another process returns only
/// by chance: a random base drawn once per process, then counted, so a new one costs no
/// `getrandom` (a small file made three).
enum UniqueNumber {
    /// Never 0, which callers may keep for "none".
    static func next() -> UInt64 {
        let number = base &+ count.add(1, ordering: .relaxed).newValue
        return number == 0 ? 1 : number
    }

    private static let base = UInt64.random(in: 1...UInt64.max)
    private static let count = Atomic<UInt64>(0)
}
