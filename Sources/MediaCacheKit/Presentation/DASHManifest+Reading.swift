extension DASHManifest {
    /// Reads a static MPD fetched from `url` (its final URL, after redirects): every
    /// Period, adaptation set and representation, with segment templates and timelines
    /// expanded into absolute URIs. Live (`dynamic`) MPDs, DRM, remote elements and
    /// what does not follow ISO/IEC 23009-1 are refused; elements and attributes this
    /// reader has no use for are ignored, as the standard asks. `copy`: which of several
    /// `BaseURL`s of an element to use (the first when 0, the last when it has fewer).
    public init(parsing bytes: [UInt8], url: String, copy: Int = 0) throws(PresentationError) {
        guard bytes.count <= XMLElementTree.maxBytes else { throw .mpdTooLarge(url: url, bytes: bytes.count) }
        let tree: XMLElementTree
        do {
            tree = try XMLElementTree(parsing: bytes)
        } catch {
            // An error page is seldom well-formed XML: say what it is, not where it breaks.
            let root = PresentationDetection.rootElementName(bytes.prefix(PresentationDetection.scanLimit))
            guard root == "MPD" else { throw .notAnMPD(url: url) }
            throw .notWellFormed(url: url, line: error.line, reason: error.reason)
        }
        guard tree.root.name == "MPD" else { throw .notAnMPD(url: url) }
        var reader = DASHManifestReader(url: url, copy: copy)
        self = try reader.read(tree.root)
        copies = Self.copies(below: tree.root)
    }

    /// The most `BaseURL`s that `element` or an element below it that may have one lists.
    private static func copies(below element: XMLElementTree.Element) -> Int {
        let own = element.children(named: "BaseURL").count { !$0.text.trimmingBlanks.isEmpty }
        let levels: Set<String> = ["Period", "AdaptationSet", "Representation"]
        return element.children.filter { levels.contains($0.name) }.reduce(max(1, own)) { max($0, copies(below: $1)) }
    }

    public init(parsing text: String, url: String, copy: Int = 0) throws(PresentationError) {
        try self.init(parsing: Array(text.utf8), url: url, copy: copy)
    }
}

/// Walks an MPD from the root down, carrying what each level hands to the next: the
/// BaseURL, the segment information, the Period's timing.
struct DASHManifestReader {
    /// A BaseURL in force: the MPD's own URL until one is written.
    struct Base {
        var uri: String
        /// Whether a BaseURL element says it (then it may name a file).
        var isWritten: Bool
    }

    let url: String
    /// Which of an element's several `BaseURL`s is used (`DASHManifest.copies`).
    let copy: Int
    /// Segments still allowed, over every representation together.
    var segmentBudget = HLSMediaPlaylist.maxSegments
    /// Representation ids of the Period being read: they name files, so one is one.
    var representationIDs: Set<String> = []

    init(url: String, copy: Int = 0) {
        self.url = url
        self.copy = copy
    }

    mutating func read(_ mpd: XMLElementTree.Element) throws(PresentationError) -> DASHManifest {
        switch mpd["type"]?.trimmingBlanks {
        case nil, "static": break
        case "dynamic": throw .liveMPD(url: url)
        case let other?:
            throw malformed(mpd, "type must be static or dynamic, found \(PlaylistSyntaxError.quote(other))")
        }
        try refuseDRM(in: mpd)
        let duration = try reading(mpd) { () throws(PlaylistSyntaxError) in
            try mpd["mediaPresentationDuration"].map { text throws(PlaylistSyntaxError) in
                try DASHValues.seconds(text)
            }
        }
        let base = try baseURL(of: mpd, against: Base(uri: url, isWritten: false))
        let periodElements = mpd.children(named: "Period")
        guard !periodElements.isEmpty else { throw malformed(mpd, "the MPD has no <Period>") }
        let timing = try periodTiming(periodElements, titleDuration: duration)
        var periods: [DASHPeriod] = []
        for (element, (start, duration)) in zip(periodElements, timing) {
            periods.append(try read(period: element, start: start, duration: duration, base: base))
        }
        guard periods.contains(where: { !$0.adaptationSets.isEmpty }) else {
            throw malformed(mpd, "the MPD has no <AdaptationSet>: there is nothing to fetch")
        }
        return DASHManifest(url: url, duration: duration, periods: periods)
    }

    /// Where each Period starts and how long it lasts (section 5.3.2.1): `@start`, else
    /// where the previous one ends; `@duration`, else up to the next one's start, else
    /// up to the end of the title.
    private func periodTiming(
        _ periods: [XMLElementTree.Element], titleDuration: Double?
    ) throws(PresentationError) -> [(start: Double, duration: Double?)] {
        var written: [(start: Double?, duration: Double?)] = []
        for period in periods {
            try refuseRemote(period)
            written.append(
                try reading(period) { () throws(PlaylistSyntaxError) in
                    (try period["start"].map(DASHValues.seconds), try period["duration"].map(DASHValues.seconds))
                })
        }
        var starts: [Double] = []
        for (index, period) in periods.enumerated() {
            if let start = written[index].start {
                starts.append(start)
            } else if index == 0 {
                starts.append(0)
            } else if let previous = written[index - 1].duration {
                starts.append(starts[index - 1] + previous)
            } else {
                throw malformed(
                    period, "it has no start, and the Period before it no duration: where it begins is unknown")
            }
        }
        var timing: [(start: Double, duration: Double?)] = []
        for (index, period) in periods.enumerated() {
            let end = index + 1 < periods.count ? starts[index + 1] : titleDuration
            let duration = written[index].duration ?? end.map { $0 - starts[index] }
            if let duration, duration < 0 {
                throw malformed(
                    period, "it ends before it starts (a later Period starts earlier, or the title is shorter)")
            }
            timing.append((starts[index], duration))
        }
        return timing
    }

