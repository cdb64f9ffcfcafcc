/// Renders manual sections as the plain text of `--help`: a title line, blank lines
/// between sections and paragraphs, paragraphs wrapped with their indent, lists with a
/// hanging indent. Lines stay within `width`, so ArgumentParser's own wrapping at 80
/// columns leaves them alone.
enum HelpText {
    static let width = 78

    static func render(overview: [String], sections: [ManualSection]) -> String {
        var chunks = overview.map { wrap($0, indent: 0).joined(separator: "\n") }
        for section in sections { chunks.append(render(section)) }
        return chunks.joined(separator: "\n\n")
    }

    static func render(_ section: ManualSection) -> String {
        var lines = [section.title]
        for (index, block) in section.blocks.enumerated() {
            if index > 0 { lines.append("") }
            switch block {
            case .text(let text):
                lines += wrap(text, indent: 2)
            case .literal(let literal):
                lines += literal.map { "    " + $0 }
            case .list(let items):
                // Terms up to 20 characters share the first line with their text; a
                // longer one has a line of its own, its text indented below it.
                let column = min((items.map(\.term.count).max() ?? 0) + 4, 24)
                for item in items {
                    if item.term.count + 4 <= column {
                        let text = wrap(item.text, indent: column)
                        let first = String(text[0].dropFirst(2 + item.term.count))
                        lines.append("  " + item.term + first)
                        lines += text.dropFirst()
                    } else {
                        lines.append("  " + item.term)
                        lines += wrap(item.text, indent: 8)
                    }
                }
            case .seeAlso(let pages):
                lines += wrap(pages.map { "\($0.0)(\($0.1))" }.joined(separator: ", "), indent: 2)
            }
        }
        return lines.joined(separator: "\n")
    }

    /// Greedy word wrap; a word longer than the line stays whole on its own line.
    static func wrap(_ text: String, indent: Int) -> [String] {
        let prefix = String(repeating: " ", count: indent)
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty && indent + line.count + 1 + word.count > width {
                lines.append(prefix + line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        lines.append(prefix + line)
        return lines
    }
}
