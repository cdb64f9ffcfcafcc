extension DASHManifestReader {
    /// The segments of a `SegmentTimeline` (section 5.3.9.6): each `S` is `@r + 1`
    /// segments of `@d` from `@t` (default: where the previous one ended, 0 for the
    /// first); `@r="-1"` repeats up to the next `S@t` or the end of the Period. Bounded
    /// by what the MPD may still have before anything is made, and checked so that no
    /// time passes 2^63.
    func timeline(
        _ element: XMLElementTree.Element, timescale: Int64, offset: Int64, _ periodDuration: Double?
    ) throws(PresentationError) -> [DASHSpan] {
        let entries = element.children(named: "S")
        guard !entries.isEmpty else { throw malformed(element, "it has no <S>") }
        var spans: [DASHSpan] = []
        var next: Int64 = 0
        for (index, entry) in entries.enumerated() {
            let (start, duration, repeats) = try reading(entry) { () throws(PlaylistSyntaxError) in
                guard let written = entry["d"] else { throw PlaylistSyntaxError("it has no d (duration)") }
                let duration = try DASHValues.unsigned(written, name: "d")
                guard duration > 0 else { throw PlaylistSyntaxError("d must be more than 0") }
                return (
                    try entry["t"].map { text throws(PlaylistSyntaxError) in try DASHValues.unsigned(text, name: "t") }
                        ?? next,
                    duration, try entry["r"].map(DASHValues.repeatCount) ?? 0
                )
            }
            let count: Int64
            if repeats >= 0 {
                count = repeats < Int64(segmentBudget) ? repeats + 1 : Int64(segmentBudget) + 1
            } else {
                let end = try repeatEnd(after: index, of: entries, timescale: timescale, offset: offset, periodDuration)
                let exact = (end - Double(start)) / Double(duration)
                // A tolerance for decimal durations that are not exact in binary.
                let rounded = exact <= 1e-6 ? 0 : (exact - 1e-6).rounded(.up)
                count = rounded <= Double(segmentBudget) ? Int64(rounded) : Int64(segmentBudget) + 1
            }
            guard count <= Int64(segmentBudget - spans.count) else {
                throw .tooManySegments(url: url, line: entry.line)
            }
            var time = start
            for _ in 0..<count {
                spans.append((time, duration))
                guard time <= Int64.max - duration else { throw malformed(entry, "its times pass 2^63") }
                time += duration
            }
            next = time
        }
        return spans
    }

    /// Where `S@r="-1"` stops repeating, in the timescale: the next `S@t`, or the end of
    /// the Period (its duration past the presentation time offset).
    private func repeatEnd(
        after index: Int, of entries: [XMLElementTree.Element], timescale: Int64, offset: Int64,
        _ periodDuration: Double?
    ) throws(PresentationError) -> Double {
        let entry = entries[index]
        if index + 1 < entries.count, let written = entries[index + 1]["t"] {
            return Double(
                try reading(entries[index + 1]) { () throws(PlaylistSyntaxError) in
                    try DASHValues.unsigned(written, name: "t")
                })
        }
        guard let periodDuration else {
            throw malformed(
                entry,
                "r=\"-1\" repeats up to the next S@t or the end of the Period, and neither is known "
                    + "(no Period@duration, next Period or MPD@mediaPresentationDuration)")
        }
        return Double(offset) + periodDuration * Double(timescale)
    }
}
