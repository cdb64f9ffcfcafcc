/// What the resources of one representation are made from.
struct DASHAddressing {
    let representation: XMLElementTree.Element
    let id: String
    let bandwidth: Int
    let base: DASHManifestReader.Base
    let segmentInfo: DASHSegmentInfo
    /// Seconds, nil when unknown: what a template with `@duration` or an `S@r="-1"` needs.
    let periodDuration: Double?
}

/// A segment's start and length in the timescale, before it has a URI.
typealias DASHSpan = (time: Int64, duration: Int64)

extension DASHManifestReader {
    /// The initialization and media of a representation (section 5.3.9): a template
    /// expanded, a list read, or one whole file for `SegmentBase` or a BaseURL alone;
    /// what a SegmentBase says of its file, or the timing of the segments.
    mutating func resources(
        of addressing: DASHAddressing
    ) throws(PresentationError) -> (DASHResource?, DASHMedia, DASHFileIndex?, DASHSegmentTiming?) {
        let element = addressing.representation
        guard let kind = addressing.segmentInfo.kind, let info = addressing.segmentInfo.current else {
            guard addressing.base.isWritten else {
                throw malformed(
                    element,
                    "it has no SegmentTemplate, SegmentList, SegmentBase or BaseURL: nothing says where its media is")
            }
            try spend(1, line: element.line)
            return (nil, .singleFile(uri: addressing.base.uri), nil, nil)
        }
        switch kind {
        case .base:
            guard addressing.base.isWritten else {
                throw .malformedMPD(
                    url: url, line: info.line, element: kind.rawValue, reason: "it needs a BaseURL that names the file")
            }
            try spend(1, line: element.line)
            // The init and index ranges are inside the file, fetched whole.
            let initialization = try info.initialization.flatMap { written throws(PresentationError) in
                written["sourceURL"] == nil ? nil : try resource(written, base: addressing.base)
            }
            let index = try fileIndex(info, initialization: initialization)
            return (initialization, .singleFile(uri: addressing.base.uri), index.isEmpty ? nil : index, nil)
        case .list:
            let (initialization, media) = try list(info, addressing)
            return (initialization, media, nil, try segmentTiming(info, kind))
        case .template:
            let (initialization, media) = try template(info, addressing)
            return (initialization, media, nil, try segmentTiming(info, kind))
        }
    }

    /// What a `SegmentBase` says of the inside of its file: kept for the local MPD.
    private func fileIndex(
        _ info: DASHSegmentInfo.Merged, initialization: DASHResource?
    ) throws(PresentationError) -> DASHFileIndex {
        let kind = DASHSegmentInfo.Kind.base
        var index = DASHFileIndex()
        index.indexRange = try value(info, kind, "indexRange") { text throws(PlaylistSyntaxError) in
            try DASHValues.byteRange(text, name: "indexRange")
        }
        index.indexRangeExact = info.attributes["indexRangeExact"]?.value.trimmingBlanks == "true"
        index.timescale = try writtenTimescale(info, kind)
        index.presentationTimeOffset = try writtenOffset(info, kind)
        if initialization == nil, let written = info.initialization {
            index.initializationRange = try reading(written) { () throws(PlaylistSyntaxError) in
                try written["range"].map { text throws(PlaylistSyntaxError) in try DASHValues.byteRange(text, name: "range") }
            }
        }
        return index
    }

    private mutating func template(
        _ info: DASHSegmentInfo.Merged, _ addressing: DASHAddressing
    ) throws(PresentationError) -> (DASHResource?, DASHMedia) {
        let kind = DASHSegmentInfo.Kind.template
        let (timescale, offset, startNumber) = try timing(info, kind)
        guard
            let media = try value(info, kind, "media", { text throws(PlaylistSyntaxError) in
                try DASHTemplate(parsing: text, allowsSegmentValues: true)
            })
        else {
            throw .malformedMPD(url: url, line: info.line, element: kind.rawValue, reason: "it has no media template")
        }
        var initialization: DASHResource?
        if let written = try value(info, kind, "initialization", { text throws(PlaylistSyntaxError) in
            try PlaylistURI.resolve(
                DASHTemplate(parsing: text, allowsSegmentValues: false).filled(
                    representationID: addressing.id, bandwidth: addressing.bandwidth),
                against: addressing.base.uri)
        }) {
            initialization = DASHResource(uri: written)
        } else if let written = info.initialization {
            initialization = try resource(written, base: addressing.base)
        }

        let spans: [DASHSpan]
        if let timeline = info.timeline {
            spans = try self.timeline(timeline, timescale: timescale, offset: offset, addressing.periodDuration)
        } else {
            spans = try evenSpans(
                info, kind, timescale: timescale, offset: offset, startNumber: startNumber, addressing)
        }
        guard !spans.isEmpty else { throw malformed(addressing.representation, "it has no segments") }
        if spans.count > 1 && !media.hasSegmentValues {
            throw .malformedMPD(
                url: url, line: info.attributes["media"]?.line ?? info.line, element: kind.rawValue,
                reason: "the media template has neither $Number$ nor $Time$: every segment would be the same URI")
        }
        try spend(spans.count, line: info.line)
        let uris = DASHTemplateURIs(
            media, representationID: addressing.id, bandwidth: addressing.bandwidth, base: addressing.base.uri)
        var segments: [DASHSegment] = []
        segments.reserveCapacity(spans.count)
        do throws(PlaylistSyntaxError) {
            for (index, span) in spans.enumerated() {
                let number = Int(startNumber) + index
                segments.append(
                    DASHSegment(
                        uri: try uris.uri(number: number, time: span.time), number: number, time: span.time,
                        duration: Double(span.duration) / Double(timescale)))
            }
        } catch {
            throw .malformedMPD(
                url: url, line: info.attributes["media"]?.line ?? info.line, element: kind.rawValue,
                reason: error.reason)
        }
        return (initialization, .segments(segments))
    }

