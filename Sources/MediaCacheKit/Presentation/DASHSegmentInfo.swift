/// The segment information in force at a Period, AdaptationSet or Representation
/// (ISO/IEC 23009-1 section 5.3.9.1): `SegmentBase`, `SegmentList` and `SegmentTemplate`
/// each inherit from the element of the same name one level up, a lower level's
/// attributes and child elements replacing the higher's; the kind written at the
/// lowest level is the one that addresses the representation.
struct DASHSegmentInfo {
    enum Kind: String {
        case base = "SegmentBase"
        case list = "SegmentList"
        case template = "SegmentTemplate"
    }

    /// One kind's attributes and children, merged down to the current level.
    struct Merged {
        /// Each value with the line it was written on, for messages.
        var attributes: [String: (value: String, line: Int)] = [:]
        var timeline: XMLElementTree.Element?
        var initialization: XMLElementTree.Element?
        var segmentURLs: [XMLElementTree.Element] = []
        /// The line of the lowest element merged in.
        var line = 0
    }

    private var merged: [Kind: Merged] = [:]
    /// The kind written at the lowest level so far.
    private(set) var kind: Kind?

    /// The merged information of the kind that addresses the representation.
    var current: Merged? { kind.flatMap { merged[$0] } }

    /// This information with what `element` (a Period, AdaptationSet or Representation)
    /// writes merged in. More than one of the three kinds on one element is refused:
    /// the standard allows one, and which to follow would be a guess.
    func merging(_ element: XMLElementTree.Element) throws(PlaylistSyntaxError) -> DASHSegmentInfo {
        var result = self
        var written: [Kind] = []
        for child in element.children {
            guard let kind = Kind(rawValue: child.name) else { continue }
            guard !written.contains(kind) else { throw PlaylistSyntaxError("<\(kind.rawValue)> is written twice") }
            if let first = written.first {
                throw PlaylistSyntaxError("it has both <\(first.rawValue)> and <\(kind.rawValue)>; only one may be")
            }
            written.append(kind)
            result.merged[kind] = Self.merge(child, into: merged[kind] ?? Merged())
            result.kind = kind
        }
        return result
    }

    private static func merge(_ element: XMLElementTree.Element, into parent: Merged) -> Merged {
        var result = parent
        result.line = element.line
        for attribute in element.attributes {
            result.attributes[attribute.name] = (attribute.value, element.line)
        }
        var segmentURLs: [XMLElementTree.Element] = []
        for child in element.children {
            switch child.name {
            case "SegmentTimeline": result.timeline = child
            case "Initialization": result.initialization = child
            case "SegmentURL": segmentURLs.append(child)
            default: break
            }
        }
        if !segmentURLs.isEmpty { result.segmentURLs = segmentURLs }
        return result
    }
}
