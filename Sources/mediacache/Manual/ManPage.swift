import ArgumentParser
/// Makes mediacache(1) from swift-argument-parser's generated page (`generate-manual`):
/// DESCRIPTION keeps the overview and the command list, the long help's sections become
/// real mdoc sections in place of the plugin's EXIT STATUS, and text lines are broken at
/// sentences and 80 columns, as `mandoc -T lint` asks. The plugin can only emit the
/// discussion as one block of text, hence this step (run by the GeneratedFiles test).
enum ManPage {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func finish(
        _ generated: String, overview: [String] = ManualText.overview, sections: [ManualSection] = ManualText.sections,
        defaults: [String: [String: String]] = optionDefaults()
    ) throws -> String {
        let lines = generated.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let description = lines.firstIndex(of: ".Sh DESCRIPTION"),
            let commands = lines[description...].firstIndex(where: { $0.hasPrefix(".Bl ") }),
            let exit = lines[commands...].firstIndex(of: ".Sh \"EXIT STATUS\"")
        else {
            throw Failure(description: "the generated page has no DESCRIPTION with a list, or no EXIT STATUS")
        }
        var page = Array(lines[...description]).map { line in
            // A one-line description takes no full stop in mdoc.
            line.hasPrefix(".Nd ") && line.hasSuffix(".\"") ? String(line.dropLast(2)) + "\"" : line
        }
        for (index, paragraph) in overview.enumerated() {
            if index > 0 { page.append(".Pp") }
            page.append(escapeText(paragraph))
        }
        // The plugin puts a paragraph break before the values of an option whose values
        // have no descriptions (ls --sort), where no text follows.
        let body = lines[commands..<exit]
        for (offset, line) in zip(body.indices, body) {
            let next = offset + 1 < exit ? lines[offset + 1] : ""
            if line == ".Pp", next.hasPrefix(".It ") || next == ".El" { continue }
            page.append(line)
        }
        for section in sections { page += render(section) }
        return reflow(withDefaults(page, defaults)).joined(separator: "\n") + "\n"
    }

    /// Each command's option defaults by long name, as `--help` shows them.
    static func optionDefaults(_ commands: [ParsableCommand.Type] = MediaCacheCommand.configuration.subcommands)
        -> [String: [String: String]]
    {
        var defaults: [String: [String: String]] = [:]
        for command in commands {
            let table = CommandOptionTable(command)
            for option in table.options {
                guard let value = option.defaultValue, !value.isEmpty, let long = option.longNames.first else { continue }
                defaults[table.commandName, default: [:]][long] = value
            }
        }
        return defaults
    }

    /// The plugin leaves defaults out of the page (`--help` shows them): each option of a
    /// command (`.It Em prefetch`) whose description does not give its default gets a
    /// "Default: VALUE." line after that description.
    static func withDefaults(_ lines: [String], _ defaults: [String: [String: String]]) -> [String] {
        let commands = Set(MediaCacheCommand.configuration.subcommands.map { $0._commandName })
        var result: [String] = []
        var command: String?
        var pending: String?
        var described = ""
        func flush() {
            if let value = pending, !described.lowercased().contains("default") {
                result.append("Default: " + escapeText(value) + ".")
            }
            pending = nil
            described = ""
        }
        for line in lines {
            if line.hasPrefix(".") && pending != nil { flush() }
            if line.hasPrefix(".It Em ") {
                let name = String(line.dropFirst(7))
                // Other `.It Em` lines name values (ls --sort), not commands.
                if commands.contains(name) { command = name }
            } else if line.hasPrefix(".It Fl "), let command,
                let long = line.split(separator: " ").first(where: { $0.hasPrefix("-") && $0.count > 1 }).map({ String($0.dropFirst()) }),
                let value = defaults[command]?[long]
            {
                pending = value
            } else if pending != nil {
                described += line
            }
            result.append(line)
        }
        flush()
        return result
    }

    static func render(_ section: ManualSection) -> [String] {
        var lines = [".Sh " + (section.title.contains(" ") ? quoted(section.title) : section.title)]
        for (index, block) in section.blocks.enumerated() {
            switch block {
            case .text(let text):
                // Displays and lists bring their own space before them, not after.
                if index > 0 { lines.append(".Pp") }
                lines.append(escapeText(text))
            case .literal(let literal):
                lines.append(".Bd -literal -offset indent")
                lines += literal.map { line in
                    let escaped = escapeText(line)
                    return escaped.hasPrefix(".") || escaped.hasPrefix("'") ? "\\&" + escaped : escaped
                }
                lines.append(".Ed")
            case .list(let items):
                // Terms up to 20 characters set the indent; longer ones get a line of
                // their own. Lists of one-line items need no blank line between items.
                let width = min(items.map(\.term.count).max() ?? 0, 20) + 2
                let compact = items.allSatisfy { $0.text.count <= 80 }
                lines.append(".Bl -tag -width \(width)n" + (compact ? " -compact" : ""))
                for item in items {
                    let macro = switch item.style {
                    case .plain: ""
                    case .path: "Pa "
                    case .variable: "Ev "
                    case .literal: "Li "
                    }
                    lines.append(".It " + macro + quoted(item.term))
                    lines.append(escapeText(item.text))
                }
                lines.append(".El")
            case .seeAlso(let pages):
                for (index, page) in pages.enumerated() {
                    lines.append(".Xr \(page.0) \(page.1)" + (index < pages.count - 1 ? " ," : ""))
                }
            }
        }
        return lines
    }

    /// A text line: `\e` for a backslash (a leading dot is handled by `reflow`).
    static func escapeText(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\e")
    }

    /// A quoted macro argument: never read as a macro name; quotes and backslashes escaped.
    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "\"", with: "\\(dq") + "\""
    }

    /// Text lines outside literal displays: one sentence a line, at most 80 bytes where
    /// the words allow, a leading `.` or `'` protected with `\&`, blank lines as `.Pp`.
    static func reflow(_ lines: [String]) -> [String] {
        var result: [String] = []
        var literal = false
        for line in lines {
            // A blank line between paragraphs of a command's discussion is a paragraph break.
            if line.isEmpty && !literal {
                result.append(".Pp")
                continue
            }
            if line.hasPrefix(".") || literal {
                if line.hasPrefix(".Bd -literal") { literal = true }
                if line == ".Ed" { literal = false }
                result.append(line)
                continue
            }
            for sentence in sentences(line) {
                for wrapped in HelpText.wrap(sentence, indent: 0) {
                    result.append(wrapped.hasPrefix(".") || wrapped.hasPrefix("'") ? "\\&" + wrapped : wrapped)
                }
            }
        }
        return result
    }

    /// Splits after `.`, `?` or `!` (and closing brackets or quotes) followed by a space,
    /// except after e.g. and i.e.
    static func sentences(_ line: String) -> [String] {
        var sentences: [String] = []
        var current = ""
        let characters = Array(line)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            current.append(character)
            index += 1
            guard ".?!".contains(character) else { continue }
            while index < characters.count, ")]\"'".contains(characters[index]) {
                current.append(characters[index])
                index += 1
            }
            guard index < characters.count, characters[index] == " " else { continue }
            // An abbreviation ends no sentence: `\&` tells roff so, and the line goes on.
            if current.hasSuffix("e.g.") || current.hasSuffix("i.e.") {
                current += "\\&"
                continue
            }
            while index < characters.count, characters[index] == " " { index += 1 }
            sentences.append(current)
            current = ""
        }
        if !current.isEmpty { sentences.append(current) }
        return sentences
    }
}
