/// A well-formed XML document as a tree of elements, their attributes and their text:
/// what the MPD reader walks. Elements sit in one array in document order, attributes
/// in another, so a SegmentTimeline of 100,000 `S` elements costs two allocations, not
/// 200,000. Namespace prefixes are kept as written but not resolved: an element is
/// known by its local name (`Period` of `<mpd:Period>`), which is all an MPD needs.
struct XMLElementTree: Sendable {
    /// Deeper than any MPD (MPD, Period, AdaptationSet, Representation, SegmentTemplate,
    /// SegmentTimeline, S is 7); a bound keeps hostile nesting cheap.
    static let maxDepth = 64
    /// A SegmentList of a million SegmentURLs fits; past this it is not a title.
    static let maxElements = 2_000_000
    /// Four times the largest playlist accepted: XML is wordier than M3U8.
    static let maxBytes = 64 * 1024 * 1024

    struct Node: Sendable {
        /// The local name: `Period` of `<mpd:Period>`.
        var name: String
        /// Where its start tag begins, 1-based, for messages.
        var line: Int
        /// Its attributes in `attributes`, in the order written.
        var attributes: Range<Int>
        var firstChild: Int?
        var nextSibling: Int?
    }

    /// Index 0 is the root element.
    var nodes: [Node] = []
    var attributes: [Attribute] = []
    /// The character data (CDATA included) directly inside an element, for the few
    /// that have any that is not blank; entity references replaced.
    var texts: [Int: String] = [:]

    var root: Element { Element(tree: self, index: 0) }
}

extension XMLElementTree {
    /// An attribute as written, its value with entity references replaced and its blank
    /// characters made spaces (XML 1.0 section 3.3.3).
    struct Attribute: Sendable, Equatable {
        /// As written, prefix included: `xlink:href`.
        var name: String
        var value: String

        /// `href` of `xlink:href`.
        var localName: Substring { name.split(separator: ":", maxSplits: 1).last ?? name[...] }
        var hasPrefix: Bool { name.utf8.contains(UInt8(ascii: ":")) }
    }

    /// One element of an `XMLElementTree`: a cheap view that reads the tree.
    struct Element: Sendable {
        let tree: XMLElementTree
        let index: Int

        private var node: XMLElementTree.Node { tree.nodes[index] }

        /// The local name.
        var name: String { node.name }
        var line: Int { node.line }
        var attributes: ArraySlice<Attribute> { tree.attributes[node.attributes] }

        /// The value of the attribute named exactly `name` (`media`, `xlink:href`).
        subscript(_ name: String) -> String? {
            attributes.first { $0.name == name }?.value
        }

        /// Its text, CDATA included, not trimmed; empty when there is none.
        var text: String { tree.texts[index] ?? "" }

        /// Its child elements, in document order.
        var children: Children { Children(tree: tree, nextIndex: node.firstChild) }

        /// The children with local name `name`.
        func children(named name: String) -> [Element] {
            children.filter { $0.name == name }
        }

        func firstChild(named name: String) -> Element? {
            children.first { $0.name == name }
        }

        struct Children: Sequence, IteratorProtocol {
            let tree: XMLElementTree
            var nextIndex: Int?

            mutating func next() -> XMLElementTree.Element? {
                guard let index = nextIndex else { return nil }
                nextIndex = tree.nodes[index].nextSibling
                return XMLElementTree.Element(tree: tree, index: index)
            }
        }
    }
}

/// Why bytes are not a well-formed XML document this reader accepts, and the line.
struct XMLSyntaxError: Error, Equatable, CustomStringConvertible {
    let line: Int
    let reason: String

    var description: String { "line \(line): \(reason)" }
}