    private mutating func list(
        _ info: DASHSegmentInfo.Merged, _ addressing: DASHAddressing
    ) throws(PresentationError) -> (DASHResource?, DASHMedia) {
        let kind = DASHSegmentInfo.Kind.list
        let (timescale, offset, startNumber) = try timing(info, kind)
        let urls = info.segmentURLs
        guard !urls.isEmpty else {
            throw .malformedMPD(url: url, line: info.line, element: kind.rawValue, reason: "it has no <SegmentURL>")
        }
        guard urls.count <= segmentBudget else { throw .tooManySegments(url: url, line: info.line) }
        var spans: [DASHSpan]?
        if let timeline = info.timeline {
            let written = try self.timeline(timeline, timescale: timescale, offset: offset, addressing.periodDuration)
            guard written.count == urls.count else {
                throw malformed(
                    timeline, "it has \(written.count) segments and its SegmentList \(urls.count) SegmentURLs")
            }
            spans = written
        } else if let duration = try segmentDuration(info, kind) {
            spans = try evenSpans(count: urls.count, duration: duration, offset: offset, info, kind)
        }
        try spend(urls.count, line: info.line)
        var segments: [DASHSegment] = []
        segments.reserveCapacity(urls.count)
        for (index, segmentURL) in urls.enumerated() {
            let (uri, range) = try reading(segmentURL) { () throws(PlaylistSyntaxError) in
                let range = try segmentURL["mediaRange"].map { text throws(PlaylistSyntaxError) in
                    try DASHValues.byteRange(text, name: "mediaRange")
                }
                guard let media = segmentURL["media"] else {
                    guard addressing.base.isWritten else {
                        throw PlaylistSyntaxError("a SegmentURL without media needs a BaseURL that names the file")
                    }
                    return (addressing.base.uri, range)
                }
                return (try PlaylistURI.resolve(media, against: addressing.base.uri), range)
            }
            let span = spans?[index]
            segments.append(
                DASHSegment(
                    uri: uri, byteRange: range, number: Int(startNumber) + index, time: span?.time,
                    duration: span.map { Double($0.duration) / Double(timescale) }))
        }
        let initialization = try info.initialization.flatMap { written throws(PresentationError) in
            try resource(written, base: addressing.base)
        }
        return (initialization, .segments(segments))
    }

    // MARK: Timing

    /// `@timescale` (default 1), `@presentationTimeOffset` (default 0) and `@startNumber`
    /// (default 1) of a SegmentTemplate or SegmentList.
    private func timing(
        _ info: DASHSegmentInfo.Merged, _ kind: DASHSegmentInfo.Kind
    ) throws(PresentationError) -> (timescale: Int64, offset: Int64, startNumber: Int64) {
        let startNumber = try value(info, kind, "startNumber") { text throws(PlaylistSyntaxError) in
            try DASHValues.unsigned(text, name: "startNumber", max: Int64(UInt32.max))
        }
        return (try writtenTimescale(info, kind) ?? 1, try writtenOffset(info, kind) ?? 0, startNumber ?? 1)
    }

    private func segmentTiming(
        _ info: DASHSegmentInfo.Merged, _ kind: DASHSegmentInfo.Kind
    ) throws(PresentationError) -> DASHSegmentTiming {
        let (timescale, offset, _) = try timing(info, kind)
        return DASHSegmentTiming(timescale: timescale, presentationTimeOffset: offset)
    }

    /// `@timescale`, nil when not written.
    private func writtenTimescale(_ info: DASHSegmentInfo.Merged, _ kind: DASHSegmentInfo.Kind) throws(PresentationError) -> Int64? {
        try value(info, kind, "timescale") { text throws(PlaylistSyntaxError) in
            let value = try DASHValues.unsigned(text, name: "timescale", max: Int64(UInt32.max))
            guard value > 0 else { throw PlaylistSyntaxError("timescale must be more than 0") }
            return value
        }
    }

