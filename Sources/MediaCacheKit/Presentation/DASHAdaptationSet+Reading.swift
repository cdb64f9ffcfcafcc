extension DASHManifestReader {
    static let roleScheme = "urn:mpeg:dash:role:2011"
    static let trickModeScheme = "http://dashif.org/guidelines/trickmode"

    mutating func read(
        adaptationSet element: XMLElementTree.Element, in period: DASHPeriodContext
    ) throws(PresentationError) -> DASHAdaptationSet {
        try refuseRemote(element)
        try refuseDRM(in: element)
        var context = period
        context.base = try baseURL(of: element, against: period.base)
        context.segmentInfo = try reading(element) { () throws(PlaylistSyntaxError) in
            try period.segmentInfo.merging(element)
        }
        var representations: [DASHRepresentation] = []
        for child in element.children(named: "Representation") {
            representations.append(try read(representation: child, of: element, in: context))
        }
        guard !representations.isEmpty else { throw malformed(element, "the AdaptationSet has no <Representation>") }
        let roles = element.children(named: "Role").filter { $0["schemeIdUri"]?.trimmingBlanks == Self.roleScheme[...] }
            .compactMap { $0["value"].map { String($0.trimmingBlanks) } }
        let properties = element.children(named: "EssentialProperty")
        return DASHAdaptationSet(
            id: element["id"], contentType: Self.contentType(of: element, representations), language: element["lang"],
            roles: roles,
            isTrickMode: properties.contains { $0["schemeIdUri"]?.trimmingBlanks == Self.trickModeScheme[...] },
            representations: representations, line: element.line)
    }

    private mutating func read(
        representation element: XMLElementTree.Element, of adaptationSet: XMLElementTree.Element,
        in context: DASHPeriodContext
    ) throws(PresentationError) -> DASHRepresentation {
        try refuseDRM(in: element)
        guard let id = element["id"], !id.isEmpty else { throw malformed(element, "it has no id") }
        guard representationIDs.insert(id).inserted else {
            throw malformed(
                element, "the id \(PlaylistSyntaxError.quote(id)) is another Representation's in the same Period")
        }
        let (bandwidth, width, height) = try reading(element) { () throws(PlaylistSyntaxError) in
            guard let bandwidth = element["bandwidth"] else { throw PlaylistSyntaxError("it has no bandwidth") }
            let pixels = { (name: String) throws(PlaylistSyntaxError) -> Int? in
                try element[name].map { text throws(PlaylistSyntaxError) in
                    Int(try DASHValues.unsigned(text, name: name, max: Int64(Int32.max)))
                }
            }
            return (
                Int(try DASHValues.unsigned(bandwidth, name: "bandwidth")), try pixels("width"), try pixels("height")
            )
        }
        let base = try baseURL(of: element, against: context.base)
        let segmentInfo = try reading(element) { () throws(PlaylistSyntaxError) in
            try context.segmentInfo.merging(element)
        }
        let addressing = DASHAddressing(
            representation: element, id: id, bandwidth: bandwidth, base: base, segmentInfo: segmentInfo,
            periodDuration: context.duration)
        let (initialization, media, fileIndex, timing) = try resources(of: addressing)
        return DASHRepresentation(
            id: id, bandwidth: bandwidth, width: width, height: height,
            codecs: element["codecs"] ?? adaptationSet["codecs"],
            mimeType: element["mimeType"] ?? adaptationSet["mimeType"],
            initialization: initialization, media: media, fileIndex: fileIndex, segmentTiming: timing, line: element.line)
    }

    /// `@contentType`, else the type of the set's (or its first representation's)
    /// `mimeType`, else what its codecs are.
    static func contentType(
        of element: XMLElementTree.Element, _ representations: [DASHRepresentation]
    ) -> DASHContentType {
        if let written = element["contentType"] {
            return DASHContentType(rawValue: String(written.trimmingBlanks)) ?? .unknown
        }
        let mimeType = (element["mimeType"] ?? representations.first?.mimeType)?.lowercased() ?? ""
        let codecs = (element["codecs"] ?? representations.first?.codecs)?.lowercased() ?? ""
        for type in [DASHContentType.video, .audio, .text, .image] where mimeType.hasPrefix(type.rawValue + "/") {
            return type
        }
        if mimeType == "application/ttml+xml" || codecs.hasPrefix("stpp") || codecs.hasPrefix("wvtt") { return .text }
        let videoCodecs = ["avc1", "avc3", "hvc1", "hev1", "dvh1", "dvhe", "vp08", "vp09", "av01"]
        let audioCodecs = ["mp4a", "ac-3", "ec-3", "ac-4", "opus", "flac", "dtsc", "dtse"]
        if videoCodecs.contains(where: codecs.hasPrefix) { return .video }
        if audioCodecs.contains(where: codecs.hasPrefix) { return .audio }
        return .unknown
    }
}
