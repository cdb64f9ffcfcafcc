import Foundation

extension XMLElementTree {
    /// Reads a UTF-8 document (a byte order mark allowed): elements, attributes in
    /// either quotes, character data, CDATA, the five predefined entities and character
    /// references, comments, processing instructions, the XML declaration and a DOCTYPE
    /// without internal subset. Not validating; nothing is fetched. Refused: anything
    /// not well-formed, an internal DTD subset (it could define entities that expand
    /// without bound), another encoding, and more than `maxBytes`, `maxElements` or
    /// `maxDepth`. Every step looks at each byte a bounded number of times.
    init(parsing bytes: [UInt8]) throws(XMLSyntaxError) {
        guard bytes.count <= Self.maxBytes else {
            throw XMLSyntaxError(
                line: 1, reason: "the document is \(bytes.count) bytes; documents over \(Self.maxBytes) are refused")
        }
        var reader = XMLTreeReader(bytes)
        try reader.readDocument()
        self = reader.tree
    }
}

/// The reading of one document: a cursor over its bytes and the elements still open.
private struct XMLTreeReader {
    struct OpenElement {
        let node: Int
        /// As written, prefix included: what its end tag must repeat.
        let qualifiedName: ArraySlice<UInt8>
        var lastChild: Int?
    }

