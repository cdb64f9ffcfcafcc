/// One section of the long help (`mediacache --help`) and of mediacache(1): both are
/// rendered from these values (`HelpText`, `ManPage`), so they say the same thing.
struct ManualSection: Sendable {
    enum Block: Sendable {
        /// A paragraph of running text.
        case text(String)
        /// Lines shown exactly as written (a list file, a command).
        case literal([String])
        /// Terms, each with a description: exit codes, variables, paths, keys.
        case list([Item])
        /// References to other manual pages: name and section.
        case seeAlso([(String, Int)])
    }

    struct Item: Sendable {
        enum Style: Sendable {
            case plain, path, variable, literal
        }
        var term: String
        var style: Style
        var text: String

        init(_ term: String, _ style: Style, _ text: String) {
            self.term = term
            self.style = style
            self.text = text
        }

        init(_ term: String, _ text: String) { self.init(term, .plain, text) }
    }

    var title: String
    var blocks: [Block]

    init(_ title: String, _ blocks: [Block]) {
        self.title = title
        self.blocks = blocks
    }
}
