/// One list's text and the name its diagnostics give it.
public struct ListText: Sendable {
    public let text: String
    public let file: String
    /// Lines (1-based) that were not UTF-8: in `text` they keep only their indentation,
    /// and the parser reports them.
    public let undecodableLines: Set<Int>

    public init(text: String, file: String, undecodableLines: Set<Int> = []) {
        self.text = text
        self.file = file
        self.undecodableLines = undecodableLines
    }
}

/// The entries of one or more lists, parsed only as they are asked for: the engine asks
/// for the next one when a job slot frees up, so a list of 100 000 lines is never held
/// as 100 000 entries. An entry whose cache key came earlier, in the same list or
/// another, is dropped with a warning naming the first.
///
/// Used by one thread at a time (the command's, then the transfer thread).
// @unchecked: used by one thread at a time: the command's, then the loop's after a post.
public final class ListEntries: @unchecked Sendable {
    private var lists: [ListText]
    private var listIndex = 0
    private var builder: ListParser.Builder?
    private var position: String.Index?
    private var lineNumber = 0
    /// Where each cache key was first seen, by the key's 32 bytes (not the URL: this
    /// map is the only part that grows with the list).
    private var firstSeen: [IdentityDigest: (list: Int32, line: Int32)] = [:]
    /// Errors reported so far (bad lines; their entries were dropped).
    public private(set) var errorCount = 0
    /// When set, only the entries of this shard are given out.
    private let shard: Shard?
    /// Entries passed over so far because they belong to another shard.
    public private(set) var otherShardCount = 0

    public init(_ lists: [ListText], shard: Shard? = nil) {
        self.lists = lists
        self.shard = shard
    }

    /// The next entry, or nil when every list is done. Problems met on the way go to
    /// `diagnose` first, in line order.
    public func next(diagnose: (ListDiagnostic) -> Void) -> ListEntry? {
        while listIndex < lists.count {
            let index = listIndex
            let list = lists[index]
            if builder == nil {
                builder = ListParser.Builder(file: list.file, undecodableLines: list.undecodableLines)
                position = list.text.startIndex
                lineNumber = 0
            }
            let completed: (entry: ListEntry, line: Int)?
            var listDone = false
            if let start = position {
                lineNumber += 1
                let rest = list.text.utf8[start...]
                var line: Substring
                if let newline = rest.firstIndex(of: UInt8(ascii: "\n")) {
                    line = list.text[start..<newline]
                    position = list.text.utf8.index(after: newline)
                } else {
                    line = list.text[start...]
                    position = nil
                }
                if line.utf8.last == UInt8(ascii: "\r") { line = line.dropLast() }
                if lineNumber == 1, line.hasPrefix("\u{FEFF}") { line = line.dropFirst() }
                completed = builder!.consume(line, at: lineNumber)
            } else {
                // Every line is consumed: what is left is the last entry.
                completed = builder!.finish()
                listDone = true
            }
            report(diagnose)
            if listDone {
                // The list is done; its text is no longer needed.
                builder = nil
                lists[index] = ListText(text: "", file: list.file)
                listIndex += 1
            }
            if let completed {
                // Hashed once: both the duplicate check and the shard need the key.
                let key = CacheKey(identity: completed.entry.identity)
                guard isFirst(completed, key: key, in: index, diagnose: diagnose) else { continue }
                if let shard, !shard.contains(key) {
                    otherShardCount += 1
                    continue
                }
                return completed.entry
            }
        }
        return nil
    }

    private func report(_ diagnose: (ListDiagnostic) -> Void) {
        guard let found = builder?.diagnostics, !found.isEmpty else { return }
        builder!.diagnostics = []
        for diagnostic in found {
            if diagnostic.severity == .error { errorCount += 1 }
            diagnose(diagnostic)
        }
    }

    /// Whether `completed`, from list `index`, is the first entry of its cache key.
    private func isFirst(
        _ completed: (entry: ListEntry, line: Int), key: CacheKey, in index: Int, diagnose: (ListDiagnostic) -> Void
    ) -> Bool {
        let digest = IdentityDigest(key)
        guard let first = firstSeen[digest] else {
            firstSeen[digest] = (Int32(index), Int32(clamping: completed.line))
            return true
        }
        let place = Int(first.list) == index ? "on line \(first.line)" : "at \(lists[Int(first.list)].file):\(first.line)"
        diagnose(
            ListDiagnostic(
                severity: .warning, file: lists[index].file, line: completed.line,
                message: "duplicate of the entry \(place); ignored"))
        return false
    }
}

/// A cache key's SHA-256 as four words: a quarter of the memory of its hex string.
private struct IdentityDigest: Hashable {
    let words: (UInt64, UInt64, UInt64, UInt64)

    init(_ key: CacheKey) {
        let hex = Array(key.hex.utf8)
        func word(_ index: Int) -> UInt64 {
            hex[index * 16..<(index + 1) * 16].reduce(0) { value, digit in
                value << 4 | UInt64(digit <= UInt8(ascii: "9") ? digit - UInt8(ascii: "0") : digit - UInt8(ascii: "a") + 10)
            }
        }
        words = (word(0), word(1), word(2), word(3))
    }

    static func == (a: Self, b: Self) -> Bool { a.words == b.words }

    func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
    }
}
