import MediaCacheKit

/// What a run has done so far, across its files: the board's total line on a terminal,
/// and the periodic summary line elsewhere. Bytes only grow: a finished file's bytes
/// stay counted.
struct RunTally {
    struct File {
        var name: String
        var done: Int64
        var length: Int64?
        var rate: Double
        var connections: Int
        /// A streaming title's segments held and in all.
        var segments: (held: Int, total: Int)? = nil
    }

    var active: [(url: String, file: File)] = []
    var finished = 0
    /// Bytes fetched by files no longer active.
    var finishedBytes: Int64 = 0
    /// How many files the run has, when known (a list read whole, `resume`).
    var expected: Int?

    mutating func update(url: String, _ file: File) {
        if let index = active.firstIndex(where: { $0.url == url }) {
            active[index].file = file
        } else {
            active.append((url, file))
        }
    }

    /// `fetched`: the file's bytes fetched in this run, if known better than its last progress.
    mutating func finish(url: String, fetched: Int64? = nil) {
        let last = active.first { $0.url == url }?.file.done ?? 0
        active.removeAll { $0.url == url }
        finished += 1
        finishedBytes += fetched ?? last
    }

    var bytes: Int64 { finishedBytes + active.reduce(0) { $0 + $1.file.done } }
    var rate: Double { active.reduce(0) { $0 + $1.file.rate } }

    /// A rough time left: what the active files lack, plus the files not started yet at
    /// the average size seen so far. Nil while nothing says how much is left.
    var secondsLeft: Double? {
        guard rate > 0 else { return nil }
        let sized = active.compactMap(\.file.length)
        let activeLeft = active.reduce(Int64(0)) { $0 + max(0, ($1.file.length ?? $1.file.done) - $1.file.done) }
        let notStarted = expected.map { max(0, $0 - finished - active.count) } ?? 0
        let unsized = active.count - sized.count
        var left = Double(activeLeft)
        if notStarted + unsized > 0 {
            let seen = finished + sized.count
            guard seen > 0, expected != nil || notStarted == 0 else { return nil }
            let average = Double(finishedBytes + sized.reduce(0, +)) / Double(seen)
            left += average * Double(notStarted + unsized)
        }
        return left / rate
    }

    /// `3 active, 4 of 12 files done, 10.2 MiB, 3.1 MiB/s, ETA ~2 min`.
    var summary: String {
        let files = expected.map { "\(finished) of \($0) files done" } ?? "\(finished) done"
        var text = "\(active.count) active, \(files), \(ByteCount.format(bytes)), \(ByteCount.format(Int64(rate)))/s"
        if let secondsLeft { text += ", ETA ~" + ByteCount.formatSeconds(secondsLeft) }
        return text
    }
}
