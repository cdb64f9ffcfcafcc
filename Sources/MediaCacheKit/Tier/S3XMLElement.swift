import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// An element of an S3 XML answer, read whole into a small tree: the answers are short
/// (a page of a listing at most) and only element names and text matter. Namespaces
/// are dropped; entities (`&quot;` in ETags, `&amp;` in keys) are resolved by XMLParser.
struct S3XMLElement: Sendable, Equatable {
    var name: String
    var text = ""
    var children: [S3XMLElement] = []

    /// The first child called `name`.
    func child(_ name: String) -> S3XMLElement? { children.first { $0.name == name } }

    func children(_ name: String) -> [S3XMLElement] { children.filter { $0.name == name } }

    /// The text of the first child called `name`.
    func text(_ name: String) -> String? { child(name)?.text }

    /// The document's root element, or nil when `bytes` are not well-formed XML.
    static func parse(_ bytes: [UInt8]) -> S3XMLElement? {
        let builder = TreeBuilder()
        let parser = XMLParser(data: Data(bytes))
        parser.delegate = builder
        parser.shouldProcessNamespaces = true
        // An answer never needs an external entity: refuse them all.
        parser.shouldResolveExternalEntities = false
        guard parser.parse() else { return nil }
        return builder.root
    }

    private final class TreeBuilder: NSObject, XMLParserDelegate {
        var root: S3XMLElement?
        private var open: [S3XMLElement] = []

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            open.append(S3XMLElement(name: elementName))
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            guard !open.isEmpty else { return }
            open[open.count - 1].text += string
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            guard let element = open.popLast() else { return }
            if open.isEmpty {
                root = element
            } else {
                open[open.count - 1].children.append(element)
            }
        }
    }
}