    let bytes: [UInt8]
    var position = 0
    var tree = XMLElementTree()
    var open: [OpenElement] = []
    var sawRoot = false
    var sawDoctype = false
    /// Lines are counted lazily up to where one is needed (elements are met in order).
    var countedTo = 0
    var countedLines = 1

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func readDocument() throws(XMLSyntaxError) {
        if bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE]) {
            throw error("the document is UTF-16; only UTF-8 is read")
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
        if starts(with: "<?xml") && position + 5 < bytes.count && isBlank(bytes[position + 5]) {
            try readDeclaration()
        }
        while position < bytes.count {
            if bytes[position] != UInt8(ascii: "<") {
                try readCharacterData()
            } else if starts(with: "<?") {
                try readProcessingInstruction()
            } else if starts(with: "<!--") {
                position = try end(of: "-->", from: position + 4, what: "a comment (<!--)")
            } else if starts(with: "<![CDATA[") {
                try readCDATA()
            } else if starts(with: "<!DOCTYPE") {
                try readDoctype()
            } else if starts(with: "<!") {
                throw error("unknown markup '<!'; only comments, CDATA and a DOCTYPE start so")
            } else if starts(with: "</") {
                try readEndTag()
            } else {
                try readStartTag()
            }
        }
        if let unclosed = open.last {
            let node = tree.nodes[unclosed.node]
            throw error("the document ends inside <\(node.name)> of line \(node.line): the file is cut short?")
        }
        guard sawRoot else { throw error("the document has no root element") }
    }

    // MARK: Markup

    /// `<?xml version="1.0" encoding="..."?>`: only UTF-8 (or its subset ASCII) is read.
    private mutating func readDeclaration() throws(XMLSyntaxError) {
        let start = position
        position = try end(of: "?>", from: position + 5, what: "the XML declaration")
        let declaration = String(decoding: bytes[start..<position], as: UTF8.self)
        guard let range = declaration.range(of: "encoding") else { return }
        let rest = declaration[range.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\t" }
        guard let quote = rest.first, quote == "\"" || quote == "'" else {
            throw error("the XML declaration's encoding has no quoted value")
        }
        let name = rest.dropFirst().prefix { $0 != quote }
        guard ["utf-8", "utf8", "us-ascii", "ascii"].contains(name.lowercased()) else {
            throw error("the document declares encoding \(PlaylistSyntaxError.quote(name)); only UTF-8 is read")
        }
    }

    private mutating func readProcessingInstruction() throws(XMLSyntaxError) {
        let target = bytes[(position + 2)...].prefix { isNameByte($0) }
        if target.count == 3 && String(decoding: target, as: UTF8.self).lowercased() == "xml" {
            throw error("an XML declaration (<?xml ...?>) after the start of the document")
        }
        position = try end(of: "?>", from: position + 2, what: "a processing instruction (<?)")
    }

    /// `<!DOCTYPE MPD PUBLIC "..." "...">`, skipped; one with an internal subset is refused.
    private mutating func readDoctype() throws(XMLSyntaxError) {
        guard !sawRoot, !sawDoctype else { throw error("a DOCTYPE after the root element or a second DOCTYPE") }
        sawDoctype = true
        var index = position + 9
        var quote: UInt8?
        while index < bytes.count {
            let byte = bytes[index]
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: "[") {
                throw error(
                    "a DOCTYPE with an internal subset ([...]) is refused: its entities could expand without bound")
            } else if byte == UInt8(ascii: ">") {
                position = index + 1
                return
            }
            index += 1
        }
        throw error("the DOCTYPE is not closed with '>'")
    }

    private mutating func readCDATA() throws(XMLSyntaxError) {
        guard !open.isEmpty else { throw error("CDATA outside the root element") }
        let start = position + 9
        position = try end(of: "]]>", from: start, what: "a CDATA section (<![CDATA[)")
        try addText(try decoded(bytes[start..<(position - 3)], attribute: false, entities: false))
    }

    private mutating func readCharacterData() throws(XMLSyntaxError) {
        let start = position
        position = bytes[start...].firstIndex(of: UInt8(ascii: "<")) ?? bytes.count
        let run = bytes[start..<position]
        guard !open.isEmpty else {
            if let text = run.firstIndex(where: { !isBlank($0) }) {
                throw error("text outside the root element", at: text)
            }
            return
        }
        try addText(try decoded(run, attribute: false, entities: true))
    }

    private mutating func addText(_ text: String) throws(XMLSyntaxError) {
        guard let parent = open.last?.node else { return }
        // Blank runs between child elements are layout; they are kept only inside text.
        if tree.texts[parent] != nil {
            tree.texts[parent]?.append(text)
        } else if !text.utf8.allSatisfy(isBlank) {
            tree.texts[parent] = text
        }
    }

    private mutating func readStartTag() throws(XMLSyntaxError) {
        if open.isEmpty && sawRoot { throw error("a second root element") }
        guard open.count < XMLElementTree.maxDepth else {
            throw error("elements nested deeper than \(XMLElementTree.maxDepth)")
        }
        guard tree.nodes.count < XMLElementTree.maxElements else {
            throw error("more than \(XMLElementTree.maxElements) elements")
        }
        let line = currentLine()
        position += 1
        let qualifiedName = try readName(what: "an element name after '<'")
        let firstAttribute = tree.attributes.count
        var closesItself = false
        while true {
            let hadBlank = skipBlanks()
            guard position < bytes.count else { throw error("the start tag of an element is not closed with '>'") }
            if bytes[position] == UInt8(ascii: ">") {
                position += 1
                break
            }
            if starts(with: "/>") {
                position += 2
                closesItself = true
                break
            }
            guard hadBlank else { throw error("attributes must be separated by blank space") }
            try readAttribute()
        }
        try checkDistinct(tree.attributes[firstAttribute...])

        let node = tree.nodes.count
        tree.nodes.append(
            XMLElementTree.Node(
                name: try localName(qualifiedName), line: line, attributes: firstAttribute..<tree.attributes.count))
        if let parent = open.indices.last {
            if let previous = open[parent].lastChild {
                tree.nodes[previous].nextSibling = node
            } else {
                tree.nodes[open[parent].node].firstChild = node
            }
            open[parent].lastChild = node
        }
        sawRoot = true
        if !closesItself { open.append(OpenElement(node: node, qualifiedName: qualifiedName)) }
    }

    private mutating func readAttribute() throws(XMLSyntaxError) {
        let name = try readName(what: "an attribute name")
        skipBlanks()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "=") else {
            throw error("the attribute \(quoted(name)) has no '=' and value")
        }
        position += 1
        skipBlanks()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'")
        else { throw error("the value of attribute \(quoted(name)) is not in quotes") }
        let quote = bytes[position]
        let start = position + 1
        guard let close = bytes[start...].firstIndex(of: quote) else {
            throw error("the value of attribute \(quoted(name)) is not closed")
        }
        let raw = bytes[start..<close]
        if raw.contains(UInt8(ascii: "<")) { throw error("'<' inside the value of attribute \(quoted(name))") }
        let value = try decoded(raw, attribute: true, entities: true)
        position = close + 1
        tree.attributes.append(XMLElementTree.Attribute(name: try text(name), value: value))
    }

    private mutating func readEndTag() throws(XMLSyntaxError) {
        position += 2
        let name = try readName(what: "an element name after '</'")
        skipBlanks()
        guard position < bytes.count, bytes[position] == UInt8(ascii: ">") else {
            throw error("the end tag </\(quoted(name))> is not closed with '>'")
        }
        position += 1
        guard let element = open.last else { throw error("the end tag </\(quoted(name))> closes no element") }
        guard element.qualifiedName.elementsEqual(name) else {
            let node = tree.nodes[element.node]
            throw error(
                "the end tag </\(quoted(name))> does not close <\(quoted(element.qualifiedName))> "
                    + "of line \(node.line)")
        }
        open.removeLast()
    }

    /// XML forbids an attribute written twice; a set only for long lists keeps it linear.
    private func checkDistinct(_ attributes: ArraySlice<XMLElementTree.Attribute>) throws(XMLSyntaxError) {
        var seen: Set<String> = []
        for (offset, attribute) in attributes.enumerated() {
            let repeated =
                attributes.count <= 8
                ? attributes.prefix(offset).contains { $0.name == attribute.name }
                : !seen.insert(attribute.name).inserted
            if repeated { throw error("the attribute \(quoted(attribute.name)) is written twice") }
        }
    }

    // MARK: Pieces

    private mutating func readName(what: String) throws(XMLSyntaxError) -> ArraySlice<UInt8> {
        let start = position
        while position < bytes.count && isNameByte(bytes[position]) { position += 1 }
        let name = bytes[start..<position]
        guard let first = name.first else { throw error("expected \(what)") }
        if first == UInt8(ascii: "-") || first == UInt8(ascii: ".") || (0x30...0x39).contains(first) {
            throw error("the name \(quoted(name)) starts with \(quoted(name.prefix(1)))")
        }
        return name
    }

    /// `Period` of `mpd:Period`; at most one colon, with something on both sides.
    private func localName(_ qualifiedName: ArraySlice<UInt8>) throws(XMLSyntaxError) -> String {
        let parts = qualifiedName.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        guard parts.count <= 2, parts.allSatisfy({ !$0.isEmpty }) else {
            throw error("the name \(quoted(qualifiedName)) is not a valid prefixed name")
        }
        return try text(parts[parts.count - 1])
    }

    /// `raw` decoded, a problem reported on its line.
    private func decoded(
        _ raw: ArraySlice<UInt8>, attribute: Bool, entities: Bool
    ) throws(XMLSyntaxError) -> String {
        do {
            return try XMLCharacterData.decoded(raw, inAttribute: attribute, entities: entities)
        } catch {
            throw self.error(error.reason, at: error.index)
        }
    }

    private func text(_ raw: ArraySlice<UInt8>) throws(XMLSyntaxError) -> String {
        guard let text = String(validating: raw, as: UTF8.self) else {
            throw error("the text is not UTF-8", at: raw.startIndex)
        }
        return text
    }

    /// The index after the next `marker` from `start`.
    private func end(of marker: String, from start: Int, what: String) throws(XMLSyntaxError) -> Int {
        let needle = Array(marker.utf8)
        var index = start
        while index + needle.count <= bytes.count {
            if bytes[index] == needle[0] && bytes[index..<(index + needle.count)].elementsEqual(needle) {
                return index + needle.count
            }
            index += 1
        }
        throw error("\(what) is not closed with '\(marker)'")
    }

    private func starts(with marker: String) -> Bool {
        bytes[position...].starts(with: marker.utf8)
    }

    @discardableResult
    private mutating func skipBlanks() -> Bool {
        let start = position
        while position < bytes.count && isBlank(bytes[position]) { position += 1 }
        return position > start
    }

    private func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// Letters, digits, `_ - . :` and any byte of a multi-byte UTF-8 character.
    private func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: ":"), 0x80...0xFF:
            true
        default:
            false
        }
    }

    private func quoted(_ raw: ArraySlice<UInt8>) -> String {
        Printable.name(String(decoding: raw.prefix(80), as: UTF8.self), limit: 60)
    }

    private func quoted(_ name: String) -> String { Printable.name(name, limit: 60) }

    // MARK: Lines

    private mutating func currentLine() -> Int { line(at: position) }

    /// The 1-based line of byte `index`, counting on from the last line asked for.
    private mutating func line(at index: Int) -> Int {
        let index = min(index, bytes.count)
        if index >= countedTo {
            countedLines += bytes[countedTo..<index].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        } else {
            countedLines -= bytes[index..<countedTo].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        }
        countedTo = index
        return countedLines
    }

    private func error(_ reason: String, at index: Int? = nil) -> XMLSyntaxError {
        var copy = self
        return XMLSyntaxError(line: copy.line(at: index ?? position), reason: reason)
    }
}