    /// `@presentationTimeOffset`, nil when not written.
    private func writtenOffset(_ info: DASHSegmentInfo.Merged, _ kind: DASHSegmentInfo.Kind) throws(PresentationError) -> Int64? {
        try value(info, kind, "presentationTimeOffset") { text throws(PlaylistSyntaxError) in
            try DASHValues.unsigned(text, name: "presentationTimeOffset")
        }
    }

    private func segmentDuration(
        _ info: DASHSegmentInfo.Merged, _ kind: DASHSegmentInfo.Kind
    ) throws(PresentationError) -> Int64? {
        try value(info, kind, "duration") { text throws(PlaylistSyntaxError) in
            let value = try DASHValues.unsigned(text, name: "duration", max: Int64(UInt32.max))
            guard value > 0 else { throw PlaylistSyntaxError("duration must be more than 0") }
            return value
        }
    }

    /// The segments of a template with `@duration`: as many as cover the Period,
    /// ceil(Period duration × timescale / duration) (section 5.3.9.5.3), up to `@endNumber`.
    private func evenSpans(
        _ info: DASHSegmentInfo.Merged, _ kind: DASHSegmentInfo.Kind, timescale: Int64, offset: Int64,
        startNumber: Int64, _ addressing: DASHAddressing
    ) throws(PresentationError) -> [DASHSpan] {
        let malformed = { (reason: String) in
            PresentationError.malformedMPD(url: self.url, line: info.line, element: kind.rawValue, reason: reason)
        }
        guard let duration = try segmentDuration(info, kind) else {
            throw malformed("it has neither a SegmentTimeline nor a duration")
        }
        guard let periodDuration = addressing.periodDuration else {
            throw malformed(
                "its duration needs the Period's (Period@duration, the next Period's start or "
                    + "MPD@mediaPresentationDuration) to count the segments")
        }
        let exact = periodDuration * Double(timescale) / Double(duration)
        // A tolerance for decimal durations that are not exact in binary (PT6.0S is).
        var count = exact <= 1e-6 ? 0 : (exact - 1e-6).rounded(.up)
        if let endNumber = try value(info, kind, "endNumber", { text throws(PlaylistSyntaxError) in
            try DASHValues.unsigned(text, name: "endNumber", max: Int64(UInt32.max))
        }) {
            count = min(count, Double(max(0, endNumber - startNumber + 1)))
        }
        guard count <= Double(segmentBudget) else { throw .tooManySegments(url: url, line: info.line) }
        return try evenSpans(count: Int(count), duration: duration, offset: offset, info, kind)
    }

    private func evenSpans(
        count: Int, duration: Int64, offset: Int64, _ info: DASHSegmentInfo.Merged, _ kind: DASHSegmentInfo.Kind
    ) throws(PresentationError) -> [DASHSpan] {
        // count ≤ 1,000,000 and duration < 2^32: only the offset can take the sum past 2^63.
        guard offset <= Int64.max - Int64(count) * duration else {
            throw .malformedMPD(
                url: url, line: info.line, element: kind.rawValue, reason: "presentationTimeOffset is too large")
        }
        return (0..<Int64(count)).map { (offset + $0 * duration, duration) }
    }

    // MARK: Pieces

    /// The value of attribute `name` read by `parse`, an error reported on the line it
    /// was written on (maybe a level above the representation).
    func value<T>(
        _ info: DASHSegmentInfo.Merged, _ kind: DASHSegmentInfo.Kind, _ name: String,
        _ parse: (String) throws(PlaylistSyntaxError) -> T
    ) throws(PresentationError) -> T? {
        guard let (text, line) = info.attributes[name] else { return nil }
        do {
            return try parse(text)
        } catch {
            throw .malformedMPD(url: url, line: line, element: kind.rawValue, reason: error.reason)
        }
    }

    /// An `Initialization` (or `RepresentationIndex`-like) element: its `sourceURL`, or
    /// a `range` of the BaseURL's file; nil when it names neither.
    func resource(
        _ element: XMLElementTree.Element, base: DASHManifestReader.Base
    ) throws(PresentationError) -> DASHResource? {
        try reading(element) { () throws(PlaylistSyntaxError) in
            let range = try element["range"].map { text throws(PlaylistSyntaxError) in
                try DASHValues.byteRange(text, name: "range")
            }
            if let source = element["sourceURL"] {
                return DASHResource(uri: try PlaylistURI.resolve(source, against: base.uri), byteRange: range)
            }
            guard let range else { return nil }
            guard base.isWritten else {
                throw PlaylistSyntaxError("a range without sourceURL needs a BaseURL that names the file")
            }
            return DASHResource(uri: base.uri, byteRange: range)
        }
    }

    /// Takes `count` segments from what the whole MPD may have.
    mutating func spend(_ count: Int, line: Int) throws(PresentationError) {
        guard count <= segmentBudget else { throw .tooManySegments(url: url, line: line) }
        segmentBudget -= count
    }
}