    private mutating func read(
        period: XMLElementTree.Element, start: Double, duration: Double?, base: Base
    ) throws(PresentationError) -> DASHPeriod {
        try refuseDRM(in: period)
        let base = try baseURL(of: period, against: base)
        let segmentInfo = try reading(period) { () throws(PlaylistSyntaxError) in
            try DASHSegmentInfo().merging(period)
        }
        let context = DASHPeriodContext(start: start, duration: duration, base: base, segmentInfo: segmentInfo)
        representationIDs = []
        var adaptationSets: [DASHAdaptationSet] = []
        for element in period.children(named: "AdaptationSet") {
            adaptationSets.append(try read(adaptationSet: element, in: context))
        }
        return DASHPeriod(
            id: period["id"], start: start, duration: duration, adaptationSets: adaptationSets, line: period.line)
    }

    /// The `BaseURL` child of `element` for the copy in use, resolved against `base` (an
    /// absolute one replaces it), or `base` when there is none. Several are copies of the
    /// same resources on other servers: the first unless another `copy` is asked for, the
    /// last when there are fewer.
    func baseURL(of element: XMLElementTree.Element, against base: Base) throws(PresentationError) -> Base {
        let listed = element.children(named: "BaseURL").filter { !$0.text.trimmingBlanks.isEmpty }
        guard !listed.isEmpty else { return base }
        let written = listed[min(copy, listed.count - 1)]
        let text = written.text.trimmingBlanks
        let uri = try reading(written) { () throws(PlaylistSyntaxError) in
            try PlaylistURI.resolve(text, against: base.uri)
        }
        return Base(uri: uri, isWritten: true)
    }

    // MARK: Refusals

    /// DRM system ids (`urn:uuid:...` of a `ContentProtection`), for messages.
    static let drmSystems: [String: String] = [
        "edef8ba9-79d6-4ace-a3c8-27dcd51d21ed": "Widevine", "9a04f079-9840-4286-ab92-e65be0885f95": "PlayReady",
        "94ce86fb-07ff-4f43-adb8-93d2fa968ca2": "FairPlay", "e2719d58-a985-b3c9-781a-b030af78d30e": "ClearKey",
        "1077efec-c0b2-4d02-ace3-3c1e52e2fb4b": "W3C Common PSSH", "5e629af5-38da-4063-8977-97ffbd9902d4": "Marlin",
        "f239e769-efa3-4850-9c16-a903c6932efb": "Adobe Primetime",
    ]

    /// A `ContentProtection` that names a DRM system. `urn:mpeg:dash:mp4protection:2011`
    /// alone only says the segments use Common Encryption, with keys the MPD does not
    /// name; any other scheme is a DRM system's.
    func refuseDRM(in element: XMLElementTree.Element) throws(PresentationError) {
        for protection in element.children(named: "ContentProtection") {
            let scheme = protection["schemeIdUri"]?.trimmingBlanks.lowercased() ?? ""
            if scheme == "urn:mpeg:dash:mp4protection:2011" { continue }
            let system = scheme.hasPrefix("urn:uuid:") ? Self.drmSystems[String(scheme.dropFirst(9))] : nil
            let reason =
                scheme.isEmpty
                ? "a ContentProtection without schemeIdUri"
                : "ContentProtection \(PlaylistSyntaxError.quote(scheme))" + (system.map { ", \($0)" } ?? "")
            throw .drm(url: url, line: protection.line, reason: reason)
        }
    }

    /// `xlink:href`: the element's content is elsewhere, and fetching more than the MPD
    /// is not this reader's job.
    func refuseRemote(_ element: XMLElementTree.Element) throws(PresentationError) {
        if element.attributes.contains(where: { $0.hasPrefix && $0.localName == "href" }) {
            throw malformed(element, "remote elements (xlink:href) are not supported; only what the MPD holds is read")
        }
    }

    // MARK: Messages

    func malformed(_ element: XMLElementTree.Element, _ reason: String) -> PresentationError {
        .malformedMPD(url: url, line: element.line, element: element.name, reason: reason)
    }

    /// The result of `read`, its error reported against `element`.
    func reading<T>(
        _ element: XMLElementTree.Element, _ read: () throws(PlaylistSyntaxError) -> T
    ) throws(PresentationError) -> T {
        do {
            return try read()
        } catch {
            throw malformed(element, error.reason)
        }
    }
}

/// What a Period hands to its adaptation sets and representations.
struct DASHPeriodContext {
    var start: Double
    var duration: Double?
    var base: DASHManifestReader.Base
    var segmentInfo: DASHSegmentInfo
}
