/// One list and the name its diagnostics give it: its text in memory, or a file read as
/// its entries are asked for.
public struct ListText: Sendable {
    public let file: String
    let content: Content

    enum Content {
        /// `undecodableLines` (1-based) were not UTF-8: in `text` they keep only their
        /// indentation, and the parser reports them.
        case text(String, undecodableLines: Set<Int>)
        /// A regular file: read a chunk at a time, so a long list is never in memory whole.
        case path(String, chunkSize: Int)
        /// Standard input or a pipe: read as it arrives.
        case stream(ListStream, chunkSize: Int)
    }

    public init(text: String, file: String, undecodableLines: Set<Int> = []) {
        self.file = file
        content = .text(text, undecodableLines: undecodableLines)
    }

    /// The list file at `path`, read as entries are asked for (and once more, quickly,
    /// by `ListParser.entryLineCount`). It must be a regular file: a pipe cannot be read twice.
    public init(readingFile path: String, file: String) {
        self.init(readingFile: path, file: file, chunkSize: 64 << 10)
    }

    /// `chunkSize`: bytes read at a time (tests make lines cross many reads).
    init(readingFile path: String, file: String, chunkSize: Int) {
        self.file = file
        content = .path(path, chunkSize: chunkSize)
    }

    /// `stream`, read as it arrives (`ListStream`). Its entries cannot be counted ahead.
    public init(reading stream: ListStream, file: String) {
        self.init(reading: stream, file: file, chunkSize: 64 << 10)
    }

    init(reading stream: ListStream, file: String, chunkSize: Int) {
        self.file = file
        content = .stream(stream, chunkSize: chunkSize)
    }

    /// The stream it is read from, if it arrives while it is read (its entries cannot be
    /// counted ahead, and a stop must end its reading).
    public var stream: ListStream? {
        if case .stream(let stream, _) = content { stream } else { nil }
    }

    func lines() -> any ListLines {
        switch content {
        case .text(let text, let undecodableLines): TextListLines(text, undecodableLines: undecodableLines)
        case .path(let path, let chunkSize): FileListLines(.path(path), chunkSize: chunkSize)
        case .stream(let stream, let chunkSize): FileListLines(.stream(stream), chunkSize: chunkSize)
        }
    }
}

/// The entries of one or more lists, parsed only as they are asked for: the engine asks
/// for the next one when a job slot frees up, so a list of 100 000 lines is never held
/// as 100 000 entries. An entry whose cache key came earlier, in the same list or
/// another, is dropped with a warning naming the first.
///
/// Used by one thread at a time (the command's, then the run's list queue).
// @unchecked: used by one thread at a time: the command's, then the list queue's (RequestFeed).
public final class ListEntries: @unchecked Sendable {
    private var lists: [ListText]
    private var listIndex = 0
    private var builder: ListParser.Builder?
    /// The current list's lines, while it is read.
    private var lines: (any ListLines)?
    private var lineNumber = 0
    /// Where each cache key was first seen: the only part that grows with the list.
    private var firstSeen = FirstSeenKeys()
    /// Lines of the lists before each list, so one number names a line in any of them.
    private var linesBefore: [Int] = [0]
    /// Errors reported so far (bad lines; their entries were dropped).
    public private(set) var errorCount = 0
    /// When set, only the entries of this shard are given out.
    private let shard: Shard?
    /// Entries passed over so far because they belong to another shard.
    public private(set) var otherShardCount = 0

    /// `expectedEntries`: about how many entries the lists hold (`ListParser.entryLineCount`),
    /// so the duplicate check takes its memory once.
    public init(_ lists: [ListText], shard: Shard? = nil, expectedEntries: Int = 0) {
        self.lists = lists
        self.shard = shard
        firstSeen.reserve(expectedEntries)
    }

    /// The next entry, or nil when every list is done. Problems met on the way go to
    /// `diagnose` first, in line order.
    public func next(diagnose: (ListDiagnostic) -> Void) -> ListEntry? {
        while listIndex < lists.count {
            let index = listIndex
            let list = lists[index]
            if builder == nil {
                builder = ListParser.Builder(file: list.file)
                lines = list.lines()
                lineNumber = 0
            }
            let completed: (entry: ListEntry, line: Int)?
            var listDone = false
            if builder!.current != nil && lines!.isQuiet() {
                // A stream's writer went quiet after a whole line: the entry under way is
                // taken now, not when the next line comes, which may be minutes away.
                builder!.takenEarly = builder!.currentLine
                completed = builder!.finish()
            } else if let line = lines!.next() {
                lineNumber += 1
                completed = builder!.consume(line, at: lineNumber)
            } else if lines!.wasStopped {
                // Reading stopped (Ctrl-C): the entry under way may lack lines still to come.
                let notTaken = builder!.current == nil
                    ? "the rest of the list was" : "the entry on line \(builder!.currentLine) and the rest of the list were"
                diagnose(
                    ListDiagnostic(
                        severity: .warning, file: list.file, line: lineNumber + 1,
                        message: "the run was interrupted before this line: \(notTaken) not taken"))
                completed = nil
                listDone = true
            } else {
                if let failure = lines!.failure {
                    errorCount += 1
                    diagnose(
                        ListDiagnostic(
                            severity: .error, file: list.file, line: lineNumber + 1,
                            message: "cannot read the list from here on (\(failure)); the entries after this line were not read"))
                }
                // Every line is consumed: what is left is the last entry.
                completed = builder!.finish()
                listDone = true
            }
            report(diagnose)
            if listDone {
                // The list is done; its text (or open file) is no longer needed.
                builder = nil
                lines = nil
                lists[index] = ListText(text: "", file: list.file)
                linesBefore.append(linesBefore[index] + lineNumber)
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

    /// Whether `completed`, from list `index`, is the first entry of its cache key, or a
    /// later one that names a place of its own (`out=`, `dir=`): it joins the first's
    /// download, and the file is fetched once and put in both places, as aria2 saves
    /// both names.
    private func isFirst(
        _ completed: (entry: ListEntry, line: Int), key: CacheKey, in index: Int, diagnose: (ListDiagnostic) -> Void
    ) -> Bool {
        guard let seen = firstSeen.insert(key, at: linesBefore[index] + completed.line) else { return true }
        if completed.entry.outName != nil || completed.entry.directory != nil { return true }
        // The last list that starts before it holds it.
        let list = linesBefore.lastIndex { $0 < seen }!
        let line = seen - linesBefore[list]
        let place = list == index ? "on line \(line)" : "at \(lists[list].file):\(line)"
        diagnose(
            ListDiagnostic(
                severity: .warning, file: lists[index].file, line: completed.line,
                message: "duplicate of the entry \(place); ignored"))
        return false
    }
}

